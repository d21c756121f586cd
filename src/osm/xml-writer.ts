/**
 * Streaming writer of OSM XML 0.6: each entity is rendered to text and appended to a buffer that
 * is written to the file every `FLUSH_CHARS` characters, so memory holds one chunk whatever the
 * file size. Same order rules as the PBF writer (nodes, ways, relations; ids ascending).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { OsmHeader, OsmMember, Tags } from './types.js';
import type { OsmSink } from './osm-sink.js';

const FLUSH_CHARS = 1 << 20;
const KIND_ORDER = { node: 0, way: 1, relation: 2 } as const;

/** Escapes the five XML special characters for use in attribute values. */
export function escapeXmlAttr(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** An OSM XML file being written; `close()` writes the closing tag and closes the file. */
export class XmlFileWriter implements OsmSink {
  private readonly fd: number;
  private parts: string[] = [];
  private chars = 0;
  private kind: keyof typeof KIND_ORDER = 'node';
  private lastId = -Infinity;
  private closed = false;

  /** Creates (or truncates) `path` and writes the document head and `<bounds>`. */
  constructor(path: string, header: OsmHeader) {
    this.fd = openSync(path, 'w');
    const gen = escapeXmlAttr(header.writingProgram || 'streetwise');
    this.push(`<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="${gen}">\n`);
    if (header.bounds) {
      const [a, b, c, d] = header.bounds.map((v) => v.toFixed(7));
      this.push(`  <bounds minlat="${a}" minlon="${b}" maxlat="${c}" maxlon="${d}"/>\n`);
    }
  }

  /** Adds a node (degrees). */
  node(id: number, lat: number, lon: number, tags: Tags): void {
    this.advance('node', id);
    const head = `  <node id="${id}" version="1" lat="${lat.toFixed(7)}" lon="${lon.toFixed(7)}"`;
    const t = tagLines(tags);
    this.push(t === '' ? `${head}/>\n` : `${head}>\n${t}  </node>\n`);
  }

  /** Adds a way over node ids. */
  way(id: number, refs: ArrayLike<number>, tags: Tags): void {
    this.advance('way', id);
    let s = `  <way id="${id}" version="1">\n`;
    for (let i = 0; i < refs.length; i++) s += `    <nd ref="${refs[i]}"/>\n`;
    this.push(`${s}${tagLines(tags)}  </way>\n`);
  }

  /** Adds a relation. */
  relation(id: number, members: readonly OsmMember[], tags: Tags): void {
    this.advance('relation', id);
    let s = `  <relation id="${id}" version="1">\n`;
    for (const m of members) s += `    <member type="${m.type}" ref="${m.ref}" role="${escapeXmlAttr(m.role)}"/>\n`;
    this.push(`${s}${tagLines(tags)}  </relation>\n`);
  }

  /** Writes the end of the document and closes the file. */
  close(): void {
    if (this.closed) return;
    try {
      this.push('</osm>\n');
      this.flush();
    } finally {
      this.closed = true;
      closeSync(this.fd);
    }
  }

  private advance(kind: keyof typeof KIND_ORDER, id: number): void {
    if (this.closed) throw new Error('XML writer: already closed');
    if (KIND_ORDER[kind] < KIND_ORDER[this.kind])
      throw new Error(`XML writer: a ${kind} after a ${this.kind} (nodes, then ways, then relations)`);
    if (kind !== this.kind) {
      this.kind = kind;
      this.lastId = -Infinity;
    }
    if (id <= this.lastId) throw new Error(`XML writer: ${kind} ${id} after ${kind} ${this.lastId} (ids ascending)`);
    this.lastId = id;
  }

  private push(s: string): void {
    this.parts.push(s);
    this.chars += s.length;
    if (this.chars >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    const bytes = Buffer.from(this.parts.join(''), 'utf8');
    for (let off = 0; off < bytes.length; ) off += writeSync(this.fd, bytes, off, bytes.length - off);
    this.parts = [];
    this.chars = 0;
  }
}

function tagLines(tags: Tags): string {
  let s = '';
  for (const k of Object.keys(tags).sort()) s += `    <tag k="${escapeXmlAttr(k)}" v="${escapeXmlAttr(tags[k])}"/>\n`;
  return s;
}
