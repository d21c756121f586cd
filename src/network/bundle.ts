/**
 * The region bundle on disk: a directory with
 *   graph.bin           the Graph's typed arrays (`graph-file.ts`)
 *   intersections.bin   Intersection records with their movements (`bundle-parts.ts`)
 *   blocks.bin          Block records
 *   lots.bin            OsmLot records
 *   water.bin           water areas and lines for the basemap
 *   region.json         { formatVersion, meta } (written last: it marks a complete bundle)
 * Every file is written a piece at a time (`BundleWriter`), so a region of any size is never one
 * string or one buffer; the part files are read a chunk at a time. A bundle of another format
 * version is refused with a message naming the fix (re-import).
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  BLOCKS_PART,
  INTERSECTIONS_PART,
  decodeIntersectionNames,
  LOTS_PART,
  type PartCodec,
  WATER_PART,
  type WaterRecord,
} from './bundle-parts.js';
import type { Graph } from './graph.js';
import { decodeGraph, writeGraphFile } from './graph-file.js';
import { PART_CHUNK_BYTES, PartFileWriter, checkPartFile, readPartFile } from './part-file.js';
import type { Region, RegionMeta } from './region.js';
import type { RegionWater } from './water.js';

export { GRAPH_FIELDS, GRAPH_FORMAT_VERSION, GRAPH_MAGIC, decodeGraph, encodeGraph } from './graph-file.js';

/** Version of the bundle's layout (which files, in which formats); another version is refused. */
export const REGION_FORMAT_VERSION = 2;

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

/** true when `dir` (or its `.prev` fallback) holds a complete region bundle. */
export function regionExists(dir: string): boolean {
  return existsSync(join(dir, 'region.json')) || existsSync(join(`${dir}.prev`, 'region.json'));
}

/** True when the bundle in `dir` has the layout this build reads (false for an older import). */
export function regionIsCurrent(dir: string): boolean {
  const metaPath = join(bundleDir(dir), 'region.json');
  if (!existsSync(metaPath)) return false;
  return (
    (JSON.parse(readFileSync(metaPath, 'utf8')) as { formatVersion?: number }).formatVersion === REGION_FORMAT_VERSION
  );
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

/** Counts of what a `BundleWriter` wrote. */
export interface BundleCounts {
  intersections: number;
  signalizedIntersections: number;
  blocks: number;
  lots: number;
}

/**
 * Writes a region bundle to `dir` atomically, a part at a time: everything goes to a sibling
 * temporary directory; `commit` then moves the previous bundle (if any) aside to `<dir>.prev`,
 * renames the new one into place and deletes the old one. An interruption before the final rename
 * leaves the previous bundle; `loadRegion` also falls back to `<dir>.prev` if the process died
 * between the two renames. A temporary directory left by a writer that died is removed by the next
 * write or load (`removeStaleTemporaryBundles`). Call `abort` when a part fails.
 * @example
 * const w = new BundleWriter(dir);
 * try { w.graph(g); w.intersections(gen()); w.blocks([]); w.lots([]); w.water(null); w.commit(meta); }
 * catch (err) { w.abort(); throw err; }
 */
export class BundleWriter {
  private readonly tmp: string;
  readonly counts: BundleCounts = { intersections: 0, signalizedIntersections: 0, blocks: 0, lots: 0 };

  /** `chunkBytes`: size of the chunks of the part files (default PART_CHUNK_BYTES). */
  constructor(
    private readonly dir: string,
    private readonly chunkBytes = PART_CHUNK_BYTES,
  ) {
    const parent = dirname(dir);
    mkdirSync(parent, { recursive: true });
    this.tmp = join(parent, `.${basename(dir)}.tmp-${process.pid}-${Date.now()}`);
    removeStaleTemporaryBundles(parent);
    rmSync(this.tmp, { recursive: true, force: true });
    mkdirSync(this.tmp);
    activeTemporaries.add(this.tmp);
  }

  /** Writes graph.bin. */
  graph(g: Graph): void {
    writeGraphFile(join(this.tmp, 'graph.bin'), g);
  }

  /** Writes intersections.bin from intersections as they come. */
  intersections(items: Iterable<Region['intersections'][number]>): void {
    this.counts.intersections = this.part(INTERSECTIONS_PART, items, (ix) => {
      if (ix.signalized) this.counts.signalizedIntersections++;
    });
  }

  /** Writes blocks.bin from blocks as they come. */
  blocks(items: Iterable<Region['blocks'][number]>): void {
    this.counts.blocks = this.part(BLOCKS_PART, items);
  }

  /** Writes lots.bin. */
  lots(items: Iterable<Region['lots'][number]>): void {
    this.counts.lots = this.part(LOTS_PART, items);
  }

  /** Writes water.bin (no water: an empty file). */
  water(water: RegionWater | null | undefined): void {
    const records: WaterRecord[] = [
      ...(water?.areas ?? []).map((area) => ({ area })),
      ...(water?.lines ?? []).map((line) => ({ line })),
    ];
    this.part(WATER_PART, records);
  }

  /** Writes region.json (last: its presence marks a complete bundle) and swaps the bundle in. */
  commit(meta: RegionMeta): void {
    writeFileDurable(
      join(this.tmp, 'region.json'),
      JSON.stringify({ formatVersion: REGION_FORMAT_VERSION, meta }, null, 2),
    );
    activeTemporaries.delete(this.tmp);
    const prev = `${this.dir}.prev`;
    rmSync(prev, { recursive: true, force: true });
    if (existsSync(this.dir)) renameSync(this.dir, prev);
    renameSync(this.tmp, this.dir);
    rmSync(prev, { recursive: true, force: true });
  }

  /** Deletes what was written; the previous bundle stays. */
  abort(): void {
    activeTemporaries.delete(this.tmp);
    rmSync(this.tmp, { recursive: true, force: true });
  }

  private part<T>(codec: PartCodec<T>, items: Iterable<T>, each?: (item: T) => void): number {
    const w = new PartFileWriter(join(this.tmp, codec.file), codec.kind, codec.version, codec.encode, this.chunkBytes);
    try {
      for (const item of items) {
        w.add(item);
        each?.(item);
      }
    } catch (err) {
      w.abandon();
      throw err;
    }
    w.close();
    return w.count;
  }
}

/** Writes a region held in memory as a bundle at `dir` (atomically, see `BundleWriter`). */
export function writeRegion(dir: string, region: Region): void {
  const w = new BundleWriter(dir);
  try {
    w.graph(region.graph);
    w.intersections(region.intersections);
    w.blocks(region.blocks);
    w.lots(region.lots);
    w.water(region.water);
  } catch (err) {
    w.abort();
    throw err;
  }
  w.commit(region.meta);
}

/**
 * Loads a region bundle written by `BundleWriter`. The graph is read at once; intersections,
 * blocks, lots and water are decoded on first use (their headers are checked now), so a process
 * that only routes never holds them. The locate index is built lazily (`locatorOf`).
 */
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
  const part = <T>(codec: PartCodec<T>): (() => T[]) => {
    const path = join(base, codec.file);
    checkPartFile(path, codec.kind, codec.version);
    return () => readPartFile(path, codec.kind, codec.version, codec.decode);
  };
  const readWater = part(WATER_PART);
  const region = { meta: head.meta, graph } as Region;
  lazy(region, 'intersections', part(INTERSECTIONS_PART));
  const ixPath = join(base, INTERSECTIONS_PART.file);
  lazy(
    region,
    'intersectionStreetNames',
    () =>
      new Map(
        readPartFile(ixPath, INTERSECTIONS_PART.kind, INTERSECTIONS_PART.version, decodeIntersectionNames).map((x) => [
          x.node,
          x.streetNames,
        ]),
      ),
  );
  lazy(region, 'blocks', part(BLOCKS_PART));
  lazy(region, 'lots', part(LOTS_PART));
  lazy(region, 'water', () => {
    const water: RegionWater = { areas: [], lines: [] };
    for (const r of readWater()) {
      if ('area' in r) water.areas.push(r.area);
      else water.lines.push(r.line);
    }
    return water;
  });
  return region;
}

/** Defines `key` of `region` as loaded by `load` on first read (and replaceable by assignment). */
function lazy<K extends 'intersections' | 'intersectionStreetNames' | 'blocks' | 'lots' | 'water'>(
  region: Region,
  key: K,
  load: () => NonNullable<Region[K]>,
): void {
  let value: Region[K] | undefined;
  Object.defineProperty(region, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      value ??= load();
      return value;
    },
    set: (v: Region[K]) => {
      value = v;
    },
  });
}
