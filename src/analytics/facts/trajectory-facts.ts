/**
 * Facts of matched trajectories, as the probe ingestion and the operator's rebuild write them.
 * Both take the fact writers' lock (`FACT_WRITE_LOCK`) before they read what they derive from, so
 * a rebuild never writes facts older than those an ingestion commits beside it.
 */
import type { Db, Queryable } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import type { Trajectory } from '../../probes/trajectory.js';
import { readTrajectories } from '../../probes/traversal-read.js';
import { mapVersionOf } from '../catalog/catalog.js';
import { buildFacts } from './build-facts.js';
import { storedFactInputs } from './fact-inputs.js';
import { refreshFreeFlow } from './free-flow.js';
import { FACT_WRITE_LOCK, storeFactsIn } from './store-facts.js';

/** Traces per transaction of `rebuildFacts`. */
const REBUILD_TRACES = 200;

/**
 * Replaces the facts of the trace parts of `trajectories` (region `region`) by the facts built from
 * them, and deletes those of `removedParts` (parts a re-match no longer has), inside the caller's
 * transaction. Free flow comes from the stored observed speeds (`storedFreeFlow`), arrivals on
 * green from the stored controller logs (`storedSignalTiming`). Returns the number of facts built.
 */
export async function storeTrajectoryFacts(
  tx: Queryable,
  region: Region,
  trajectories: readonly Trajectory[],
  removedParts: ReadonlyArray<{ traceId: string; part: number }> = [],
): Promise<number> {
  if (trajectories.length === 0 && removedParts.length === 0) return 0;
  const facts = buildFacts(region, trajectories, await storedFactInputs(tx, region, trajectories));
  await storeFactsIn(tx, facts, {
    mapVersion: mapVersionOf(region),
    region: region.meta.name,
    replace: [...trajectories.map((t) => ({ traceId: t.traceId, part: t.part })), ...removedParts],
  });
  return facts.length;
}

/**
 * Rebuilds the facts of every stored trajectory of `region`'s map version overlapping
 * [sinceS, untilS) (all when omitted), a page of traces per transaction: the page's trajectories are
 * read after the fact writers' lock is taken, in the same transaction as their facts are written.
 * The observed free-flow speeds are recomputed first, from every stored traversal.
 * @example
 * const r = await rebuildFacts(db, region, { sinceS: day, untilS: day + 86_400 });
 */
export async function rebuildFacts(
  db: Db,
  region: Region,
  range: { sinceS?: number; untilS?: number } = {},
): Promise<{ trajectories: number; facts: number }> {
  const mapVersion = region.meta.mapVersion;
  const total = { trajectories: 0, facts: 0 };
  await refreshFreeFlow(db, region);
  let after = '';
  for (;;) {
    const page = await db.query<{ trace_id: string }>(
      `SELECT DISTINCT trace_id FROM probe_traversals
       WHERE map_version = $1 AND trace_id > $2
         AND ($3::float8 IS NULL OR exit_s >= $3) AND ($4::float8 IS NULL OR enter_s < $4)
       ORDER BY trace_id LIMIT $5`,
      [mapVersion, after, range.sinceS ?? null, range.untilS ?? null, REBUILD_TRACES],
    );
    if (page.rows.length === 0) return total;
    const traceIds = page.rows.map((r) => r.trace_id);
    after = traceIds[traceIds.length - 1];
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [FACT_WRITE_LOCK]);
      const trajectories: Trajectory[] = [];
      for await (const t of readTrajectories(tx, { ...range, mapVersion, traceIds })) trajectories.push(t);
      total.trajectories += trajectories.length;
      total.facts += await storeTrajectoryFacts(tx, region, trajectories);
    });
    if (traceIds.length < REBUILD_TRACES) return total;
  }
}

/**
 * Gives facts stored before facts were keyed by region (region '') to `region`: the region
 * served after the upgrade. Returns the number of facts adopted.
 */
export async function adoptUnassignedFacts(db: Queryable, region: string): Promise<number> {
  const r = await db.query(`UPDATE analytics_fact SET region = $1 WHERE region = ''`, [region]);
  return r.rowCount;
}
