/**
 * Streaming reader of OSM PBF files (https://wiki.openstreetmap.org/wiki/PBF_Format):
 * blob by blob from a file handle, zlib via node:zlib, protobuf fields decoded by hand with `pbf`.
 * Memory stays at one decompressed block (≤ 32 MiB) plus what the handler keeps.
 */
import { openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { PbfReader } from 'pbf';
import { NO_TAGS } from './types.js';
import type { OsmHandler, OsmHeader, OsmMember, ReadProgress, Tags } from './types.js';

const MEMBER_TYPES: OsmMember['type'][] = ['node', 'way', 'relation'];
const MAX_BLOB_HEADER_BYTES = 64 * 1024;
const MAX_BLOB_BYTES = 32 * 1024 * 1024;

/** Reads `path` (an .osm.pbf file) and feeds every entity to `handler`. Throws on malformed files. */
export function readPbfFile(path: string, handler: OsmHandler, onProgress?: ReadProgress): void {
  const fd = openSync(path, 'r');
  try {
    const total = fstatSync(fd).size;
    let pos = 0;
    const lenBuf = Buffer.alloc(4);
    while (pos < total) {
      if (readSync(fd, lenBuf, 0, 4, pos) !== 4) throw new Error(`${path}: truncated blob length at byte ${pos}`);
      const headerLen = lenBuf.readUInt32BE(0);
      if (headerLen > MAX_BLOB_HEADER_BYTES)
        throw new Error(`${path}: blob header too large (${headerLen} bytes) at byte ${pos}`);
      pos += 4;
      const headerBuf = Buffer.alloc(headerLen);
      if (readSync(fd, headerBuf, 0, headerLen, pos) !== headerLen) throw new Error(`${path}: truncated blob header`);
      pos += headerLen;
      const { type, dataSize } = decodeBlobHeader(headerBuf);
      if (dataSize > MAX_BLOB_BYTES) throw new Error(`${path}: blob too large (${dataSize} bytes)`);
      const blobBuf = Buffer.alloc(dataSize);
      if (readSync(fd, blobBuf, 0, dataSize, pos) !== dataSize) throw new Error(`${path}: truncated blob`);
      pos += dataSize;
      const data = decodeBlob(blobBuf);
      if (type === 'OSMHeader') handler.header?.(decodeHeaderBlock(data));
      else if (type === 'OSMData') decodePrimitiveBlock(data, handler);
      // other blob types are skipped, as the format requires
      onProgress?.(pos, total);
    }
  } finally {
    closeSync(fd);
  }
}

function decodeBlobHeader(buf: Uint8Array): { type: string; dataSize: number } {
  const p = new PbfReader(buf);
  let type = '';
  let dataSize = 0;
  let f: number;
  while ((f = p.nextField())) {
    if (f === 1) type = p.readString();
    else if (f === 3) dataSize = p.readVarint();
  }
  return { type, dataSize };
}

function decodeBlob(buf: Uint8Array): Uint8Array {
  const p = new PbfReader(buf);
  let f: number;
  while ((f = p.nextField())) {
    if (f === 1) return p.readBytes();
    if (f === 3) return inflateSync(p.readBytes());
    if (f === 4 || f === 5 || f === 6 || f === 7)
      throw new Error(`unsupported PBF blob compression (field ${f}); only raw and zlib are supported`);
  }
  throw new Error('PBF blob without data');
}

function decodeHeaderBlock(buf: Uint8Array): OsmHeader {
  const p = new PbfReader(buf);
  const h: OsmHeader = { bounds: null, timestampS: null, writingProgram: '' };
  let f: number;
  while ((f = p.nextField())) {
    if (f === 1) {
      const end = p.readVarint() + p.pos;
      let left = 0,
        right = 0,
        top = 0,
        bottom = 0;
      let g: number;
      while ((g = p.nextField(end))) {
        if (g === 1) left = p.readSVarint();
        else if (g === 2) right = p.readSVarint();
        else if (g === 3) top = p.readSVarint();
        else if (g === 4) bottom = p.readSVarint();
      }
      h.bounds = [bottom / 1e9, left / 1e9, top / 1e9, right / 1e9];
    } else if (f === 4) {
      const feature = p.readString();
      if (feature !== 'OsmSchema-V0.6' && feature !== 'DenseNodes' && feature !== 'HistoricalInformation') {
        throw new Error(`unsupported PBF required feature: ${feature}`);
      }
    } else if (f === 16) h.writingProgram = p.readString();
    else if (f === 32) h.timestampS = p.readVarint();
  }
  return h;
}

interface BlockContext {
  strings: string[];
  granularity: number;
  latOffset: number;
  lonOffset: number;
}

function decodePrimitiveBlock(buf: Uint8Array, handler: OsmHandler): void {
  const p = new PbfReader(buf);
  const ctx: BlockContext = { strings: [], granularity: 100, latOffset: 0, lonOffset: 0 };
  const groups: Array<[number, number]> = [];
  let f: number;
  // First pass: string table and block parameters (groups may precede them in the byte stream).
  while ((f = p.nextField())) {
    if (f === 1) {
      const end = p.readVarint() + p.pos;
      let g: number;
      while ((g = p.nextField(end))) if (g === 1) ctx.strings.push(p.readString());
    } else if (f === 2) {
      const len = p.readVarint();
      groups.push([p.pos, p.pos + len]);
      p.pos += len;
    } else if (f === 17) ctx.granularity = p.readVarint();
    else if (f === 19) ctx.latOffset = p.readVarint(true);
    else if (f === 20) ctx.lonOffset = p.readVarint(true);
  }
  for (const [start, end] of groups) {
    p.pos = start;
    while ((f = p.nextField(end))) {
      if (f === 1) decodeNode(p, ctx, handler);
      else if (f === 2) decodeDenseNodes(p, ctx, handler);
      else if (f === 3) decodeWay(p, ctx, handler);
      else if (f === 4) decodeRelation(p, ctx, handler);
    }
  }
}

function tagsFrom(keys: number[], vals: number[], strings: string[]): Tags {
  if (keys.length === 0) return NO_TAGS;
  const tags: Tags = {};
  for (let i = 0; i < keys.length; i++) tags[strings[keys[i]]] = strings[vals[i]];
  return tags;
}

function decodeNode(p: PbfReader, ctx: BlockContext, handler: OsmHandler): void {
  const end = p.readVarint() + p.pos;
  let id = 0,
    lat = 0,
    lon = 0;
  const keys: number[] = [];
  const vals: number[] = [];
  let f: number;
  while ((f = p.nextField(end))) {
    if (f === 1) id = p.readSVarint();
    else if (f === 2) p.readPackedVarint(keys);
    else if (f === 3) p.readPackedVarint(vals);
    else if (f === 8) lat = p.readSVarint();
    else if (f === 9) lon = p.readSVarint();
  }
  handler.node({
    id,
    lat: (ctx.latOffset + ctx.granularity * lat) / 1e9,
    lon: (ctx.lonOffset + ctx.granularity * lon) / 1e9,
    tags: tagsFrom(keys, vals, ctx.strings),
  });
}

function decodeDenseNodes(p: PbfReader, ctx: BlockContext, handler: OsmHandler): void {
  const end = p.readVarint() + p.pos;
  const ids: number[] = [];
  const lats: number[] = [];
  const lons: number[] = [];
  const kv: number[] = [];
  let f: number;
  while ((f = p.nextField(end))) {
    if (f === 1) p.readPackedSVarint(ids);
    else if (f === 8) p.readPackedSVarint(lats);
    else if (f === 9) p.readPackedSVarint(lons);
    else if (f === 10) p.readPackedVarint(kv);
  }
  let id = 0,
    lat = 0,
    lon = 0,
    k = 0;
  const { strings, granularity, latOffset, lonOffset } = ctx;
  for (let i = 0; i < ids.length; i++) {
    id += ids[i];
    lat += lats[i];
    lon += lons[i];
    let tags = NO_TAGS;
    if (k < kv.length) {
      if (kv[k] !== 0) {
        tags = {};
        while (kv[k] !== 0 && k < kv.length) {
          tags[strings[kv[k]]] = strings[kv[k + 1]];
          k += 2;
        }
      }
      k++; // the 0 delimiter of this node
    }
    handler.node({ id, lat: (latOffset + granularity * lat) / 1e9, lon: (lonOffset + granularity * lon) / 1e9, tags });
  }
}

function decodeWay(p: PbfReader, ctx: BlockContext, handler: OsmHandler): void {
  const end = p.readVarint() + p.pos;
  let id = 0;
  const keys: number[] = [];
  const vals: number[] = [];
  const refs: number[] = [];
  let f: number;
  while ((f = p.nextField(end))) {
    if (f === 1) id = p.readVarint();
    else if (f === 2) p.readPackedVarint(keys);
    else if (f === 3) p.readPackedVarint(vals);
    else if (f === 8) p.readPackedSVarint(refs);
  }
  for (let i = 1; i < refs.length; i++) refs[i] += refs[i - 1];
  handler.way({ id, refs, tags: tagsFrom(keys, vals, ctx.strings) });
}

function decodeRelation(p: PbfReader, ctx: BlockContext, handler: OsmHandler): void {
  const end = p.readVarint() + p.pos;
  let id = 0;
  const keys: number[] = [];
  const vals: number[] = [];
  const roles: number[] = [];
  const memids: number[] = [];
  const types: number[] = [];
  let f: number;
  while ((f = p.nextField(end))) {
    if (f === 1) id = p.readVarint();
    else if (f === 2) p.readPackedVarint(keys);
    else if (f === 3) p.readPackedVarint(vals);
    else if (f === 8) p.readPackedVarint(roles, true);
    else if (f === 9) p.readPackedSVarint(memids);
    else if (f === 10) p.readPackedVarint(types);
  }
  const members: OsmMember[] = [];
  let ref = 0;
  for (let i = 0; i < memids.length; i++) {
    ref += memids[i];
    members.push({ type: MEMBER_TYPES[types[i]] ?? 'node', ref, role: ctx.strings[roles[i]] ?? '' });
  }
  handler.relation({ id, members, tags: tagsFrom(keys, vals, ctx.strings) });
}
