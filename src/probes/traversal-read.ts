/**
 * Reads stored trajectories back from `probe_traversals` (written by `traversal-store.ts`), a page
 * of trajectories at a time.
 */
import type { Queryable } from '../store/db.js';
import type { MatchedPing, Trajectory } from './trajectory.js';

/** Filter of `readTrajectories`: trajectories with any traversal overlapping [sinceS, untilS). */
export interface TrajectoryQuery {
  /** unix seconds, inclusive */
  sinceS?: number;
  /** unix seconds, exclusive */
  untilS?: number;
  /** only this map version (default: all) */
  mapVersion?: string;
  /** only these traces (default: all) */
  traceIds?: readonly string[];
  /** trajectories per database round trip (default 500) */
  pageSize?: number;
}

interface TraversalRow {
  trace_id: string;
  part: number;
  seq: number;
  edge_id: number;
  enter_s: number;
  exit_s: number;
  covered: number;
  pings: Array<Record<string, number>> | string;
}

/**
 * Reads stored trajectories, ordered by trace id and part, a page at a time (constant memory).
 * @example
 * for await (const t of readTrajectories(db, { sinceS: day, untilS: day + 86400 })) facts.add(t);
 */
export async function* readTrajectories(db: Queryable, q: TrajectoryQuery = {}): AsyncGenerator<Trajectory> {
  const pageSize = q.pageSize ?? 500;
  let afterTrace = '';
  let afterPart = -1;
  for (;;) {
    const keys = await db.query<{ trace_id: string; part: number }>(
      `SELECT trace_id, part FROM probe_traversals
       WHERE (trace_id, part) > ($1, $2)
         AND ($3::float8 IS NULL OR exit_s >= $3) AND ($4::float8 IS NULL OR enter_s < $4)
         AND ($5::text IS NULL OR map_version = $5)
         AND ($7::text[] IS NULL OR trace_id = ANY($7::text[]))
       GROUP BY trace_id, part ORDER BY trace_id, part LIMIT $6`,
      [afterTrace, afterPart, q.sinceS ?? null, q.untilS ?? null, q.mapVersion ?? null, pageSize, q.traceIds ?? null],
    );
    if (keys.rows.length === 0) return;
    const last = keys.rows[keys.rows.length - 1];
    const rows = await db.query<TraversalRow>(
      `SELECT t.trace_id, t.part, t.seq, t.edge_id, t.enter_s, t.exit_s, t.covered, t.pings
       FROM probe_traversals t
       JOIN unnest($1::text[], $2::int[]) AS k(trace_id, part) ON k.trace_id = t.trace_id AND k.part = t.part
       WHERE ($3::text IS NULL OR t.map_version = $3)
       ORDER BY t.trace_id, t.part, t.seq`,
      [keys.rows.map((r) => r.trace_id), keys.rows.map((r) => Number(r.part)), q.mapVersion ?? null],
    );
    let cur: Trajectory | undefined;
    for (const r of rows.rows) {
      const part = Number(r.part);
      if (cur === undefined || cur.traceId !== r.trace_id || cur.part !== part) {
        if (cur !== undefined) yield cur;
        cur = { traceId: r.trace_id, part, traversals: [] };
      }
      const edge = Number(r.edge_id);
      const pings = (typeof r.pings === 'string' ? JSON.parse(r.pings) : r.pings) as Array<Record<string, number>>;
      cur.traversals.push({
        edge,
        enterS: Number(r.enter_s),
        exitS: Number(r.exit_s),
        coveredFraction: Number(r.covered),
        pings: pings.map((p) => ({ ...p, edge }) as unknown as MatchedPing),
      });
    }
    if (cur !== undefined) yield cur;
    afterTrace = last.trace_id;
    afterPart = Number(last.part);
    if (keys.rows.length < pageSize) return;
  }
}
