/**
 * The probe pipeline after ingestion: match the traces that received new pings, replace their
 * stored traversals, then recompute the learned bins the changed traversals touch and the live
 * speeds of their edges. Used by the CLI, the HTTP endpoint and the simulator.
 */
import type { Readable } from 'node:stream';
import type { Graph } from '../network/graph.js';
import type { Db } from '../store/db.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import { loadLearnedBins, type LearnedSpeedConfig } from '../traffic/learned-speeds.js';
import { countLiveEdges, refreshLiveSpeeds } from '../traffic/live-speeds.js';
import { ingestProbeStream, ingestRecords, type IngestOptions, type IngestReport } from './ingest/ingest.js';
import type { ProbeRecord } from './ingest/records.js';
import {
  MapMatcher,
  type MatchOptions,
  type MatchState,
  type MatchedTrace,
  type TraceMatcher,
} from './match/matcher.js';
import { asStored, replaceTraversals } from './traversal-store.js';
import { clearPending, readPending, type PendingMark } from './ingest/pending.js';
import type { Ping, Trajectory } from './trajectory.js';

/** What the pipeline works on. */
export interface ProbePipelineDeps {
  db: Db;
  graph: Graph;
  /** region map version: stored with traversals and learned bins (edge ids are per import) */
  mapVersion: string;
  /** IANA time zone of the region (bins are local time) */
  timeZone: string;
  /**
   * in-memory feeds the routing traffic model reads, updated here; absent in a thread that does
   * not route (the ingestion thread: serving threads follow the change log), where nothing is
   * loaded and live edges are only counted, in the database
   */
  feeds?: SpeedFeeds;
  /** wall clock, unix seconds (live speeds) */
  nowS: number;
  match?: Partial<MatchOptions>;
  learned?: Partial<LearnedSpeedConfig>;
  liveWindowS?: number;
  /** called after each chunk of traces is matched: (traces done, traces in total) */
  onMatchProgress?: (done: number, total: number) => void;
  /**
   * matching states of recently processed traces (a long-lived ingestion thread keeps one): a
   * trace whose new pings extend what its state consumed is matched only over the new pings
   */
  matchStates?: MatchStateCache;
  /**
   * called before each trace is matched; when it returns a promise, matching waits for it (the
   * ingestion thread steps aside while a request is answered)
   */
  pace?: () => Promise<void> | undefined;
  /**
   * called with each chunk's re-matched trajectories once they are written (as a read-back would
   * give them, `asStored`), chunk after chunk, possibly while the next chunk's traversals are
   * written: what is derived from trajectories (intersection facts) follows without reading them
   * back; processing ends when the last call has
   */
  onStored?: (trajectories: readonly Trajectory[]) => Promise<void>;
  /** traces matched per chunk (default `TRACE_CHUNK`) */
  traceChunk?: number;
  /**
   * matches the traces that have no matching state on another thread, a chunk ahead of this one:
   * while it matches the next chunk, this thread writes the last; unused when `match` sets
   * options (the helper matches with the defaults); without it every trace is matched here
   */
  matchHelper?: TraceMatcher;
}

/** What is kept of a recently processed trace. */
interface TraceMemory {
  state: MatchState;
  /** digests of its traversal rows as stored by the same write (`replaceTraversals`' `rows`) */
  rows?: ReadonlyMap<string, string>;
  /** the tail the state was matched over (null: the whole trace; absent: unknown) */
  tail?: TraceTail | null;
}

/**
 * The matching states of recently processed traces, with their tails and the digests of their
 * stored traversal rows, least recently used dropped beyond `maxTraces`. An entry is taken out
 * while its trace is processed and put back only after the result is stored, so a failed write
 * never leaves it ahead of the database. It assumes what a matching state already assumes: this
 * cache's owner is the only writer of these traces.
 */
export class MatchStateCache {
  private readonly states = new Map<string, TraceMemory>();
  constructor(private readonly maxTraces = 20_000) {}

  take(traceId: string): MatchState | undefined {
    return this.takeEntry(traceId)?.state;
  }

  /** The state and the stored rows of a trace, taken out of the cache. */
  takeEntry(traceId: string): TraceMemory | undefined {
    const s = this.states.get(traceId);
    if (s !== undefined) this.states.delete(traceId);
    return s;
  }

  put(state: MatchState, rows?: ReadonlyMap<string, string>, tail?: TraceTail | null): void {
    this.states.set(state.traceId, { state, rows, tail });
    if (this.states.size > this.maxTraces) this.states.delete(this.states.keys().next().value as string);
  }

  get size(): number {
    return this.states.size;
  }
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
/** Matching runs at most this long, ms, before it lets the thread's other work in (a chunk's write in flight sends its next statement). */
const MATCH_SLICE_MS = 4;

/**
 * Matches the given traces from their stored pings and updates traversals, learned and live speeds.
 * With `firstNewS` (earliest new ping per trace, from the ingest report) only the tail of each
 * trace after the last time gap (> maxGapS) before its new pings is re-matched: the matcher always
 * splits at such gaps, so the parts before it cannot change and keep their rows and numbers.
 * Without it, whole traces are re-matched.
 */
export async function processTraces(
  deps: ProbePipelineDeps,
  traceIds: readonly string[],
  firstNewS?: ReadonlyMap<string, number>,
): Promise<ProcessReport> {
  return (await processTracesMarked(deps, traceIds, firstNewS)).report;
}

/** What `processTracesMarked` did, with what the caller needs to finish the work. */
export interface MarkedProcessResult {
  report: ProcessReport;
  /** pending marks read before the pings: clear them (`clearPending`) once everything derived is stored */
  marks: PendingMark[];
  /** edges of the replaced traversals (their live speeds were recomputed) */
  edges: Set<number>;
  /** the learned bins the changed traversals touch (`learnedBinKey`; they were recomputed) */
  learnedBins: Set<number>;
}

/**
 * `processTraces` that also honours the traces' pending marks (`probe_pending`): a mark's
 * earliest unprocessed ping lowers where re-matching starts (pings a failed batch stored are
 * matched now), and the marks read are returned for the caller to clear.
 */
export async function processTracesMarked(
  deps: ProbePipelineDeps,
  traceIds: readonly string[],
  firstNewS?: ReadonlyMap<string, number>,
): Promise<MarkedProcessResult> {
  const matcher = matcherFor(deps.graph, deps.match);
  const report: ProcessReport = {
    traces: traceIds.length,
    trajectories: 0,
    traversals: 0,
    unmatchedPings: 0,
    edgesUpdated: 0,
    liveEdges: 0,
  };
  const touched = new Set<number>();
  const learnedBins = new Set<number>();
  const marks: PendingMark[] = [];
  /**
   * Reads what matching a chunk needs: its pending marks (before its pings), tails, the cached
   * memories of its traces and their pings (only the new ones where a matching state goes on).
   */
  const load = async (
    chunk: string[],
  ): Promise<{
    chunk: string[];
    tails: Map<string, TraceTail>;
    memories: Map<string, TraceMemory>;
    pings: Map<string, Ping[]>;
  }> => {
    // the marks before the pings: a batch stored after this read keeps its trace pending
    const chunkMarks = await readPending(deps.db, chunk);
    marks.push(...chunkMarks);
    let from = firstNewS;
    if (from !== undefined && chunkMarks.length > 0) {
      const merged = new Map(from);
      for (const m of chunkMarks) merged.set(m.traceId, Math.min(m.fromS, merged.get(m.traceId) ?? Infinity));
      from = merged;
    }
    const memories = new Map<string, TraceMemory>();
    for (const id of chunk) {
      const memory = deps.matchStates?.takeEntry(id);
      if (memory !== undefined) memories.set(id, memory);
    }
    const maxGapS = matcher.options.maxGapS;
    const tails = new Map<string, TraceTail>();
    if (from !== undefined) {
      // a tail stays where it was when the new pings follow what the state consumed without a
      // gap and no gap opened inside it; the others are looked up
      const ask: string[] = [];
      for (const id of chunk) {
        const m = memories.get(id);
        const c = m?.state.consumed;
        const firstNew = from.get(id);
        let same =
          m !== undefined &&
          m.tail !== undefined &&
          c !== undefined &&
          c.length > 0 &&
          firstNew !== undefined &&
          firstNew > c[c.length - 1] &&
          firstNew - c[c.length - 1] <= maxGapS;
        for (let i = 1; same && i < c!.length; i++) if (c![i] - c![i - 1] > maxGapS) same = false;
        if (!same) ask.push(id);
        else if (m!.tail !== null) tails.set(id, m!.tail!);
      }
      for (const [id, t] of await findTails(deps, ask, from, maxGapS)) tails.set(id, t);
    }
    /** traces whose state consumed every stored ping before `from`: the time of the last one */
    const after = new Map<string, number>();
    for (const [id, memory] of memories) {
      const st = memory.state;
      const tail = tails.get(id);
      const firstNew = from?.get(id);
      const lastS = st.consumed.length > 0 ? st.consumed[st.consumed.length - 1] : undefined;
      // same tail, and every ping stored since the state was made (new, or pending from a failed
      // round) is later than what it consumed: the stored pings up to lastS are exactly those
      // (no tail: no gap before the new pings, the whole trace is the tail)
      if (
        lastS !== undefined &&
        firstNew !== undefined &&
        firstNew > lastS &&
        st.traceId === id &&
        st.firstPart === (tail?.keptParts ?? 0) &&
        st.firstIndex === (tail?.pingsBefore ?? 0)
      )
        after.set(id, lastS);
    }
    const pings = await readPingsOf(deps.db, chunk, tails, after);
    for (const id of after.keys()) {
      // the consumed prefix stands in by its times only: the state resumes after it
      const prefix: Ping[] = memories.get(id)!.state.consumed.map((tS) => ({ tS, lat: Number.NaN, lon: Number.NaN }));
      pings.set(id, prefix.concat(pings.get(id) ?? []));
    }
    return { chunk, tails, memories, pings };
  };
  // (the helper matches with the default options: with others, every trace is matched here)
  const helper = deps.match === undefined ? deps.matchHelper : undefined;
  /**
   * A chunk loaded, and its traces without a matching state sent to the helper (when there is
   * one) as soon as their pings are read: it matches them while this thread goes on with the
   * chunks before.
   */
  const prepare = async (
    chunk: string[],
  ): Promise<Awaited<ReturnType<typeof load>> & { helped?: Promise<Map<string, MatchedTrace>> }> => {
    const l = await load(chunk);
    const fresh = helper === undefined ? [] : chunk.filter((id) => !l.memories.has(id));
    if (fresh.length === 0) return l;
    const sent = fresh.map((id) => ({
      traceId: id,
      pings: l.pings.get(id) ?? [],
      firstPart: l.tails.get(id)?.keptParts ?? 0,
      firstIndex: l.tails.get(id)?.pingsBefore ?? 0,
    }));
    const helped = quiet(helper!.match(sent).then((r) => new Map(fresh.map((id, i) => [id, r[i]]))));
    return { ...l, helped };
  };
  const chunks: string[][] = [];
  const chunkSize = deps.traceChunk ?? TRACE_CHUNK;
  for (let i = 0; i < traceIds.length; i += chunkSize) chunks.push(traceIds.slice(i, i + chunkSize));
  // Four stages overlap: while one chunk is matched, the next is read, the previous one's
  // traversals are written and the facts of the chunk before it (`onStored`) follow its traversals
  // (different traces and tables; one write of each kind in flight at a time, the facts at most
  // one chunk behind). Matching yields to the event loop every MATCH_SLICE_MS, so a write's next
  // statement goes out as soon as the last one returns. With a helper, the next chunk's new
  // traces are matched there as soon as they are read, while this thread writes.
  const quiet = <T>(p: Promise<T>): Promise<T> => {
    p.catch(() => undefined);
    return p;
  };
  let next = chunks.length > 0 ? quiet(prepare(chunks[0])) : undefined;
  let writing: Promise<void> | undefined;
  let deriving: Promise<void> | undefined;
  let derivedBefore: Promise<void> | undefined;
  let done = 0;
  try {
    for (let c = 0; c < chunks.length; c++) {
      const { chunk, tails, memories, pings, helped } = await next!;
      next = c + 1 < chunks.length ? quiet(prepare(chunks[c + 1])) : undefined;
      const trajectories: Trajectory[] = [];
      const states: MatchState[] = [];
      const known = new Map<string, ReadonlyMap<string, string>>();
      const matched = new Map<string, MatchedTrace & { state: MatchState }>();
      let yieldedAt = performance.now();
      for (const id of chunk) {
        if (helped !== undefined && !memories.has(id)) continue; // on the helper
        const wait = deps.pace?.();
        if (wait !== undefined) {
          await wait;
          yieldedAt = performance.now();
        } else if (performance.now() - yieldedAt >= MATCH_SLICE_MS) {
          // let the previous chunk's write (its statements are sent from this thread) and whatever
          // else the thread has to do (a body still being stored) go on between traces
          await new Promise<void>((r) => setImmediate(r));
          yieldedAt = performance.now();
        }
        const tail = tails.get(id);
        const memory = memories.get(id);
        if (memory?.rows !== undefined) known.set(id, memory.rows);
        const { parts, state } = matcher.matchResumable(
          id,
          pings.get(id) ?? [],
          tail?.keptParts ?? 0,
          tail?.pingsBefore ?? 0,
          memory?.state,
        );
        matched.set(id, { parts, state, unmatchedPings: matcher.lastStats.unmatchedPings });
      }
      const fromHelper = helped === undefined ? undefined : await helped;
      for (const id of chunk) {
        const m: MatchedTrace & { state?: MatchState } = matched.get(id) ?? fromHelper!.get(id)!;
        // (a trace matched on the helper keeps no state: more pings later are matched from its tail)
        if (m.state !== undefined) states.push(m.state);
        report.unmatchedPings += m.unmatchedPings;
        for (const t of m.parts) {
          trajectories.push(t);
          report.traversals += t.traversals.length;
        }
      }
      report.trajectories += trajectories.length;
      const fromPart = new Map<string, number>();
      for (const id of chunk) fromPart.set(id, tails.get(id)?.keptParts ?? 0);
      await writing;
      // the facts at most one chunk behind the traversals (what waits for them is held in memory)
      await derivedBefore;
      derivedBefore = deriving;
      writing = quiet(
        deps.db
          .transaction((tx) => replaceTraversals(tx, deps.graph, deps, chunk, trajectories, fromPart, known))
          .then((r) => {
            for (const e of r.edges) touched.add(e);
            for (const k of r.learnedBins) learnedBins.add(k);
            if (deps.matchStates)
              for (const st of states) deps.matchStates.put(st, r.rows.get(st.traceId), tails.get(st.traceId) ?? null);
            // what is derived from the chunk's trajectories follows its traversals, one chunk at a time,
            // beside the next chunk's traversals (other tables)
            const before = deriving;
            deriving = quiet(
              (async () => {
                await before;
                if (deps.onStored) await deps.onStored(trajectories.map(asStored));
                done += chunk.length;
                deps.onMatchProgress?.(done, traceIds.length);
              })(),
            );
          }),
      );
    }
  } catch (err) {
    // a chunk failed (its read, its matching): the writes under way end first, so the traces of this
    // round are never written by it and by the round that takes them over at the same time
    await writing?.catch(() => undefined);
    await deriving?.catch(() => undefined);
    throw err;
  }
  await writing;
  await deriving;
  const upd = await updateSpeedsForEdges(deps, touched, learnedBins);
  report.edgesUpdated = upd.edgesUpdated;
  report.liveEdges = upd.liveEdges;
  return { report, marks, edges: touched, learnedBins };
}

/** Where re-matching of a trace starts. */
interface TraceTail {
  /** first ping time to re-match, unix seconds */
  cutS: number;
  /** stored parts entirely before the cut (kept) */
  keptParts: number;
  /** stored pings before the cut */
  pingsBefore: number;
}

/**
 * Finds, per trace, the first ping after the last gap > maxGapS at or before its first new ping.
 * Only the pings up to the first new one are read, each trace's through the primary key (`OFFSET
 * 0` keeps the lateral subquery from being flattened into a hash join over the whole table, which
 * the planner prefers while it underestimates how many traces the table holds).
 */
async function findTails(
  deps: ProbePipelineDeps,
  traceIds: readonly string[],
  firstNewS: ReadonlyMap<string, number>,
  maxGapS: number,
): Promise<Map<string, TraceTail>> {
  const ids = traceIds.filter((id) => firstNewS.has(id));
  const out = new Map<string, TraceTail>();
  if (ids.length === 0) return out;
  const res = await deps.db.query<{ trace_id: string; cut: number; kept: number; before: number }>(
    `WITH f AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS f(trace_id, from_s)),
     x AS (SELECT f.trace_id, p.t_s, p.t_s - lag(p.t_s) OVER (PARTITION BY f.trace_id ORDER BY p.t_s) AS gap
           FROM f CROSS JOIN LATERAL (SELECT t_s FROM probe_pings p WHERE p.trace_id = f.trace_id AND p.t_s <= f.from_s OFFSET 0) p),
     c AS (SELECT x.trace_id, max(x.t_s) AS cut FROM x WHERE x.gap > $3 GROUP BY x.trace_id)
     SELECT c.trace_id, c.cut,
       (SELECT count(*)::int FROM probe_traversals t WHERE t.map_version = $4 AND t.trace_id = c.trace_id AND t.seq = 0 AND t.enter_s < c.cut) AS kept,
       (SELECT count(*)::int FROM probe_pings p WHERE p.trace_id = c.trace_id AND p.t_s < c.cut) AS before
     FROM c`,
    [ids, ids.map((id) => firstNewS.get(id)), maxGapS, deps.mapVersion],
  );
  for (const r of res.rows)
    out.set(r.trace_id, { cutS: Number(r.cut), keptParts: Number(r.kept), pingsBefore: Number(r.before) });
  return out;
}

/**
 * Stores already-matched trajectories (replacing those of the same traces) and updates learned
 * and live speeds of the edges they touch.
 */
export async function processTrajectories(
  deps: ProbePipelineDeps,
  trajectories: readonly Trajectory[],
): Promise<ProcessReport> {
  const traceIds = [...new Set(trajectories.map((t) => t.traceId))];
  const r = await deps.db.transaction((tx) => replaceTraversals(tx, deps.graph, deps, traceIds, trajectories));
  const upd = await updateSpeedsForEdges(deps, r.edges, r.learnedBins);
  return {
    traces: traceIds.length,
    trajectories: trajectories.length,
    traversals: trajectories.reduce((n, t) => n + t.traversals.length, 0),
    unmatchedPings: 0,
    ...upd,
  };
}

/**
 * Reloads the learned bins `bins` (`learnedBinKey`: those the changed traversals updated) into the
 * feeds, and refreshes the live speeds of `edges` (every edge of the replaced traversals: their
 * window moves on with the clock).
 */
async function updateSpeedsForEdges(
  deps: ProbePipelineDeps,
  edges: Set<number>,
  bins: Set<number>,
): Promise<{ edgesUpdated: number; liveEdges: number }> {
  if (edges.size === 0) return { edgesUpdated: 0, liveEdges: 0 };
  if (bins.size > 0 && deps.feeds)
    await loadLearnedBins(deps.db, deps.graph, deps.feeds, deps.mapVersion, bins, deps.learned);
  const live = deps.liveWindowS === undefined ? {} : { windowS: deps.liveWindowS };
  const liveEdges = deps.feeds
    ? await refreshLiveSpeeds(deps.db, deps.feeds, deps.mapVersion, deps.nowS, edges, live)
    : await countLiveEdges(deps.db, deps.mapVersion, deps.nowS, edges, live);
  return { edgesUpdated: edges.size, liveEdges };
}

/**
 * Reads the stored pings of several traces (from each tail's cut when given, only those after
 * `after` when given), grouped by trace id, in time order; each trace's through the primary key
 * (see `findTails`).
 */
async function readPingsOf(
  db: Db,
  traceIds: readonly string[],
  tails: ReadonlyMap<string, TraceTail>,
  after: ReadonlyMap<string, number>,
): Promise<Map<string, Ping[]>> {
  const res = await db.query<{
    trace_id: string;
    t_s: number;
    lat: number;
    lon: number;
    speed_kph: number | null;
    heading_deg: number | null;
  }>(
    `SELECT p.trace_id, p.t_s, p.lat, p.lon, p.speed_kph, p.heading_deg
     FROM unnest($1::text[], $2::float8[], $3::float8[]) AS f(trace_id, cut_s, after_s)
     CROSS JOIN LATERAL (SELECT * FROM probe_pings p WHERE p.trace_id = f.trace_id
       AND p.t_s >= coalesce(f.cut_s, '-Infinity') AND p.t_s > coalesce(f.after_s, '-Infinity') OFFSET 0) p
     ORDER BY p.trace_id, p.t_s`,
    [traceIds, traceIds.map((id) => tails.get(id)?.cutS ?? null), traceIds.map((id) => after.get(id) ?? null)],
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

/**
 * Processes the traces an ingestion touched and clears their pending marks: for callers that
 * derive nothing else from the traversals. The server, the CLI and the demo also rebuild
 * intersection facts before clearing (`app/ingestion/process-stored.ts`).
 */
async function processAndClear(deps: ProbePipelineDeps, ingest: IngestReport): Promise<ProcessReport> {
  const r = await processTracesMarked(deps, ingest.touchedTraceIds, ingest.firstNewS);
  await clearPending(deps.db, r.marks);
  return r.report;
}

/** Ingests a stream and processes the traces that got new pings. */
export async function ingestAndProcess(
  deps: ProbePipelineDeps,
  input: Readable,
  opts: IngestOptions,
): Promise<{ ingest: IngestReport; process: ProcessReport }> {
  const ingest = await ingestProbeStream(deps.db, input, { mapVersion: deps.mapVersion, ...opts });
  return { ingest, process: await processAndClear(deps, ingest) };
}

/** Ingests records (request bodies, simulator output) and processes the traces that got new pings. */
export async function ingestRecordsAndProcess(
  deps: ProbePipelineDeps,
  records: AsyncIterable<ProbeRecord> | Iterable<ProbeRecord>,
  opts: Omit<IngestOptions, 'format'> = {},
): Promise<{ ingest: IngestReport; process: ProcessReport }> {
  const ingest = await ingestRecords(deps.db, records, { mapVersion: deps.mapVersion, ...opts });
  return { ingest, process: await processAndClear(deps, ingest) };
}
