/**
 * The graph file of a region bundle, `graph.bin`: the Graph's typed arrays, loaded as views
 * without copying (or from a SharedArrayBuffer shared by threads).
 *
 * Layout (little-endian). Header, 64 bytes:
 *   0  u32 magic 0x42475753 ("SWGB")
 *   4  u32 format version (GRAPH_FORMAT_VERSION)
 *   8  u32 nodeCount (n)
 *  12  u32 edgeCount (m)
 *  16  u32 geometry point count (p)
 *  20  u32 restriction count (r)
 *  24  u32 byte length of the names table (UTF-8 JSON array of strings)
 *  28  36 bytes reserved (zero)
 * Then each array of GRAPH_FIELDS in order, each starting at an 8-byte aligned offset, then the
 * names JSON. One line per field in GRAPH_FIELDS gives its element type and count.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import type { Graph } from './graph.js';

/** First four bytes of graph.bin ("SWGB" little-endian). */
export const GRAPH_MAGIC = 0x42475753;
/** Bumped whenever the layout changes; a bundle of another version is refused. */
export const GRAPH_FORMAT_VERSION = 1;
const HEADER_BYTES = 64;

type ArrayCtor =
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Uint8ArrayConstructor
  | Uint16ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor;
type Counts = { n: number; m: number; p: number; r: number };

/** graph.bin arrays in file order: [field, element type, element count]. */
export const GRAPH_FIELDS: ReadonlyArray<readonly [keyof Graph, ArrayCtor, (c: Counts) => number]> = [
  ['nodeLatE7', Int32Array, (c) => c.n], //        i32 × n   latitude, degrees × 1e7
  ['nodeLonE7', Int32Array, (c) => c.n], //        i32 × n   longitude, degrees × 1e7
  ['nodeOsmId', Float64Array, (c) => c.n], //      f64 × n   OSM node id
  ['firstOut', Uint32Array, (c) => c.n + 1], //    u32 × n+1 CSR offsets of outgoing edges
  ['firstIn', Uint32Array, (c) => c.n + 1], //     u32 × n+1 CSR offsets into inEdges
  ['inEdges', Uint32Array, (c) => c.m], //         u32 × m   incoming edge ids grouped by target
  ['edgeSource', Uint32Array, (c) => c.m], //      u32 × m   source node
  ['edgeTarget', Uint32Array, (c) => c.m], //      u32 × m   target node
  ['edgeTwin', Int32Array, (c) => c.m], //         i32 × m   opposite edge or -1
  ['edgeLengthM', Float32Array, (c) => c.m], //    f32 × m   length, metres
  ['edgeSpeedKph', Float32Array, (c) => c.m], //   f32 × m   speed limit, km/h
  ['edgeNameId', Uint32Array, (c) => c.m], //      u32 × m   index into names
  ['edgeRefId', Uint32Array, (c) => c.m], //       u32 × m   index into names
  ['edgeWayId', Float64Array, (c) => c.m], //      f64 × m   OSM way id
  ['edgeBearingOut', Float32Array, (c) => c.m], // f32 × m   bearing leaving source, degrees
  ['edgeBearingIn', Float32Array, (c) => c.m], //  f32 × m   bearing arriving at target, degrees
  ['edgeGeomStart', Uint32Array, (c) => c.m + 1], // u32 × m+1 offsets into geometry
  ['geomLatE7', Int32Array, (c) => c.p], //        i32 × p   geometry latitudes, degrees × 1e7
  ['geomLonE7', Int32Array, (c) => c.p], //        i32 × p   geometry longitudes, degrees × 1e7
  ['restrictionFrom', Uint32Array, (c) => c.r], // u32 × r   inbound edge
  ['restrictionVia', Uint32Array, (c) => c.r], //  u32 × r   via node
  ['restrictionTo', Uint32Array, (c) => c.r], //   u32 × r   outbound edge
  ['edgeFlags', Uint16Array, (c) => c.m], //       u16 × m   EdgeFlag bits
  ['nodeFlags', Uint8Array, (c) => c.n], //        u8 × n    NodeFlag bits
  ['edgeSpeedTagged', Uint8Array, (c) => c.m], //  u8 × m    1 = speed from a maxspeed tag
  ['edgeRoadClass', Uint8Array, (c) => c.m], //    u8 × m    RoadClassId
  ['edgeLanes', Uint8Array, (c) => c.m], //        u8 × m    lanes in travel direction (0 unknown)
  ['restrictionKind', Uint8Array, (c) => c.r], //  u8 × r    RestrictionKind
];

const align8 = (x: number): number => (x + 7) & ~7;

function assertLittleEndian(): void {
  if (endianness() !== 'LE') throw new Error('region bundles are little-endian; this machine is big-endian');
}

/** The header of graph.bin and the byte size of the whole file. */
function graphLayout(g: Graph): { header: Buffer; names: Buffer; size: number } {
  assertLittleEndian();
  const c: Counts = {
    n: g.nodeCount,
    m: g.edgeCount,
    p: g.edgeGeomStart[g.edgeCount] ?? 0,
    r: g.restrictionFrom.length,
  };
  const names = Buffer.from(JSON.stringify(g.names), 'utf8');
  let size = HEADER_BYTES;
  for (const [field, ctor, count] of GRAPH_FIELDS) {
    const arr = g[field] as unknown as ArrayBufferView;
    if (arr.byteLength !== ctor.BYTES_PER_ELEMENT * count(c))
      throw new Error(
        `graph field ${String(field)} has ${arr.byteLength} bytes, expected ${ctor.BYTES_PER_ELEMENT * count(c)}`,
      );
    size = align8(size) + arr.byteLength;
  }
  size = align8(size) + names.length;
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(GRAPH_MAGIC, 0);
  header.writeUInt32LE(GRAPH_FORMAT_VERSION, 4);
  header.writeUInt32LE(c.n, 8);
  header.writeUInt32LE(c.m, 12);
  header.writeUInt32LE(c.p, 16);
  header.writeUInt32LE(c.r, 20);
  header.writeUInt32LE(names.length, 24);
  return { header, names, size };
}

/** The pieces of graph.bin in file order (header, each array with its padding, names). */
function* graphPieces(g: Graph): Generator<Uint8Array> {
  const { header, names } = graphLayout(g);
  yield header;
  let off = HEADER_BYTES;
  const pad = (): Uint8Array => {
    const n = align8(off) - off;
    off += n;
    return new Uint8Array(n);
  };
  for (const [field] of GRAPH_FIELDS) {
    yield pad();
    const arr = g[field] as unknown as ArrayBufferView;
    yield new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
    off += arr.byteLength;
  }
  yield pad();
  yield names;
}

/** Serialises a graph to one buffer (see the layout above). */
export function encodeGraph(g: Graph): Buffer {
  const buf = Buffer.alloc(graphLayout(g).size);
  let off = 0;
  for (const piece of graphPieces(g)) {
    buf.set(piece, off);
    off += piece.length;
  }
  return buf;
}

/** Writes a graph to `path` array by array (never one buffer of the whole file), fsynced. */
export function writeGraphFile(path: string, g: Graph): void {
  const fd = openSync(path, 'w');
  try {
    for (const piece of graphPieces(g))
      for (let off = 0; off < piece.length; ) off += writeSync(fd, piece, off, piece.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Reads a graph from a buffer written by `encodeGraph`; arrays are views on the buffer (no copy). */
export function decodeGraph(input: Uint8Array): Graph {
  assertLittleEndian();
  // views need 8-byte alignment of the underlying buffer
  const buf = input.byteOffset % 8 === 0 ? input : new Uint8Array(input);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.byteLength < HEADER_BYTES || dv.getUint32(0, true) !== GRAPH_MAGIC)
    throw new Error('not a streetwise graph file (bad magic): re-run `streetwise import`');
  const version = dv.getUint32(4, true);
  if (version !== GRAPH_FORMAT_VERSION)
    throw new Error(
      `graph file format version ${version}, this build reads ${GRAPH_FORMAT_VERSION}: re-run \`streetwise import\``,
    );
  const c: Counts = {
    n: dv.getUint32(8, true),
    m: dv.getUint32(12, true),
    p: dv.getUint32(16, true),
    r: dv.getUint32(20, true),
  };
  const namesLen = dv.getUint32(24, true);
  const out: Record<string, unknown> = { nodeCount: c.n, edgeCount: c.m };
  let off = HEADER_BYTES;
  for (const [field, ctor, count] of GRAPH_FIELDS) {
    off = align8(off);
    const len = count(c);
    if (off + len * ctor.BYTES_PER_ELEMENT > buf.byteLength)
      throw new Error('graph file truncated: re-run `streetwise import`');
    out[field] = new ctor(buf.buffer as ArrayBuffer, buf.byteOffset + off, len);
    off += len * ctor.BYTES_PER_ELEMENT;
  }
  off = align8(off);
  if (off + namesLen > buf.byteLength) throw new Error('graph file truncated: re-run `streetwise import`');
  out.names = JSON.parse(Buffer.from(buf.buffer, buf.byteOffset + off, namesLen).toString('utf8')) as string[];
  return out as unknown as Graph;
}
