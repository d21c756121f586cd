/**
 * The region bundle on disk: a directory with
 *   graph.bin           the Graph's typed arrays (layout below), loaded as views without copying
 *   region.json         { formatVersion, meta }
 *   intersections.json  Intersection[] (with movements)
 *   blocks.json         Block[]
 *   lots.json           OsmLot[]
 *   water.json          RegionWater (optional: bundles written before it load with no water)
 *
 * graph.bin layout (little-endian). Header, 64 bytes:
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
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  openSync,
  fsyncSync,
  closeSync,
  readSync,
  statSync,
} from 'node:fs';
import { endianness } from 'node:os';
import { join, dirname, basename } from 'node:path';
import type { Graph } from './graph.js';
import type { Block, Intersection, OsmLot, Region, RegionMeta } from './region.js';
import type { RegionWater } from './water.js';

/** First four bytes of graph.bin ("SWGB" little-endian). */
export const GRAPH_MAGIC = 0x42475753;
/** Bumped whenever the layout changes; a bundle of another version is refused. */
export const GRAPH_FORMAT_VERSION = 1;
/** Version of the JSON files' shapes. */
export const REGION_FORMAT_VERSION = 1;
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

/** Serialises a graph to one buffer (see the layout above). */
export function encodeGraph(g: Graph): Buffer {
  assertLittleEndian();
  const c: Counts = {
    n: g.nodeCount,
    m: g.edgeCount,
    p: g.edgeGeomStart[g.edgeCount] ?? 0,
    r: g.restrictionFrom.length,
  };
  const names = Buffer.from(JSON.stringify(g.names), 'utf8');
  let size = HEADER_BYTES;
  for (const [, ctor, count] of GRAPH_FIELDS) size = align8(size) + ctor.BYTES_PER_ELEMENT * count(c);
  size = align8(size) + names.length;
  const buf = Buffer.alloc(size);
  buf.writeUInt32LE(GRAPH_MAGIC, 0);
  buf.writeUInt32LE(GRAPH_FORMAT_VERSION, 4);
  buf.writeUInt32LE(c.n, 8);
  buf.writeUInt32LE(c.m, 12);
  buf.writeUInt32LE(c.p, 16);
  buf.writeUInt32LE(c.r, 20);
  buf.writeUInt32LE(names.length, 24);
  let off = HEADER_BYTES;
  for (const [field, ctor, count] of GRAPH_FIELDS) {
    off = align8(off);
    const arr = g[field] as ArrayLike<number> & { buffer: ArrayBufferLike; byteOffset: number; byteLength: number };
    if (arr.byteLength !== ctor.BYTES_PER_ELEMENT * count(c))
      throw new Error(
        `graph field ${String(field)} has ${arr.byteLength} bytes, expected ${ctor.BYTES_PER_ELEMENT * count(c)}`,
      );
    buf.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), off);
    off += arr.byteLength;
  }
  off = align8(off);
  names.copy(buf, off);
  return buf;
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

function writeFileDurable(path: string, data: string | Uint8Array): void {
  writeFileSync(path, data);
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Name of a bundle being written: `.<region>.tmp-<pid>-<unix ms>` beside the bundle. */
const TEMP_BUNDLE = /^\.(.+)\.tmp-(\d+)-(\d+)$/;

/** True when a process with this id runs on this machine (EPERM: it runs as another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes temporary bundle directories in `regionsDir` left by imports that died while writing
 * (killed, power loss): those whose writing process no longer runs. A write in progress in a live
 * process is left alone. Called by `writeRegion` and `loadRegion`, so the next import or start
 * cleans up. Returns the names removed.
 */
export function removeStaleTemporaryBundles(regionsDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(regionsDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_BUNDLE.exec(name);
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid !== process.pid && processAlive(pid)) continue;
    // this process writes one bundle at a time and removes its own temporary on failure:
    // one of ours still present is a leftover too (a write interrupted by an uncaught signal)
    if (pid === process.pid && activeTemporaries.has(join(regionsDir, name))) continue;
    rmSync(join(regionsDir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Temporary directories this process is writing right now. */
const activeTemporaries = new Set<string>();

/**
 * Writes a region bundle to `dir` atomically: everything goes to a sibling temporary directory,
 * then the previous bundle (if any) is moved aside to `<dir>.prev`, the new one renamed into place
 * and the old one deleted. An interruption before the final rename leaves the previous bundle;
 * `loadRegion` also falls back to `<dir>.prev` if the process died between the two renames.
 * A temporary directory left by a writer that died is removed by the next write or load
 * (`removeStaleTemporaryBundles`).
 */
export function writeRegion(dir: string, region: Region): void {
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(dir)}.tmp-${process.pid}-${Date.now()}`);
  const prev = `${dir}.prev`;
  removeStaleTemporaryBundles(parent);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  activeTemporaries.add(tmp);
  try {
    writeFileDurable(join(tmp, 'graph.bin'), encodeGraph(region.graph));
    writeFileDurable(join(tmp, 'intersections.json'), JSON.stringify(region.intersections));
    writeFileDurable(join(tmp, 'blocks.json'), JSON.stringify(region.blocks));
    writeFileDurable(join(tmp, 'lots.json'), JSON.stringify(region.lots));
    writeFileDurable(join(tmp, 'water.json'), JSON.stringify(region.water ?? { areas: [], lines: [] }));
    // region.json last: its presence marks a complete bundle
    writeFileDurable(
      join(tmp, 'region.json'),
      JSON.stringify({ formatVersion: REGION_FORMAT_VERSION, meta: region.meta }, null, 2),
    );
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    activeTemporaries.delete(tmp);
  }
  rmSync(prev, { recursive: true, force: true });
  if (existsSync(dir)) renameSync(dir, prev);
  renameSync(tmp, dir);
  rmSync(prev, { recursive: true, force: true });
}

/** true when `dir` (or its `.prev` fallback) holds a complete region bundle. */
export function regionExists(dir: string): boolean {
  return existsSync(join(dir, 'region.json')) || existsSync(join(`${dir}.prev`, 'region.json'));
}

/** The directory holding the bundle (a replaced bundle's `.prev` while an import swaps it in). */
function bundleDir(dir: string): string {
  return !existsSync(join(dir, 'region.json')) && existsSync(join(`${dir}.prev`, 'region.json')) ? `${dir}.prev` : dir;
}

/**
 * The graph file of a bundle read into a SharedArrayBuffer: threads given these bytes
 * (`loadRegion(dir, { graphBytes })`) share one copy of the graph's typed arrays (read-only).
 */
export function readGraphShared(dir: string): Uint8Array {
  const path = join(bundleDir(dir), 'graph.bin');
  const size = statSync(path).size;
  const bytes = new Uint8Array(new SharedArrayBuffer(size));
  const fd = openSync(path, 'r');
  try {
    let off = 0;
    while (off < size) {
      const n = readSync(fd, bytes, off, size - off, off);
      if (n === 0) throw new Error(`graph file ${path} ended early`);
      off += n;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/** Loads a region bundle written by `writeRegion`. The locate index is built lazily (`locatorOf`). */
export function loadRegion(dir: string, opts: { graphBytes?: Uint8Array } = {}): Region {
  removeStaleTemporaryBundles(dirname(dir));
  const base = bundleDir(dir);
  const metaPath = join(base, 'region.json');
  if (!existsSync(metaPath))
    throw new Error(`no region bundle in ${dir}: run \`streetwise import <file.osm.pbf>\` first`);
  const head = JSON.parse(readFileSync(metaPath, 'utf8')) as { formatVersion: number; meta: RegionMeta };
  if (head.formatVersion !== REGION_FORMAT_VERSION)
    throw new Error(
      `region format version ${head.formatVersion}, this build reads ${REGION_FORMAT_VERSION}: re-run \`streetwise import\``,
    );
  const graph = decodeGraph(opts.graphBytes ?? readFileSync(join(base, 'graph.bin')));
  const intersections = JSON.parse(readFileSync(join(base, 'intersections.json'), 'utf8')) as Intersection[];
  const blocks = JSON.parse(readFileSync(join(base, 'blocks.json'), 'utf8')) as Block[];
  const lots = JSON.parse(readFileSync(join(base, 'lots.json'), 'utf8')) as OsmLot[];
  const waterPath = join(base, 'water.json');
  const water = existsSync(waterPath)
    ? (JSON.parse(readFileSync(waterPath, 'utf8')) as RegionWater)
    : { areas: [], lines: [] };
  return { meta: head.meta, graph, intersections, blocks, lots, water };
}
