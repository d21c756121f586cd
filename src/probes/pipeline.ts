/**
 * The probe pipeline after ingestion: match the traces that received new pings, replace their
 * stored traversals, then recompute learned bins and profiles and live speeds for exactly the
 * edges whose traversals changed. Used by the CLI, the HTTP endpoint and the simulator.
 */
import type { Readable } from 'node:stream';
import type { Graph } from '../network/graph.js';
import type { Db } from '../store/db.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import { loadLearnedProfiles, recomputeLearnedBins, type LearnedSpeedConfig } from '../traffic/learned-speeds.js';
import { refreshLiveSpeeds } from '../traffic/live-speeds.js';
import { ingestProbeStream, ingestRecords, type IngestOptions, type IngestReport } from './ingest/ingest.js';
import type { ProbeRecord } from './ingest/records.js';
import { MapMatcher, type MatchOptions } from './match/matcher.js';
import { replaceTraversals } from './traversal-store.js';
import type { Ping, Trajectory } from './trajectory.js';

/** What the pipeline works on. */
export interface ProbePipelineDeps {
  db: Db;
  graph: Graph;
  /** region map version: stored with traversals and learned bins (edge ids are per import) */
  mapVersion: string;
  /** IANA time zone of the region (bins are local time) */
  timeZone: string;
  /** in-memory feeds the routing traffic model reads */
  feeds: SpeedFeeds;
  /** wall clock, unix seconds (live speeds) */
  nowS: number;
  match?: Partial<MatchOptions>;
  learned?: Partial<LearnedSpeedConfig>;
  liveWindowS?: number;
  /** called after each chunk of traces is matched: (traces done, traces in total) */
  onMatchProgress?: (done: number, total: number) => void;
}

/** Result of processing traces. */
export interface ProcessReport {
  traces: number;
  trajectories: number;
  traversals: number;
  /** pings with no road within the search radius */
  unmatchedPings: number;
  /** edges whose learned bins were recomputed */
  edgesUpdated: number;
  /** edges with a live speed set by this run */
  liveEdges: number;
}

const matchers = new WeakMap<Graph, MapMatcher>();

/** The map matcher of a graph (built once: its spatial index takes a moment on large graphs). */
export function matcherFor(g: Graph, options?: Partial<MatchOptions>): MapMatcher {
  if (options !== undefined && Object.keys(options).length > 0) return new MapMatcher(g, options, matcherFor(g).index);
  let m = matchers.get(g);
  if (m === undefined) matchers.set(g, (m = new MapMatcher(g)));
  return m;
}

/** Traces matched per database round trip. */
const TRACE_CHUNK = 200;

/** Matches the given traces from their stored pings and updates traversals, learned and live speeds. */
export async function processTraces(deps: ProbePipelineDeps, traceIds: readonly string[]): Promise<ProcessReport> {
  const matcher = matcherFor(deps.graph, deps.match);
  const report: ProcessReport = { traces: traceIds.length, trajectories: 0, traversals: 0, unmatchedPings: 0, edgesUpdated: 0, liveEdges: 0 };
  const touched = new Set<number>();
  for (let i = 0; i < traceIds.length; i += TRACE_CHUNK) {
    const chunk = traceIds.slice(i, i + TRACE_CHUNK);
    const pings = await readPingsOf(deps.db, chunk);
    const trajectories: Trajectory[] = [];
    for (const id of chunk) {
      const parts = matcher.match(id, pings.get(id) ?? []);
      report.unmatchedPings += matcher.lastStats.unmatchedPings;
      for (const t of parts) { trajectories.push(t); report.traversals += t.traversals.length; }
    }
    report.trajectories += trajectories.length;
    const edges = await deps.db.transaction((tx) => replaceTraversals(tx, deps.graph, deps, chunk, trajectories));
    for (const e of edges) touched.add(e);
    deps.onMatchProgress?.(Math.min(traceIds.length, i + TRACE_CHUNK), traceIds.length);
  }
  const upd = await updateSpeedsForEdges(deps, touched);
  report.edgesUpdated = upd.edgesUpdated;
  report.liveEdges = upd.liveEdges;
  return report;
}

/**
 * Stores already-matched trajectories (replacing those of the same traces) and updates learned
 * and live speeds of the edges they touch.
 */
export async function processTrajectories(deps: ProbePipelineDeps, trajectories: readonly Trajectory[]): Promise<ProcessReport> {
  const traceIds = [...new Set(trajectories.map((t) => t.traceId))];
  const touched = await deps.db.transaction((tx) => replaceTraversals(tx, deps.graph, deps, traceIds, trajectories));
  const upd = await updateSpeedsForEdges(deps, touched);
  return {
    traces: traceIds.length, trajectories: trajectories.length, traversals: trajectories.reduce((n, t) => n + t.traversals.length, 0),
    unmatchedPings: 0, ...upd,
  };
}

/** Recomputes learned bins, reloads learned profiles and refreshes live speeds of `edges`. */
async function updateSpeedsForEdges(deps: ProbePipelineDeps, edges: Set<number>): Promise<{ edgesUpdated: number; liveEdges: number }> {
  if (edges.size === 0) return { edgesUpdated: 0, liveEdges: 0 };
  await deps.db.transaction((tx) => recomputeLearnedBins(tx, deps.mapVersion, edges));
  await loadLearnedProfiles(deps.db, deps.graph, deps.feeds, deps.mapVersion, edges, deps.learned);
  const liveEdges = await refreshLiveSpeeds(deps.db, deps.feeds, deps.mapVersion, deps.nowS, edges, deps.liveWindowS === undefined ? {} : { windowS: deps.liveWindowS });
  return { edgesUpdated: edges.size, liveEdges };
}

/** Reads the stored pings of several traces, grouped by trace id, in time order. */
async function readPingsOf(db: Db, traceIds: readonly string[]): Promise<Map<string, Ping[]>> {
  const res = await db.query<{ trace_id: string; t_s: number; lat: number; lon: number; speed_kph: number | null; heading_deg: number | null }>(
    'SELECT trace_id, t_s, lat, lon, speed_kph, heading_deg FROM probe_pings WHERE trace_id = ANY($1::text[]) ORDER BY trace_id, t_s',
    [traceIds],
  );
  const out = new Map<string, Ping[]>();
  for (const r of res.rows) {
    let list = out.get(r.trace_id);
    if (list === undefined) out.set(r.trace_id, (list = []));
    const p: Ping = { tS: Number(r.t_s), lat: Number(r.lat), lon: Number(r.lon) };
    if (r.speed_kph !== null) p.speedKph = Number(r.speed_kph);
    if (r.heading_deg !== null) p.headingDeg = Number(r.heading_deg);
    list.push(p);
  }
  return out;
}

/** Ingests a stream and processes the traces that got new pings. */
export async function ingestAndProcess(deps: ProbePipelineDeps, input: Readable, opts: IngestOptions): Promise<{ ingest: IngestReport; process: ProcessReport }> {
  const ingest = await ingestProbeStream(deps.db, input, opts);
  const process = await processTraces(deps, ingest.touchedTraceIds);
  return { ingest, process };
}

/** Ingests records (request bodies, simulator output) and processes the traces that got new pings. */
export async function ingestRecordsAndProcess(deps: ProbePipelineDeps, records: AsyncIterable<ProbeRecord> | Iterable<ProbeRecord>, opts: Omit<IngestOptions, 'format'> = {}): Promise<{ ingest: IngestReport; process: ProcessReport }> {
  const ingest = await ingestRecords(deps.db, records, opts);
  const process = await processTraces(deps, ingest.touchedTraceIds);
  return { ingest, process };
}
