/**
 * The import pipeline: OSM file → extract → graph → intersections, blocks, lots → bundle on disk.
 * `importRegion` writes each part as it is built (intersections and blocks one at a time, never
 * the whole list), so memory holds the extract, the graph and one record at a time.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import tzlookup from '@photostructure/tz-lookup';
import { readOsmExtract } from '../osm/index.js';
import type { OsmExtract, Tags } from '../osm/index.js';
import { blocksOf, buildBlocks } from './blocks.js';
import { buildNetwork } from './build-network.js';
import { EdgeFlag } from './graph.js';
import { buildIntersections, intersectionsOf } from './intersections.js';
import { buildLots } from './lots.js';
import { buildWater } from './water.js';
import { BundleWriter, type BundleCounts } from './bundle.js';
import type { Region, RegionMeta } from './region.js';
import type { BuiltNetwork } from './build-network.js';

/** Stages reported to the progress callback, in order. */
export type ImportStage = 'read' | 'graph' | 'lots' | 'intersections' | 'blocks' | 'write';

/** Progress callback: `done` of `total` units of a stage (bytes for 'read', else 0/1). */
export type ImportProgress = (stage: ImportStage, done: number, total?: number) => void;

/** Options of `buildRegion`. */
export interface BuildRegionOptions {
  name: string;
  /** source file name for meta */
  source?: string;
  /** defaults to `<name>-<YYYYMMDD of the file timestamp>-<content hash>` computed by importRegion, else `<name>` */
  mapVersion?: string;
  /** ISO timestamp (defaults to now) */
  importedAt?: string;
  /** clip the graph to the file's declared bounds (default true) */
  clipToBounds?: boolean;
  /** bytes per chunk of the bundle's part files (default 1 MiB; `part-file.ts`) */
  partChunkBytes?: number;
  onProgress?: ImportProgress;
}

/** Counts of an import. */
export interface ImportSummary {
  name: string;
  dir: string;
  nodes: number;
  edges: number;
  routableEdges: number;
  intersections: number;
  signals: number;
  blocks: number;
  lots: number;
  restrictions: number;
  durationMs: number;
}

/** Builds a Region from an extract in memory (no I/O). Same ids every time for the same input. */
export function buildRegion(ex: OsmExtract, opts: BuildRegionOptions): Region {
  const progress = opts.onProgress ?? ((): void => undefined);
  progress('graph', 0, 1);
  const clip = opts.clipToBounds === false ? null : ex.header.bounds;
  const net = buildNetwork(ex, { clipBounds: clip });
  progress('graph', 1, 1);
  progress('intersections', 0, 1);
  const intersections = buildIntersections(net.graph);
  progress('intersections', 1, 1);
  progress('blocks', 0, 1);
  const blocks = buildBlocks({ graph: net.graph, edgeAlongWay: net.edgeAlongWay, wayTags: roadWayTags(ex) });
  progress('blocks', 1, 1);
  progress('lots', 0, 1);
  const lots = buildLots(ex, clip);
  const water = buildWater(ex, clip ?? net.bounds);
  progress('lots', 1, 1);
  return { meta: regionMeta(net, opts), graph: net.graph, intersections, blocks, lots, water };
}

function roadWayTags(ex: OsmExtract): Map<number, Tags> {
  const wayTags = new Map<number, Tags>();
  for (const w of ex.roadWays) wayTags.set(w.id, w.tags);
  return wayTags;
}

function regionMeta(net: BuiltNetwork, opts: BuildRegionOptions): RegionMeta {
  const [a, b, c, d] = net.bounds;
  let timeZone = 'UTC';
  try {
    timeZone = tzlookup((a + c) / 2, (b + d) / 2);
  } catch {
    /* keep UTC for impossible coordinates */
  }
  return {
    name: opts.name,
    mapVersion: opts.mapVersion ?? opts.name,
    source: opts.source ?? '',
    importedAt: opts.importedAt ?? new Date().toISOString(),
    bounds: net.bounds,
    country: net.country,
    timeZone,
  };
}

/** SHA-1 of a file, read in 1 MiB chunks (hex). */
function fileHash(path: string): string {
  const h = createHash('sha1');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    let pos = 0;
    for (let n: number; (n = readSync(fd, buf, 0, buf.length, pos)) > 0; pos += n) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

function yyyymmdd(unixS: number): string {
  return new Date(unixS * 1000).toISOString().slice(0, 10).replace(/-/g, '');
}

/** Summary counts of a region. */
export function summarize(region: Region, dir: string, durationMs: number): ImportSummary {
  const g = region.graph;
  let routable = 0;
  for (let e = 0; e < g.edgeCount; e++) if ((g.edgeFlags[e] & EdgeFlag.routable) !== 0) routable++;
  return {
    name: region.meta.name,
    dir,
    nodes: g.nodeCount,
    edges: g.edgeCount,
    routableEdges: routable,
    intersections: region.intersections.length,
    signals: region.intersections.filter((i) => i.signalized).length,
    blocks: region.blocks.length,
    lots: region.lots.length,
    restrictions: g.restrictionFrom.length,
    durationMs,
  };
}

/**
 * Imports an OSM file (`.osm.pbf`, or OSM XML `.osm`) into a region bundle at `outDir`,
 * replacing any previous bundle there atomically. Each part is written as it is built.
 * @example
 * const s = await importRegion('baltimore.osm.pbf', 'data/regions/baltimore', { name: 'baltimore' });
 * console.log(`${s.edges} edges, ${s.intersections} intersections in ${s.durationMs} ms`);
 */
export async function importRegion(
  inputPath: string,
  outDir: string,
  opts: BuildRegionOptions,
): Promise<ImportSummary> {
  const t0 = performance.now();
  const progress = opts.onProgress ?? ((): void => undefined);
  const st = statSync(inputPath);
  progress('read', 0, st.size);
  const ex = readOsmExtract(inputPath, (done, total) => progress('read', done, total));
  const stampS = ex.header.timestampS ?? Math.floor(st.mtimeMs / 1000);
  const full: BuildRegionOptions = {
    ...opts,
    source: opts.source ?? basename(inputPath),
    mapVersion: opts.mapVersion ?? `${opts.name}-${yyyymmdd(stampS)}-${fileHash(inputPath).slice(0, 8)}`,
  };
  progress('graph', 0, 1);
  const clip = opts.clipToBounds === false ? null : ex.header.bounds;
  const net = buildNetwork(ex, { clipBounds: clip });
  progress('graph', 1, 1);
  const writer = new BundleWriter(outDir, opts.partChunkBytes);
  try {
    writer.graph(net.graph);
    progress('lots', 0, 1);
    writer.lots(buildLots(ex, clip));
    writer.water(buildWater(ex, clip ?? net.bounds));
    progress('lots', 1, 1);
    const wayTags = roadWayTags(ex);
    progress('intersections', 0, 1);
    writer.intersections(intersectionsOf(net.graph));
    progress('intersections', 1, 1);
    progress('blocks', 0, 1);
    writer.blocks(blocksOf({ graph: net.graph, edgeAlongWay: net.edgeAlongWay, wayTags }));
    progress('blocks', 1, 1);
    progress('write', 0, 1);
    writer.commit(regionMeta(net, full));
    progress('write', 1, 1);
  } catch (err) {
    writer.abort();
    throw err;
  }
  return summaryOf(opts.name, net, writer.counts, outDir, Math.round(performance.now() - t0));
}

function summaryOf(
  name: string,
  net: BuiltNetwork,
  counts: BundleCounts,
  dir: string,
  durationMs: number,
): ImportSummary {
  const g = net.graph;
  let routable = 0;
  for (let e = 0; e < g.edgeCount; e++) if ((g.edgeFlags[e] & EdgeFlag.routable) !== 0) routable++;
  return {
    name,
    dir,
    nodes: g.nodeCount,
    edges: g.edgeCount,
    routableEdges: routable,
    intersections: counts.intersections,
    signals: counts.signalizedIntersections,
    blocks: counts.blocks,
    lots: counts.lots,
    restrictions: g.restrictionFrom.length,
    durationMs,
  };
}
