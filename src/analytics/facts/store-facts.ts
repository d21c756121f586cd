/**
 * Persisting traversal facts: idempotent per (trace, part) — storing a trajectory's facts again
 * replaces the earlier ones, so re-ingesting or re-matching a trace never double counts. The
 * rollups (`rollup.ts`) of every touched 15-minute slice are recomputed in the same transaction.
 */
import type { Db, Queryable } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import type { Trajectory } from '../../probes/trajectory.js';
import { mapVersionOf } from '../catalog/catalog.js';
import { buildFacts, type Fact } from './build-facts.js';
import { addToRollups, rebuildRollupSlices, SliceSet } from './rollup.js';

/**
 * Advisory lock key serialising fact writers: rollup slices are recomputed from the facts a
 * transaction sees, so two concurrent writers of one slice must not interleave.
 */
export const FACT_WRITE_LOCK = 4_000_402;

/** Rows per INSERT statement. */
const BATCH_ROWS = 2000;

/** Options of `storeFacts`. */
export interface StoreFactsOptions {
  /** `YYYYMMDD` map version stored with each fact (availability reports it) */
  mapVersion?: string;
  /** trace parts whose previous facts are deleted first (defaults to the parts present in `facts`) */
  replace?: ReadonlyArray<{ traceId: string; part: number }>;
}

type SliceRow = { k: string; d: string; m: number };

async function deleteParts(tx: Queryable, parts: ReadonlyArray<{ traceId: string; part: number }>, slices: SliceSet): Promise<void> {
  for (let i = 0; i < parts.length; i += BATCH_ROWS) {
    const chunk = parts.slice(i, i + BATCH_ROWS);
    const res = await tx.query<SliceRow>(
      `WITH del AS (DELETE FROM analytics_fact f USING unnest($1::text[], $2::int[]) AS p(trace_id, part)
        WHERE f.trace_id = p.trace_id AND f.part = p.part RETURNING f.intersection_key, f.local_day, f.local_minute)
       SELECT DISTINCT intersection_key AS k, to_char(local_day, 'YYYY-MM-DD') AS d, (local_minute / 15 * 15)::int AS m FROM del`,
      [chunk.map((p) => p.traceId), chunk.map((p) => p.part)],
    );
    for (const r of res.rows) slices.add(r.k, r.d, Number(r.m));
  }
}

/** Slices of stored facts that `facts` will overwrite in place (same primary key, part not replaced). */
async function overwrittenSlices(tx: Queryable, facts: readonly Fact[], slices: SliceSet): Promise<void> {
  for (let i = 0; i < facts.length; i += BATCH_ROWS) {
    const c = facts.slice(i, i + BATCH_ROWS);
    const res = await tx.query<SliceRow>(
      `SELECT DISTINCT f.intersection_key AS k, to_char(f.local_day, 'YYYY-MM-DD') AS d, (f.local_minute / 15 * 15)::int AS m
         FROM analytics_fact f JOIN unnest($1::text[], $2::int[], $3::text[], $4::smallint[]) AS n(trace_id, part, ik, occ)
           ON f.trace_id = n.trace_id AND f.part = n.part AND f.intersection_key = n.ik AND f.occurrence = n.occ`,
      [c.map((f) => f.traceId), c.map((f) => f.part), c.map((f) => f.intersectionKey), c.map((f) => f.occurrence)],
    );
    for (const r of res.rows) slices.add(r.k, r.d, Number(r.m));
  }
}

/**
 * Stores `facts` in one transaction, replacing earlier facts of the same trace parts, and keeps
 * the rollups exact: 15-minute slices that lost or changed a fact are recomputed from the facts,
 * new facts in other slices are added to the rollup rows.
 * Fact writers are serialised by an advisory transaction lock. Returns the number of rows written.
 */
export async function storeFacts(db: Db, facts: readonly Fact[], opts: StoreFactsOptions = {}): Promise<number> {
  const parts = opts.replace ?? uniqueParts(facts);
  const mapVersion = opts.mapVersion ?? '';
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [FACT_WRITE_LOCK]);
    const slices = new SliceSet();
    await deleteParts(tx, parts, slices);
    if (opts.replace) await overwrittenSlices(tx, facts, slices);
    // slices that lost or changed a fact are recomputed from the facts (new ones included);
    // new facts in other slices are added to the rollups
    const added = facts.filter((f) => !slices.has(f.intersectionKey, f.localDay, f.localMinute));
    let written = 0;
    for (let i = 0; i < facts.length; i += BATCH_ROWS) {
      const c = facts.slice(i, i + BATCH_ROWS);
      const col = <T>(f: (x: Fact) => T): T[] => c.map(f);
      const res = await tx.query(
        `INSERT INTO analytics_fact (trace_id, part, intersection_key, occurrence, intersection_id, movement_id,
           in_edge, out_edge, entry_s, exit_s, local_day, local_minute, local_dow, zone_length_m, travel_time_s,
           free_flow_s, control_delay_s, stopped, stop_duration_s, approach_speed_kph, map_version)
         SELECT *, $20::text FROM unnest($1::text[], $2::int[], $3::text[], $4::smallint[], $5::bigint[], $6::int[],
           $7::int[], $8::int[], $9::float8[], $10::float8[], $11::date[], $12::smallint[], $13::smallint[],
           $14::real[], $15::real[], $16::real[], $17::real[], $18::boolean[], $19::real[], $21::real[])
         ON CONFLICT (trace_id, part, intersection_key, occurrence) DO UPDATE SET
           intersection_id = EXCLUDED.intersection_id, movement_id = EXCLUDED.movement_id,
           in_edge = EXCLUDED.in_edge, out_edge = EXCLUDED.out_edge, entry_s = EXCLUDED.entry_s,
           exit_s = EXCLUDED.exit_s, local_day = EXCLUDED.local_day, local_minute = EXCLUDED.local_minute,
           local_dow = EXCLUDED.local_dow, zone_length_m = EXCLUDED.zone_length_m,
           travel_time_s = EXCLUDED.travel_time_s, free_flow_s = EXCLUDED.free_flow_s,
           control_delay_s = EXCLUDED.control_delay_s, stopped = EXCLUDED.stopped,
           stop_duration_s = EXCLUDED.stop_duration_s, approach_speed_kph = EXCLUDED.approach_speed_kph,
           map_version = EXCLUDED.map_version`,
        [
          col((f) => f.traceId), col((f) => f.part), col((f) => f.intersectionKey), col((f) => f.occurrence),
          col((f) => f.intersectionId), col((f) => f.movementId), col((f) => f.inEdge), col((f) => f.outEdge),
          col((f) => f.entryS), col((f) => f.exitS), col((f) => f.localDay), col((f) => f.localMinute),
          col((f) => f.localDow), col((f) => f.zoneLengthM), col((f) => f.travelTimeS), col((f) => f.freeFlowS),
          col((f) => f.controlDelayS), col((f) => f.stopped), col((f) => f.stopDurationS), mapVersion,
          col((f) => f.approachSpeedKph),
        ],
      );
      written += res.rowCount || c.length;
    }
    await addToRollups(tx, added, mapVersion); // before the rebuild, which recomputes whole hours and months
    await rebuildRollupSlices(tx, slices.values());
    return written;
  });
}

function uniqueParts(facts: readonly Fact[]): Array<{ traceId: string; part: number }> {
  const seen = new Set<string>();
  const out: Array<{ traceId: string; part: number }> = [];
  for (const f of facts) {
    const k = `${f.part}\u0000${f.traceId}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ traceId: f.traceId, part: f.part });
  }
  return out;
}

/** Trajectories per build-and-store batch of `refreshFacts`. */
export const REFRESH_BATCH_TRAJECTORIES = 500;

/**
 * Source of matched trajectories for `refreshFacts`: a function of the database returning them all
 * (array or promise of one) or streaming them (async iterable, e.g. the probe store's
 * `readTrajectories(db, { sinceS, untilS })`).
 */
export type TrajectorySource = (db: Db) => Promise<readonly Trajectory[]> | readonly Trajectory[] | AsyncIterable<Trajectory>;

/**
 * Rebuilds the facts of every trajectory the source yields, in batches, replacing earlier facts
 * of the same trace parts (a trace part that no longer crosses any intersection loses its facts).
 * Call after probe ingestion or a simulation run. Returns counts.
 *
 * @example
 * await refreshFacts(ctx.db, ctx.region, (db) => readTrajectories(db, { sinceS, untilS }));
 */
export async function refreshFacts(db: Db, region: Region, readTrajectories: TrajectorySource): Promise<{ trajectories: number; facts: number }> {
  const mapVersion = mapVersionOf(region);
  let trajectories = 0;
  let facts = 0;
  const handle = async (batch: readonly Trajectory[]): Promise<void> => {
    if (batch.length === 0) return;
    trajectories += batch.length;
    const f = buildFacts(region, batch);
    facts += f.length;
    await storeFacts(db, f, { mapVersion, replace: batch.map((t) => ({ traceId: t.traceId, part: t.part })) });
  };
  const src = await readTrajectories(db);
  if (Symbol.asyncIterator in (src as object)) {
    // The source is suspended while a batch is stored, so a single-connection database is fine.
    let batch: Trajectory[] = [];
    for await (const t of src as AsyncIterable<Trajectory>) {
      batch.push(t);
      if (batch.length >= REFRESH_BATCH_TRAJECTORIES) { await handle(batch); batch = []; }
    }
    await handle(batch);
  } else {
    const arr = src as readonly Trajectory[];
    for (let i = 0; i < arr.length; i += REFRESH_BATCH_TRAJECTORIES) await handle(arr.slice(i, i + REFRESH_BATCH_TRAJECTORIES));
  }
  return { trajectories, facts };
}
