/**
 * Streaming writer of OSM PBF files (https://wiki.openstreetmap.org/wiki/PBF_Format): entities are
 * buffered into primitive blocks of at most `ENTITIES_PER_BLOCK`, each block is encoded with `pbf`,
 * compressed with node:zlib and appended to the file, so memory holds one block whatever the file
 * size. Nodes are written as DenseNodes without metadata (ids, coordinates at 1e-7 degrees, tags).
 * Entities must come in file order: nodes, then ways, then relations, each by ascending id (the
 * `Sort.Type_then_ID` feature this writer declares); the writer refuses anything else.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { PbfWriter } from 'pbf';
import type { OsmHeader, OsmMember, Tags } from './types.js';
import type { OsmSink } from './osm-sink.js';

/** Entities per primitive block (the format's recommendation is at most 8 000). */
const ENTITIES_PER_BLOCK = 8000;
/** Coordinate resolution: 100 nanodegrees = 1e-7 degrees, as OSM stores them. */
const GRANULARITY = 100;
const MEMBER_TYPE: Record<OsmMember['type'], number> = { node: 0, way: 1, relation: 2 };

type Kind = 'node' | 'way' | 'relation';
const KIND_ORDER: Record<Kind, number> = { node: 0, way: 1, relation: 2 };

/** String table of one block: index 0 is the empty string, as the format requires. */
class StringTable {
  readonly strings: string[] = [''];
  private readonly index = new Map<string, number>([['', 0]]);

  id(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

/** An OSM PBF file being written; `close()` flushes the last block and closes the file. */
export class PbfFileWriter implements OsmSink {
  private readonly fd: number;
  private kind: Kind = 'node';
  private lastId = -Infinity;
  private table = new StringTable();
  private count = 0;
  // node block
  private nodeIds: number[] = [];
  private nodeLat: number[] = [];
  private nodeLon: number[] = [];
  private nodeKv: number[] = [];
  // way or relation block: each entity already encoded as a message body
  private messages: Uint8Array[] = [];
  private closed = false;

  /** Creates (or truncates) `path` and writes the file header. */
  constructor(path: string, header: OsmHeader) {
    this.fd = openSync(path, 'w');
    try {
      this.writeBlob('OSMHeader', encodeHeader(header));
    } catch (err) {
      closeSync(this.fd);
      throw err;
    }
  }

  /** Adds a node (degrees). */
  node(id: number, lat: number, lon: number, tags: Tags): void {
    this.advance('node', id);
    this.nodeIds.push(id);
    this.nodeLat.push(Math.round(lat * 1e7));
    this.nodeLon.push(Math.round(lon * 1e7));
    for (const k of Object.keys(tags).sort()) this.nodeKv.push(this.table.id(k), this.table.id(tags[k]));
    this.nodeKv.push(0);
    this.added();
  }

  /** Adds a way over node ids. */
  way(id: number, refs: ArrayLike<number>, tags: Tags): void {
    this.advance('way', id);
    const p = new PbfWriter();
    p.writeVarintField(1, id);
    this.writeTags(p, tags);
    const deltas: number[] = new Array(refs.length);
    let prev = 0;
    for (let i = 0; i < refs.length; i++) {
      deltas[i] = refs[i] - prev;
      prev = refs[i];
    }
    p.writePackedSVarint(8, deltas);
    this.messages.push(p.finish());
    this.added();
  }

  /** Adds a relation. */
  relation(id: number, members: readonly OsmMember[], tags: Tags): void {
    this.advance('relation', id);
    const p = new PbfWriter();
    p.writeVarintField(1, id);
    this.writeTags(p, tags);
    p.writePackedVarint(
      8,
      members.map((m) => this.table.id(m.role)),
    );
    let prev = 0;
    p.writePackedSVarint(
      9,
      members.map((m) => {
        const d = m.ref - prev;
        prev = m.ref;
        return d;
      }),
    );
    p.writePackedVarint(
      10,
      members.map((m) => MEMBER_TYPE[m.type]),
    );
    this.messages.push(p.finish());
    this.added();
  }

  /** Writes the last block and closes the file. */
  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.closed = true;
      closeSync(this.fd);
    }
  }

  private writeTags(p: PbfWriter, tags: Tags): void {
    const keys = Object.keys(tags).sort();
    p.writePackedVarint(
      2,
      keys.map((k) => this.table.id(k)),
    );
    p.writePackedVarint(
      3,
      keys.map((k) => this.table.id(tags[k])),
    );
  }

  private advance(kind: Kind, id: number): void {
    if (this.closed) throw new Error('PBF writer: already closed');
    if (!Number.isSafeInteger(id)) throw new Error(`PBF writer: ${kind} id ${id} is not an integer`);
    if (KIND_ORDER[kind] < KIND_ORDER[this.kind])
      throw new Error(`PBF writer: a ${kind} after a ${this.kind} (nodes, then ways, then relations)`);
    if (kind !== this.kind) {
      this.flush();
      this.kind = kind;
      this.lastId = -Infinity;
    }
    if (id <= this.lastId) throw new Error(`PBF writer: ${kind} ${id} after ${kind} ${this.lastId} (ids ascending)`);
    this.lastId = id;
  }

  private added(): void {
    if (++this.count >= ENTITIES_PER_BLOCK) this.flush();
  }

  private flush(): void {
    if (this.count === 0) return;
    const p = new PbfWriter();
    p.writeMessage(
      1,
      (strings: string[], w: PbfWriter) => {
        for (const s of strings) w.writeBytesField(1, Buffer.from(s, 'utf8'));
      },
      this.table.strings,
    );
    p.writeMessage(2, (_: unknown, w: PbfWriter) => this.writeGroup(w), null);
    p.writeVarintField(17, GRANULARITY);
    this.writeBlob('OSMData', p.finish());
    this.table = new StringTable();
    this.count = 0;
    this.nodeIds = [];
    this.nodeLat = [];
    this.nodeLon = [];
    this.nodeKv = [];
    this.messages = [];
  }

  private writeGroup(w: PbfWriter): void {
    if (this.kind === 'node') {
      w.writeMessage(
        2,
        (_: unknown, d: PbfWriter) => {
          d.writePackedSVarint(1, deltas(this.nodeIds));
          d.writePackedSVarint(8, deltas(this.nodeLat));
          d.writePackedSVarint(9, deltas(this.nodeLon));
          d.writePackedVarint(10, this.nodeKv);
        },
        null,
      );
      return;
    }
    const field = this.kind === 'way' ? 3 : 4;
    for (const m of this.messages) w.writeBytesField(field, m);
  }

  private writeBlob(type: string, raw: Uint8Array): void {
    const blob = new PbfWriter();
    blob.writeVarintField(2, raw.length);
    blob.writeBytesField(3, deflateSync(raw));
    const blobBytes = blob.finish();
    const head = new PbfWriter();
    head.writeStringField(1, type);
    head.writeVarintField(3, blobBytes.length);
    const headBytes = head.finish();
    const len = Buffer.alloc(4);
    len.writeUInt32BE(headBytes.length, 0);
    writeAll(this.fd, len);
    writeAll(this.fd, headBytes);
    writeAll(this.fd, blobBytes);
  }
}

function deltas(values: number[]): number[] {
  const out = new Array<number>(values.length);
  let prev = 0;
  for (let i = 0; i < values.length; i++) {
    out[i] = values[i] - prev;
    prev = values[i];
  }
  return out;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
}

function encodeHeader(h: OsmHeader): Uint8Array {
  const p = new PbfWriter();
  if (h.bounds) {
    const [minLat, minLon, maxLat, maxLon] = h.bounds;
    p.writeMessage(
      1,
      (_: unknown, b: PbfWriter) => {
        b.writeSVarintField(1, Math.round(minLon * 1e9));
        b.writeSVarintField(2, Math.round(maxLon * 1e9));
        b.writeSVarintField(3, Math.round(maxLat * 1e9));
        b.writeSVarintField(4, Math.round(minLat * 1e9));
      },
      null,
    );
  }
  p.writeStringField(4, 'OsmSchema-V0.6');
  p.writeStringField(4, 'DenseNodes');
  p.writeStringField(5, 'Sort.Type_then_ID');
  if (h.writingProgram) p.writeStringField(16, h.writingProgram);
  if (h.timestampS !== null) p.writeVarintField(32, h.timestampS);
  return p.finish();
}
