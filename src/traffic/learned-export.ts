/**
 * Learned speeds out of the database, for people and for other engines: per edge and 15-minute bin
 * of the local week, the samples behind it, their space-mean speed, the profile speed routing uses
 * (the mean shrunk toward the prediction, `learned-speeds.ts`) and the prediction itself ("typical").
 * Three renderings: rows (JSON), a CSV of the same, and OSRM's segment-speed file
 * (`from_osm_id,to_osm_id,speed_kmh[,rate]`, one line per pair of consecutive OSM nodes, read by
 * `osrm-customize --segment-speed-file`; https://github.com/Project-OSRM/osrm-backend/wiki/Traffic).
 */
import type { Graph } from '../network/graph.js';
import { intArrayLiteral, type Queryable } from '../store/db.js';
import { BINS_PER_WEEK } from './feeds.js';
import { DEFAULT_LEARNED_SPEED_CONFIG, predictedPrior } from './learned-speeds.js';

/** One learned bin of one directed edge. Speeds in km/h, rounded to 0.1. */
export interface LearnedBinRow {
  edgeId: number;
  /** OSM way of the edge */
  wayId: number;
  /** OSM ids of the edge's first and last node (in the direction of travel) */
  fromOsmNodeId: number;
  toOsmNodeId: number;
  /** 15-minute bin of the local week, 0 = Monday 00:00–00:15 */
  binOfWeek: number;
  /** traversals behind the bin */
  samples: number;
  /** space-mean speed of those traversals (Σ length ÷ Σ duration) */
  meanKph: number;
  /** the profile speed routing uses: the mean shrunk toward the typical speed by its sample count */
  learnedKph: number;
  /** the model's prediction for the edge and bin without probe data (road class and time of day) */
  typicalKph: number;
}

/** Which learned bins to read. */
export interface LearnedQuery {
  /** only these edges (default every edge with learned data) */
  edges?: readonly number[];
  /** only bins in [fromBin, toBin] of the week (inclusive; default the whole week) */
  fromBin?: number;
  toBin?: number;
  /** bins with fewer samples are left out (default 1) */
  minSamples?: number;
  /** paging over edges: edges after this id, at most `limitEdges` of them */
  afterEdge?: number;
  limitEdges?: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Day and time of a bin: `Mon 08:15`. */
export function binLabel(bin: number): string {
  const day = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][Math.floor(bin / 96)];
  const m = (bin % 96) * 15;
  return `${day} ${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** Reads "Mon 08:00" (a day of the week and a time on a 15-minute boundary) as a bin of the week; undefined when it is not one. */
export function parseWeekTime(text: string): number | undefined {
  const m = /^([a-z]{3})[a-z]*[ T]?(\d{1,2}):(\d{2})$/i.exec(text.trim());
  if (!m) return undefined;
  const day = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].indexOf(m[1].toLowerCase());
  const h = Number(m[2]);
  const min = Number(m[3]);
  if (day < 0 || !(h >= 0 && h < 24) || ![0, 15, 30, 45].includes(min)) return undefined;
  return day * 96 + h * 4 + min / 15;
}

/**
 * Reads learned bins of `mapVersion` in (edge, bin) order.
 * @example
 * const rows = await readLearnedSpeeds(db, region.graph, region.meta.mapVersion, { edges: [12] });
 */
export async function readLearnedSpeeds(
  db: Queryable,
  g: Graph,
  mapVersion: string,
  q: LearnedQuery = {},
): Promise<LearnedBinRow[]> {
  const minSamples = Math.max(q.minSamples ?? DEFAULT_LEARNED_SPEED_CONFIG.minSamples, 1);
  const params: unknown[] = [
    mapVersion,
    intArrayLiteral(q.edges === undefined ? null : [...q.edges]),
    q.fromBin ?? 0,
    q.toBin ?? BINS_PER_WEEK - 1,
    minSamples,
    q.afterEdge ?? -1,
  ];
  // paging over edges: the first `limitEdges` edges with data after `afterEdge`
  const limit =
    q.limitEdges === undefined
      ? ''
      : `AND edge_id IN (SELECT DISTINCT edge_id FROM learned_speed_bins WHERE map_version = $1 AND edge_id > $6
           AND bin_of_week BETWEEN $3 AND $4 AND samples >= $5
           AND ($2::int[] IS NULL OR edge_id = ANY($2::int[])) ORDER BY edge_id LIMIT ${Math.max(0, Math.floor(q.limitEdges))})`;
  const res = await db.query<{
    edge_id: number;
    bin_of_week: number;
    samples: number;
    sum_length_mm: string | number;
    sum_duration_ms: string | number;
  }>(
    `SELECT edge_id, bin_of_week, samples, sum_length_mm, sum_duration_ms FROM learned_speed_bins
     WHERE map_version = $1 AND ($2::int[] IS NULL OR edge_id = ANY($2::int[])) AND edge_id > $6
       AND bin_of_week BETWEEN $3 AND $4 AND samples >= $5 ${limit}
     ORDER BY edge_id, bin_of_week`,
    params,
  );
  const prior = predictedPrior(g);
  const k = DEFAULT_LEARNED_SPEED_CONFIG.priorWeightSamples;
  const out: LearnedBinRow[] = [];
  for (const r of res.rows) {
    const e = Number(r.edge_id);
    const durMs = Number(r.sum_duration_ms);
    if (e < 0 || e >= g.edgeCount || !(durMs > 0)) continue;
    const bin = Number(r.bin_of_week);
    const samples = Number(r.samples);
    const meanKph = (Number(r.sum_length_mm) / durMs) * 3.6;
    const typicalKph = prior.speedKph(e, bin);
    out.push({
      edgeId: e,
      wayId: g.edgeWayId[e],
      fromOsmNodeId: g.nodeOsmId[g.edgeSource[e]],
      toOsmNodeId: g.nodeOsmId[g.edgeTarget[e]],
      binOfWeek: bin,
      samples,
      meanKph: round1(meanKph),
      // the shrinkage of learned-speeds.ts (binKph): what the router reads for this bin
      learnedKph: round1((samples * meanKph + k * typicalKph) / (samples + k)),
      typicalKph: round1(typicalKph),
    });
  }
  return out;
}

/** Header of the per-bin CSV. */
export const LEARNED_CSV_HEADER =
  'edge_id,way_id,from_osm_node_id,to_osm_node_id,bin_of_week,day_time,samples,mean_kph,learned_kph,typical_kph';

/** The rows as CSV (header first), one line per edge and bin. */
export function learnedSpeedsCsv(rows: readonly LearnedBinRow[]): string {
  const lines = [LEARNED_CSV_HEADER];
  for (const r of rows)
    lines.push(
      [
        r.edgeId,
        r.wayId,
        r.fromOsmNodeId,
        r.toOsmNodeId,
        r.binOfWeek,
        binLabel(r.binOfWeek),
        r.samples,
        r.meanKph,
        r.learnedKph,
        r.typicalKph,
      ].join(','),
    );
  return `${lines.join('\n')}\n`;
}

/** OSM node ids of each way, in way order, for edges whose geometry has points between its end nodes. */
export type WayNodes = ReadonlyMap<number, readonly number[]>;

/** The OSRM segment-speed file and what could not go into it. */
export interface OsrmSegmentSpeeds {
  /** `from_osm_id,to_osm_id,speed_kmh` lines (newline-terminated; no header: OSRM reads none) */
  csv: string;
  /** edges written */
  edges: number;
  /** node pairs written */
  segments: number;
  /** edges left out: points between their end nodes and no OSM node list for their way */
  edgesWithoutNodes: number;
}

/**
 * OSRM's segment-speed file from learned rows: per edge, the sample-weighted mean of the learned
 * speed over the rows given (pass the bins of one time of day for a time-of-day file), written for
 * every pair of consecutive OSM nodes the edge covers, rounded to whole km/h (OSRM reads integers).
 * An edge with shape points between its end nodes needs its way's node list (`wayNodes`, from the
 * OSM source file); without it the edge is counted in `edgesWithoutNodes` and left out, never
 * written as a pair OSRM would not recognise.
 */
export function osrmSegmentSpeeds(rows: readonly LearnedBinRow[], g: Graph, wayNodes?: WayNodes): OsrmSegmentSpeeds {
  const sum = new Map<number, { w: number; kph: number }>();
  for (const r of rows) {
    const s = sum.get(r.edgeId) ?? { w: 0, kph: 0 };
    s.w += r.samples;
    s.kph += r.samples * r.learnedKph;
    sum.set(r.edgeId, s);
  }
  const lines: string[] = [];
  let edges = 0;
  let missing = 0;
  for (const [e, s] of [...sum].sort((a, b) => a[0] - b[0])) {
    const nodes = osmNodesOfEdge(g, e, wayNodes);
    if (nodes === undefined) {
      missing++;
      continue;
    }
    const kph = Math.max(1, Math.round(s.kph / s.w));
    for (let i = 1; i < nodes.length; i++) lines.push(`${nodes[i - 1]},${nodes[i]},${kph}`);
    edges++;
  }
  return {
    csv: lines.length > 0 ? `${lines.join('\n')}\n` : '',
    edges,
    segments: lines.length,
    edgesWithoutNodes: missing,
  };
}

/**
 * The OSM node ids along edge `e` in travel order: its end nodes when its geometry has no points
 * between them, else the run of its way's node list from the source to the target node (either
 * direction) whose length matches the geometry; undefined when that cannot be told.
 */
export function osmNodesOfEdge(g: Graph, e: number, wayNodes?: WayNodes): number[] | undefined {
  const from = g.nodeOsmId[g.edgeSource[e]];
  const to = g.nodeOsmId[g.edgeTarget[e]];
  const points = g.edgeGeomStart[e + 1] - g.edgeGeomStart[e];
  if (points <= 2) return [from, to];
  const way = wayNodes?.get(g.edgeWayId[e]);
  if (way === undefined) return undefined;
  const span = points - 1;
  for (let i = 0; i < way.length; i++) {
    if (way[i] !== from) continue;
    if (i + span < way.length && way[i + span] === to) return way.slice(i, i + span + 1);
    if (i - span >= 0 && way[i - span] === to) return way.slice(i - span, i + 1).reverse();
  }
  return undefined;
}
