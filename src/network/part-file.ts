/**
 * A bundle part file: records written and read a chunk at a time, so no part of a region is ever
 * one string or one buffer however large the region is.
 *
 * Layout (little-endian). Header, 16 bytes: `u32 magic 0x50575753 "SWWP"`, `u32 kind` (PartKind),
 * `u32 version` (of that kind's record layout), `u32 record count` (written when the file is
 * closed). Then chunks: `u32 byte length`, `u32 records in the chunk`, `u32 string table byte
 * length`, the string table (UTF-8 JSON array of the chunk's distinct strings), then the records,
 * encoded by the part's codec with `RecordWriter` (strings as indexes into the chunk's table).
 */
import { closeSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';

/** First four bytes of a part file ("SWWP" little-endian). */
export const PART_MAGIC = 0x50575753;
const HEADER_BYTES = 16;
/** Records are flushed to the file once a chunk holds this many bytes (records and strings). */
export const PART_CHUNK_BYTES = 1 << 20;

/** Kinds of part files. */
export const PartKind = { intersections: 1, blocks: 2, lots: 3, water: 4 } as const;
export type PartKind = (typeof PartKind)[keyof typeof PartKind];

/** Encodes the fields of one record into a growing buffer; strings go to the chunk's table. */
export class RecordWriter {
  private buf = Buffer.alloc(1 << 16);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  /** bytes of records written to the current chunk */
  length = 0;
  /** characters of the current chunk's string table */
  stringChars = 0;
  private strings: string[] = [];
  private stringIndex = new Map<string, number>();

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  u8(v: number): void {
    this.room(1);
    this.view.setUint8(this.length, v);
    this.length += 1;
  }

  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }

  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }

  /** A string, as its index in the chunk's string table. */
  str(s: string): void {
    let i = this.stringIndex.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.stringIndex.set(s, i);
      this.stringChars += s.length;
    }
    this.u32(i);
  }

  /** Takes the chunk's string table and record bytes and starts an empty chunk. */
  take(): { strings: Buffer; records: Buffer } {
    const out = {
      strings: Buffer.from(JSON.stringify(this.strings), 'utf8'),
      records: this.buf.subarray(0, this.length),
    };
    this.buf = Buffer.alloc(this.buf.length);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.length = 0;
    this.stringChars = 0;
    this.strings = [];
    this.stringIndex = new Map();
    return out;
  }
}

/** Decodes the fields of the records of one chunk, in the order they were written. */
export class RecordReader {
  private pos = 0;
  private readonly view: DataView;

  constructor(
    bytes: Uint8Array,
    private readonly strings: string[],
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** True while records remain. */
  get more(): boolean {
    return this.pos < this.view.byteLength;
  }

  u8(): number {
    return this.view.getUint8(this.pos++);
  }

  u32(): number {
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  f64(): number {
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  str(): string {
    const i = this.u32();
    const s = this.strings[i];
    if (s === undefined) throw new Error(`string ${i} missing from the chunk's table`);
    return s;
  }
}

/** Writes records of one kind to a part file, a chunk at a time. */
export class PartFileWriter<T> {
  private readonly fd: number;
  private readonly rec = new RecordWriter();
  private inChunk = 0;
  private pos = HEADER_BYTES;
  /** records written */
  count = 0;

  constructor(
    path: string,
    private readonly kind: PartKind,
    private readonly version: number,
    private readonly encode: (r: RecordWriter, item: T) => void,
    private readonly chunkBytes = PART_CHUNK_BYTES,
  ) {
    this.fd = openSync(path, 'w');
    this.writeHeader();
  }

  /** Appends a record. */
  add(item: T): void {
    this.encode(this.rec, item);
    this.inChunk++;
    this.count++;
    if (this.rec.length + this.rec.stringChars >= this.chunkBytes) this.flush();
  }

  /** Writes the last chunk and the record count, syncs and closes the file. */
  close(): void {
    try {
      this.flush();
      this.writeHeader();
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
    }
  }

  /** Closes the file without finishing it (the bundle being written is abandoned). */
  abandon(): void {
    closeSync(this.fd);
  }

  private writeHeader(): void {
    const h = Buffer.alloc(HEADER_BYTES);
    h.writeUInt32LE(PART_MAGIC, 0);
    h.writeUInt32LE(this.kind, 4);
    h.writeUInt32LE(this.version, 8);
    h.writeUInt32LE(this.count, 12);
    writeAt(this.fd, h, 0);
  }

  private flush(): void {
    if (this.inChunk === 0) return;
    const { strings, records } = this.rec.take();
    const head = Buffer.alloc(12);
    head.writeUInt32LE(8 + strings.length + records.length, 0);
    head.writeUInt32LE(this.inChunk, 4);
    head.writeUInt32LE(strings.length, 8);
    for (const b of [head, strings, records]) {
      writeAt(this.fd, b, this.pos);
      this.pos += b.length;
    }
    this.inChunk = 0;
  }
}

function writeAt(fd: number, bytes: Uint8Array, position: number): void {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off, position + off);
}

function readExactly(fd: number, length: number, position: number, path: string): Buffer {
  const buf = Buffer.alloc(length);
  for (let off = 0; off < length; ) {
    const n = readSync(fd, buf, off, length - off, position + off);
    if (n === 0) throw new Error(`${path} is truncated: re-run \`streetwise import\``);
    off += n;
  }
  return buf;
}

/**
 * Checks a part file's header (magic, kind, version) without reading its records; returns the
 * record count. Refuses another magic, kind or version with a message naming the fix.
 */
export function checkPartFile(path: string, kind: PartKind, version: number): number {
  const fd = openSync(path, 'r');
  try {
    return checkHeader(readExactly(fd, HEADER_BYTES, 0, path), path, kind, version);
  } finally {
    closeSync(fd);
  }
}

function checkHeader(h: Buffer, path: string, kind: PartKind, version: number): number {
  if (h.readUInt32LE(0) !== PART_MAGIC || h.readUInt32LE(4) !== kind)
    throw new Error(`${path} is not a streetwise bundle part of this kind: re-run \`streetwise import\``);
  const v = h.readUInt32LE(8);
  if (v !== version)
    throw new Error(`${path} has format version ${v}, this build reads ${version}: re-run \`streetwise import\``);
  return h.readUInt32LE(12);
}

/**
 * Reads every record of a part file, a chunk at a time, into an array. Refuses another magic,
 * kind or version with a message naming the fix.
 */
export function readPartFile<T>(path: string, kind: PartKind, version: number, decode: (r: RecordReader) => T): T[] {
  const fd = openSync(path, 'r');
  try {
    const count = checkHeader(readExactly(fd, HEADER_BYTES, 0, path), path, kind, version);
    const out: T[] = new Array(count);
    let n = 0;
    let pos = HEADER_BYTES;
    while (n < count) {
      const head = readExactly(fd, 12, pos, path);
      const chunk = readExactly(fd, head.readUInt32LE(0) - 8, pos + 12, path);
      const stringBytes = head.readUInt32LE(8);
      const strings = JSON.parse(chunk.toString('utf8', 0, stringBytes)) as string[];
      const r = new RecordReader(chunk.subarray(stringBytes), strings);
      for (let k = head.readUInt32LE(4); k > 0; k--) out[n++] = decode(r);
      if (r.more) throw new Error(`${path}: a chunk holds more bytes than its records: re-run \`streetwise import\``);
      pos += 4 + head.readUInt32LE(0);
    }
    return out;
  } finally {
    closeSync(fd);
  }
}
