/**
 * Traces with stored but unprocessed pings (`probe_pending`). `insertPings` marks a trace in the
 * same statement that stores its pings; a processor reads the marks before it reads the pings
 * (`readPending`) and deletes them once everything derived is stored (`clearPending`), but only
 * marks no batch has touched since: pings that arrived meanwhile keep their trace pending.
 */
import type { Queryable } from '../../store/db.js';

/** A pending mark as a processor read it. */
export interface PendingMark {
  traceId: string;
  /** earliest unprocessed ping, unix seconds */
  fromS: number;
  /** the mark's generation: the row is cleared only while it still has this value */
  n: number;
}

/** The pending marks of `traceIds` (traces without one are not returned). */
export async function readPending(db: Queryable, traceIds: readonly string[]): Promise<PendingMark[]> {
  if (traceIds.length === 0) return [];
  const r = await db.query<{ trace_id: string; from_s: number; n: number }>(
    'SELECT trace_id, from_s, n FROM probe_pending WHERE trace_id = ANY($1::text[])',
    [traceIds],
  );
  return r.rows.map((x) => ({ traceId: x.trace_id, fromS: Number(x.from_s), n: Number(x.n) }));
}

/**
 * Trace ids marked longer than `olderThanS` seconds ago for region `mapVersion` (or any region),
 * oldest first, at most `limit`: work a failed or interrupted batch left behind (younger marks
 * belong to batches still under way).
 */
export async function listStalePending(
  db: Queryable,
  olderThanS: number,
  limit: number,
  mapVersion: string,
): Promise<string[]> {
  const r = await db.query<{ trace_id: string }>(
    `SELECT trace_id FROM probe_pending
     WHERE marked_at < now() - make_interval(secs => $1) AND map_version IN ($3, '')
     ORDER BY marked_at LIMIT $2`,
    [olderThanS, limit, mapVersion],
  );
  return r.rows.map((x) => x.trace_id);
}

/** Number of pending traces and the age of the oldest mark, seconds (0 when none). */
export async function pendingBacklog(db: Queryable): Promise<{ traces: number; oldestS: number }> {
  const r = await db.query<{ traces: number; oldest_s: number | null }>(
    'SELECT count(*)::int AS traces, extract(epoch FROM now() - min(marked_at))::float8 AS oldest_s FROM probe_pending',
  );
  return { traces: Number(r.rows[0].traces), oldestS: Number(r.rows[0].oldest_s ?? 0) };
}

/** Deletes the marks that are unchanged since they were read; returns how many were deleted. */
export async function clearPending(db: Queryable, marks: readonly PendingMark[]): Promise<number> {
  if (marks.length === 0) return 0;
  const r = await db.query(
    `DELETE FROM probe_pending p USING unnest($1::text[], $2::int[]) AS m(trace_id, n)
     WHERE p.trace_id = m.trace_id AND p.n = m.n`,
    [marks.map((m) => m.traceId), marks.map((m) => m.n)],
  );
  return r.rowCount;
}
