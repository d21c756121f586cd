/**
 * Traces with stored but unprocessed pings (`probe_pending`), per region. `insertPings` marks a
 * trace in the statement that stores its pings and bumps the mark's version `n`; the owner of the
 * trace's partition reads the marks before it reads the pings (`readPending`) and, in the
 * transaction that stores what it derived, deletes each mark it read whose version is unchanged
 * — or records the version it processed (`cleared_n`) when more pings arrived meanwhile, so the
 * mark stays for them (`clearPending`). Anyone may wait for marks it left (`pendingLeft`).
 */
import type { Queryable } from '../../store/db.js';

/** A pending mark as a processor read it. */
export interface PendingMark {
  traceId: string;
  /** earliest unprocessed ping, unix seconds */
  fromS: number;
  /** the mark's version when read */
  n: number;
}

/** A mark as the batch that left it saw it: processed once gone, replaced, or cleared through `n`. */
export interface PendingRef {
  traceId: string;
  /** the mark's identity (a later mark of the same trace has another) */
  born: number;
  /** its version after the batch */
  n: number;
}

/**
 * Up to `limit` traces of `region` with pending marks in `partitions` (all partitions when
 * omitted), oldest mark first.
 */
export async function listPending(
  db: Queryable,
  region: string,
  limit: number,
  partitions?: readonly number[],
): Promise<string[]> {
  const r = await db.query<{ trace_id: string }>(
    `SELECT trace_id FROM probe_pending
     WHERE region = $1 AND ($3::smallint[] IS NULL OR part = ANY($3::smallint[]))
     ORDER BY marked_at, trace_id LIMIT $2`,
    [region, limit, partitions === undefined ? null : `{${partitions.join(',')}}`],
  );
  return r.rows.map((x) => x.trace_id);
}

/** The pending marks of `traceIds` in `region` (traces without one are not returned). */
export async function readPending(db: Queryable, region: string, traceIds: readonly string[]): Promise<PendingMark[]> {
  if (traceIds.length === 0) return [];
  const r = await db.query<{ trace_id: string; from_s: number; n: number }>(
    'SELECT trace_id, from_s, n FROM probe_pending WHERE region = $1 AND trace_id = ANY($2::text[])',
    [region, traceIds],
  );
  return r.rows.map((x) => ({ traceId: x.trace_id, fromS: Number(x.from_s), n: Number(x.n) }));
}

/**
 * Marks processed: deletes every mark of `marks` whose version is still the one read, and records
 * the version processed on the others (pings stored since keep them pending). Call in the
 * transaction that stores what was derived from the pings.
 */
export async function clearPending(tx: Queryable, region: string, marks: readonly PendingMark[]): Promise<void> {
  if (marks.length === 0) return;
  const ids = marks.map((m) => m.traceId);
  const ns = `{${marks.map((m) => m.n).join(',')}}`;
  // lock the marks in trace id order first, the order `insertPings` writes them in, so a batch
  // being stored and a chunk being cleared never wait for each other in a cycle
  await tx.query(
    `SELECT 1 FROM probe_pending WHERE region = $1 AND trace_id = ANY($2::text[])
     ORDER BY trace_id FOR UPDATE`,
    [region, ids],
  );
  await tx.query(
    `DELETE FROM probe_pending p USING unnest($2::text[], $3::int[]) AS m(trace_id, n)
     WHERE p.region = $1 AND p.trace_id = m.trace_id AND p.n = m.n`,
    [region, ids, ns],
  );
  await tx.query(
    `UPDATE probe_pending p SET cleared_n = m.n FROM unnest($2::text[], $3::int[]) AS m(trace_id, n)
     WHERE p.region = $1 AND p.trace_id = m.trace_id AND p.cleared_n < m.n`,
    [region, ids, ns],
  );
}

/** How many of `refs` (marks left by batches of `region`) are not processed yet. */
export async function pendingLeft(db: Queryable, region: string, refs: readonly PendingRef[]): Promise<number> {
  if (refs.length === 0) return 0;
  const r = await db.query<{ left: number }>(
    `SELECT count(*)::int AS left FROM unnest($2::text[], $3::bigint[], $4::int[]) AS w(trace_id, born, n)
     JOIN probe_pending p ON p.region = $1 AND p.trace_id = w.trace_id AND p.born = w.born AND p.cleared_n < w.n`,
    [
      region,
      refs.map((x) => x.traceId),
      `{${refs.map((x) => x.born).join(',')}}`,
      `{${refs.map((x) => x.n).join(',')}}`,
    ],
  );
  return Number(r.rows[0].left);
}

/** The pending marks of `traceIds` in `region` now, to wait until they are processed (`pendingLeft`). */
export async function pendingRefsOf(db: Queryable, region: string, traceIds: readonly string[]): Promise<PendingRef[]> {
  if (traceIds.length === 0) return [];
  const r = await db.query<{ trace_id: string; born: number; n: number }>(
    'SELECT trace_id, born, n FROM probe_pending WHERE region = $1 AND trace_id = ANY($2::text[])',
    [region, traceIds],
  );
  return r.rows.map((x) => ({ traceId: x.trace_id, born: Number(x.born), n: Number(x.n) }));
}

/** Every pending mark of `region` now, to wait until all of them are processed (`pendingLeft`). */
export async function pendingNow(db: Queryable, region: string): Promise<PendingRef[]> {
  const r = await db.query<{ trace_id: string; born: number; n: number }>(
    'SELECT trace_id, born, n FROM probe_pending WHERE region = $1',
    [region],
  );
  return r.rows.map((x) => ({ traceId: x.trace_id, born: Number(x.born), n: Number(x.n) }));
}

/**
 * Keeps the newest ref of each trace (a body stored in several batches leaves several per trace).
 */
export function latestRefs(refs: Iterable<PendingRef>): PendingRef[] {
  const by = new Map<string, PendingRef>();
  for (const r of refs) {
    const o = by.get(r.traceId);
    if (o === undefined || r.born > o.born || (r.born === o.born && r.n > o.n)) by.set(r.traceId, r);
  }
  return [...by.values()];
}

/** Number of pending traces of `region` (all regions when omitted) and the age of the oldest mark, seconds. */
export async function pendingBacklog(db: Queryable, region?: string): Promise<{ traces: number; oldestS: number }> {
  const r = await db.query<{ traces: number; oldest_s: number | null }>(
    `SELECT count(*)::int AS traces, extract(epoch FROM now() - min(marked_at))::float8 AS oldest_s
     FROM probe_pending WHERE $1::text IS NULL OR region = $1`,
    [region ?? null],
  );
  return { traces: Number(r.rows[0].traces), oldestS: Number(r.rows[0].oldest_s ?? 0) };
}

/** The NOTIFY channel that wakes ingestion workers after pings were stored (payload: the region). */
export const PROBES_CHANNEL = 'streetwise_probes';

/** Wakes the workers of `region` (a hint: they also look for pending marks every second). */
export async function notifyStored(db: Queryable, region: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [PROBES_CHANNEL, region]);
}
