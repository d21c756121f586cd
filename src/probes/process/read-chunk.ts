/**
 * Processing step 1: what matching a chunk of traces needs, read from the database — each trace's
 * pending mark (read before its pings: pings stored after this read keep the trace pending), where
 * its re-matching starts (the tail after the last time gap before its earliest unprocessed ping:
 * the matcher always splits at such gaps, so the parts before it cannot change), the owner's
 * memory of it, and its pings from the tail on (only the new ones where a matching state goes on).
 */
import type { Queryable } from '../../store/db.js';
import { readPending, type PendingMark } from '../ingest/pending.js';
import { pingOf } from '../ingest/ping-store.js';
import type { Ping } from '../trajectory.js';
import type { MatchCache, TraceMemory, TraceTail } from './match-cache.js';

/** Where a chunk's data lives: the region of its pings and the map version of its traversals. */
export interface ChunkScope {
  region: string;
  mapVersion: string;
  /** the matcher's largest time gap inside one trajectory, seconds */
  maxGapS: number;
}

/** A chunk ready to be matched. */
export interface ChunkInput {
  /** traces with a pending mark, in the order asked */
  traceIds: string[];
  marks: PendingMark[];
  tails: Map<string, TraceTail>;
  memories: Map<string, TraceMemory>;
  pings: Map<string, Ping[]>;
}

/** Reads the chunk `traceIds` (traces without a pending mark are left out). */
export async function readChunk(
  db: Queryable,
  scope: ChunkScope,
  traceIds: readonly string[],
  cache?: MatchCache,
): Promise<ChunkInput> {
  const marks = await readPending(db, scope.region, traceIds);
  const from = new Map(marks.map((m) => [m.traceId, m.fromS]));
  const ids = traceIds.filter((id) => from.has(id));
  const memories = new Map<string, TraceMemory>();
  for (const id of ids) {
    const m = cache?.take(id);
    if (m !== undefined) memories.set(id, m);
  }
  const tails = await tailsOf(db, scope, ids, from, memories);
  const after = resumable(memories, tails, from);
  const pings = await readPingsOf(db, scope.region, ids, tails, after);
  for (const id of after.keys()) {
    // the consumed prefix stands in by its times only: the state resumes after it
    const prefix: Ping[] = memories.get(id)!.state.consumed.map((tS) => ({ tS, lat: Number.NaN, lon: Number.NaN }));
    pings.set(id, prefix.concat(pings.get(id) ?? []));
  }
  return { traceIds: ids, marks, tails, memories, pings };
}

/**
 * The tails of `ids`: a remembered tail stays where it was when the new pings follow what the
 * state consumed without a gap and no gap opened inside it; the others are looked up.
 */
async function tailsOf(
  db: Queryable,
  scope: ChunkScope,
  ids: readonly string[],
  from: ReadonlyMap<string, number>,
  memories: ReadonlyMap<string, TraceMemory>,
): Promise<Map<string, TraceTail>> {
  const tails = new Map<string, TraceTail>();
  const ask: string[] = [];
  for (const id of ids) {
    const m = memories.get(id);
    const c = m?.state.consumed;
    const firstNew = from.get(id)!;
    let same = m !== undefined && c !== undefined && c.length > 0;
    if (same) same = firstNew > c![c!.length - 1] && firstNew - c![c!.length - 1] <= scope.maxGapS;
    for (let i = 1; same && i < c!.length; i++) if (c![i] - c![i - 1] > scope.maxGapS) same = false;
    if (!same) ask.push(id);
    else if (m!.tail !== null) tails.set(id, m!.tail);
  }
  for (const [id, t] of await findTails(db, scope, ask, from)) tails.set(id, t);
  return tails;
}

/**
 * Traces whose remembered state consumed every stored ping before their earliest new one: the
 * time of the last ping it consumed (their pings are read from there on).
 */
function resumable(
  memories: ReadonlyMap<string, TraceMemory>,
  tails: ReadonlyMap<string, TraceTail>,
  from: ReadonlyMap<string, number>,
): Map<string, number> {
  const after = new Map<string, number>();
  for (const [id, memory] of memories) {
    const st = memory.state;
    const tail = tails.get(id);
    const firstNew = from.get(id);
    const lastS = st.consumed.length > 0 ? st.consumed[st.consumed.length - 1] : undefined;
    // same tail, and every ping stored since the state was made is later than what it consumed
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
  return after;
}

/**
 * Finds, per trace, the first ping after the last gap > maxGapS at or before its first new ping.
 * Only the pings up to the first new one are read, each trace's through the primary key (`OFFSET
 * 0` keeps the lateral subquery from being flattened into a hash join over the whole table, which
 * the planner prefers while it underestimates how many traces the table holds).
 */
async function findTails(
  db: Queryable,
  scope: ChunkScope,
  traceIds: readonly string[],
  firstNewS: ReadonlyMap<string, number>,
): Promise<Map<string, TraceTail>> {
  const out = new Map<string, TraceTail>();
  if (traceIds.length === 0) return out;
  const res = await db.query<{ trace_id: string; cut: number; kept: number; before: number }>(
    `WITH f AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS f(trace_id, from_s)),
     x AS (SELECT f.trace_id, p.t_s, p.t_s - lag(p.t_s) OVER (PARTITION BY f.trace_id ORDER BY p.t_s) AS gap
           FROM f CROSS JOIN LATERAL (SELECT t_s FROM probe_pings p
             WHERE p.region = $5 AND p.trace_id = f.trace_id AND p.t_s <= f.from_s OFFSET 0) p),
     c AS (SELECT x.trace_id, max(x.t_s) AS cut FROM x WHERE x.gap > $3 GROUP BY x.trace_id)
     SELECT c.trace_id, c.cut,
       (SELECT count(*)::int FROM probe_traversals t
         WHERE t.map_version = $4 AND t.trace_id = c.trace_id AND t.seq = 0 AND t.enter_s < c.cut) AS kept,
       (SELECT count(*)::int FROM probe_pings p WHERE p.region = $5 AND p.trace_id = c.trace_id AND p.t_s < c.cut) AS before
     FROM c`,
    [traceIds, traceIds.map((id) => firstNewS.get(id)), scope.maxGapS, scope.mapVersion, scope.region],
  );
  for (const r of res.rows) {
    out.set(r.trace_id, { cutS: Number(r.cut), keptParts: Number(r.kept), pingsBefore: Number(r.before) });
  }
  return out;
}

/**
 * Reads the stored pings of several traces (from each tail's cut when given, only those after
 * `after` when given), grouped by trace id, in time order; each trace's through the primary key.
 */
async function readPingsOf(
  db: Queryable,
  region: string,
  traceIds: readonly string[],
  tails: ReadonlyMap<string, TraceTail>,
  after: ReadonlyMap<string, number>,
): Promise<Map<string, Ping[]>> {
  const out = new Map<string, Ping[]>();
  if (traceIds.length === 0) return out;
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
     CROSS JOIN LATERAL (SELECT * FROM probe_pings p WHERE p.region = $4 AND p.trace_id = f.trace_id
       AND p.t_s >= coalesce(f.cut_s, '-Infinity') AND p.t_s > coalesce(f.after_s, '-Infinity') OFFSET 0) p
     ORDER BY p.trace_id, p.t_s`,
    [traceIds, traceIds.map((id) => tails.get(id)?.cutS ?? null), traceIds.map((id) => after.get(id) ?? null), region],
  );
  for (const r of res.rows) {
    let list = out.get(r.trace_id);
    if (list === undefined) out.set(r.trace_id, (list = []));
    list.push(pingOf(r));
  }
  return out;
}
