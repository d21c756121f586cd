/**
 * `streetwise export speeds`: the learned speed profiles of a region, per edge and 15-minute bin with
 * sample counts, as CSV (default), JSON, or OSRM's segment-speed file (`--format osrm`:
 * `from_osm_id,to_osm_id,speed_kmh`, one line per pair of consecutive OSM nodes, for
 * `osrm-customize --segment-speed-file`). Edges whose geometry has points between their end nodes
 * need the OSM source to list those nodes: `--osm <file>` (the demo's own file by default).
 * While a server owns the embedded database the rows come through its API.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Graph } from '../network/graph.js';
import { readOsmXmlFile, readPbfFile, sniffOsmFormat } from '../osm/index.js';
import { DEMO_OSM_FILE } from '../demo/write-demo.js';
import {
  type LearnedBinRow,
  type WayNodes,
  learnedSpeedsCsv,
  osrmSegmentSpeeds,
  parseWeekTime,
  readLearnedSpeeds,
} from '../traffic/learned-export.js';
import type { Region } from '../network/region.js';
import type { CliDeps } from './deps.js';
import type { ServerClient } from './server-client.js';
import { chosenRegion } from './region-choice.js';

interface ExportOptions {
  format: string;
  out?: string;
  edges?: string;
  from?: string;
  to?: string;
  minSamples?: string;
  osm?: string;
}

/** Node lists of the OSM ways `wanted`, read from an OSM file (PBF or XML). */
export function readWayNodes(path: string, wanted: ReadonlySet<number>): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const handler = {
    node: () => {},
    relation: () => {},
    way: (w: { id: number; refs: number[] }) => {
      if (wanted.has(w.id)) out.set(w.id, w.refs.slice());
    },
  };
  if (sniffOsmFormat(path) === 'pbf') readPbfFile(path, handler);
  else readOsmXmlFile(path, handler);
  return out;
}

/** Ways of the rows' edges whose geometry has points between the end nodes (they need node lists). */
function waysNeedingNodes(rows: readonly LearnedBinRow[], g: Graph): Set<number> {
  const ways = new Set<number>();
  for (const r of rows) if (g.edgeGeomStart[r.edgeId + 1] - g.edgeGeomStart[r.edgeId] > 2) ways.add(r.wayId);
  return ways;
}

/** Adds `export speeds`. */
export function registerExportSpeeds(program: Command, deps: CliDeps): void {
  const exp = program.command('export').description('export data out of the database');
  exp
    .command('speeds')
    .description(
      'learned speed profiles per edge and 15-minute bin with sample counts: CSV, JSON, or OSRM segment speeds (osrm-customize --segment-speed-file)',
    )
    .option('--format <format>', 'csv (one line per edge and bin) | json | osrm (segment-speed file)', 'csv')
    .option('--out <file>', 'write to this file (default: standard output)')
    .option('--edges <ids>', 'comma-separated directed edge ids (default: every edge with learned data)')
    .option('--from <day time>', 'first bin, local time of the week, e.g. "Mon 07:00" (default Mon 00:00)')
    .option('--to <day time>', 'last bin, inclusive, e.g. "Mon 08:45" (default Sun 23:45)')
    .option('--min-samples <n>', 'leave out bins with fewer samples (default 1)')
    .option('--osm <file>', 'osrm: OSM source file listing the nodes inside edges (default: the demo city file)')
    .action(async (opts: ExportOptions) => {
      const format = opts.format.toLowerCase();
      if (!['csv', 'json', 'osrm'].includes(format)) throw new Error('--format must be csv, json or osrm');
      const bins = readBinOptions(opts);
      const region = await chosenRegion(deps);
      const query: ExportQuery = { edges: readEdges(opts, region.graph), ...bins };
      const server = await deps.server();
      const rows = server
        ? await rowsThroughServer(server, opts, query)
        : await deps.withDb((db) => readLearnedSpeeds(db, region.graph, region.meta.mapVersion, query));
      const { text, summary } = renderExport(format, rows, region, opts, deps);
      if (opts.out === undefined) process.stdout.write(text);
      else {
        await new Promise<void>((resolve, reject) => {
          const w = createWriteStream(opts.out!);
          w.on('error', reject);
          w.end(text, () => resolve());
        });
      }
      console.error(
        `learned speeds of region "${region.meta.name}": ${summary}${opts.out ? ` → ${opts.out}` : ''}${server ? ` (through the server at ${server.url})` : ''}`,
      );
    });
}

/** The rows asked for: edges (checked against the graph), the bins from … to, the fewest samples. */
interface ExportQuery {
  edges?: number[];
  fromBin?: number;
  toBin?: number;
  minSamples?: number;
}

/** Reads `--from`, `--to` and `--min-samples`; throws naming the flag. */
function readBinOptions(opts: ExportOptions): Omit<ExportQuery, 'edges'> {
  const weekTime = (v: string | undefined, flag: string): number | undefined => {
    if (v === undefined) return undefined;
    const bin = parseWeekTime(v);
    if (bin === undefined) throw new Error(`${flag} "${v}" is not a day and 15-minute time such as "Mon 08:00"`);
    return bin;
  };
  const fromBin = weekTime(opts.from, '--from');
  const toBin = weekTime(opts.to, '--to');
  const minSamples = opts.minSamples === undefined ? undefined : Number(opts.minSamples);
  if (minSamples !== undefined && !(Number.isInteger(minSamples) && minSamples >= 1))
    throw new Error('--min-samples must be an integer ≥ 1');
  return { fromBin, toBin, minSamples };
}

/** Reads `--edges`: directed edge ids of `g`. */
function readEdges(opts: ExportOptions, g: Graph): number[] | undefined {
  return opts.edges?.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 0 || n >= g.edgeCount)
      throw new Error(`--edges: ${s} is not an edge id (0..${g.edgeCount - 1})`);
    return n;
  });
}

/** The rows through the API of the server that owns the embedded database, page by page. */
async function rowsThroughServer(
  server: ServerClient,
  opts: ExportOptions,
  query: ExportQuery,
): Promise<LearnedBinRow[]> {
  const rows: LearnedBinRow[] = [];
  const params = new URLSearchParams({ format: 'json', limit: '100000' });
  if (opts.edges) params.set('edges', query.edges!.join(','));
  if (opts.from) params.set('from', opts.from);
  if (opts.to) params.set('to', opts.to);
  if (query.minSamples !== undefined) params.set('minSamples', String(query.minSamples));
  for (let after: number | null = -1; after !== null; ) {
    if (after >= 0) params.set('after', String(after));
    const page = await server.request<{ edges: ServerEdge[]; nextAfter: number | null }>(
      'GET',
      `/v1/speeds/learned?${params}`,
    );
    for (const e of page.edges)
      for (const b of e.bins)
        rows.push({
          edgeId: e.edgeId,
          wayId: e.wayId,
          fromOsmNodeId: e.fromOsmNodeId,
          toOsmNodeId: e.toOsmNodeId,
          binOfWeek: b.bin,
          samples: b.samples,
          meanKph: b.meanKph,
          learnedKph: b.learnedKph,
          typicalKph: b.typicalKph,
        });
    after = page.nextAfter;
  }
  return rows;
}

/** The export's text in `format` and a one-line summary of what it holds. */
function renderExport(
  format: string,
  rows: LearnedBinRow[],
  region: Region,
  opts: ExportOptions,
  deps: CliDeps,
): { text: string; summary: string } {
  const edgeCount = new Set(rows.map((r) => r.edgeId)).size;
  if (format === 'json')
    return {
      text: `${JSON.stringify({ region: region.meta.name, mapVersion: region.meta.mapVersion, binMinutes: 15, rows }, null, 1)}\n`,
      summary: `${rows.length} bins of ${edgeCount} edges`,
    };
  if (format !== 'osrm') return { text: learnedSpeedsCsv(rows), summary: `${rows.length} bins of ${edgeCount} edges` };
  const g = region.graph;
  const ways = waysNeedingNodes(rows, g);
  let wayNodes: WayNodes | undefined;
  const osm = opts.osm ?? join(deps.config().store.dataDir, 'demo', DEMO_OSM_FILE);
  if (ways.size > 0 && (opts.osm !== undefined || (region.meta.name === 'demo' && existsSync(osm))))
    wayNodes = readWayNodes(osm, ways);
  const r = osrmSegmentSpeeds(rows, g, wayNodes);
  let summary = `${r.segments} OSM node pairs of ${r.edges} edges (speed: sample-weighted learned speed over the bins chosen)`;
  if (r.edgesWithoutNodes > 0)
    summary += `; ${r.edgesWithoutNodes} edges left out: they have nodes between their ends, pass the OSM file with --osm`;
  return { text: r.csv, summary };
}

interface ServerEdge {
  edgeId: number;
  wayId: number;
  fromOsmNodeId: number;
  toOsmNodeId: number;
  bins: Array<{ bin: number; samples: number; meanKph: number; learnedKph: number; typicalKph: number }>;
}
