/**
 * Persisting traversal facts: idempotent per (trace, part) — storing a trajectory's facts again
 * replaces the earlier ones, so re-ingesting or re-matching a trace never double counts. The
 * rollups (`rollup.ts`) of every touched 15-minute slice are recomputed in the same transaction.
 */
import type { Db, Queryable } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import type { Trajectory } from '../../probes/trajectory.js';
import { mapVersionOf } from '../catalog/catalog.js';
import { storedFactInputs } from './fact-inputs.js';
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
  /** name of the region the facts' traces belong to (default ''): trace ids are per region */
  region?: string;
  /** trace parts whose previous facts are deleted first (defaults to the parts present in `facts`) */
  replace?: ReadonlyArray<{ traceId: string; part: number }>;
}

/** A stored fact as read back for comparison: its slice and every stored column. */
interface StoredFactRow {
  trace_id: string;
  part: number;
  intersection_key: string;
  occurrence: number;
  intersection_id: string | number;
  movement_id: number;
  in_edge: number;
  out_edge: number;
  entry_s: number;
  exit_s: number;
  d: string;
  local_minute: number;
  local_dow: number;
  zone_length_m: number;
  travel_time_s: number;
  free_flow_s: number;
  control_delay_s: number;
  stopped: boolean;
  stop_duration_s: number;
  approach_speed_kph: number | null;
  arrived_on_green: boolean | null;
  map_version: string;
}

function factKey(traceId: string, part: number, intersectionKey: string, occurrence: number): string {
  return `${traceId}\u0000${part}\u0000${intersectionKey}\u0000${occurrence}`;
}

/** The stored facts of `parts` of region `region`, by key. */
async function storedFacts(
  tx: Queryable,
  region: string,
  parts: ReadonlyArray<{ traceId: string; part: number }>,
): Promise<Map<string, StoredFactRow>> {
  const out = new Map<string, StoredFactRow>();
  for (let i = 0; i < parts.length; i += BATCH_ROWS) {
    const chunk = parts.slice(i, i + BATCH_ROWS);
    const res = await tx.query<StoredFactRow>(
      `SELECT f.trace_id, f.part, f.intersection_key, f.occurrence, f.intersection_id, f.movement_id, f.in_edge, f.out_edge,
         f.entry_s, f.exit_s, to_char(f.local_day, 'YYYY-MM-DD') AS d, f.local_minute, f.local_dow, f.zone_length_m,
         f.travel_time_s, f.free_flow_s, f.control_delay_s, f.stopped, f.stop_duration_s, f.approach_speed_kph, f.arrived_on_green, f.map_version
       FROM analytics_fact f JOIN unnest($1::text[], $2::int[]) AS p(trace_id, part) ON f.trace_id = p.trace_id AND f.part = p.part
       WHERE f.region = $3`,
      [chunk.map((p) => p.traceId), chunk.map((p) => p.part), region],
    );
    for (const r of res.rows) out.set(factKey(r.trace_id, Number(r.part), r.intersection_key, Number(r.occurrence)), r);
  }
  return out;
}

/** `real` columns hold single precision: a value is unchanged when it rounds to the stored one. */
const sameReal = (a: number, b: number | string): boolean => Math.fround(a) === Math.fround(Number(b));

/** Whether `f` (with `mapVersion`) is exactly what `r` holds, column by column. */
function sameFact(f: Fact, r: StoredFactRow, mapVersion: string): boolean {
  return (
    String(f.intersectionId) === String(r.intersection_id) &&
    f.movementId === Number(r.movement_id) &&
    f.inEdge === Number(r.in_edge) &&
    f.outEdge === Number(r.out_edge) &&
    f.entryS === Number(r.entry_s) &&
    f.exitS === Number(r.exit_s) &&
    f.localDay === r.d &&
    f.localMinute === Number(r.local_minute) &&
    f.localDow === Number(r.local_dow) &&
    sameReal(f.zoneLengthM, r.zone_length_m) &&
    sameReal(f.travelTimeS, r.travel_time_s) &&
    sameReal(f.freeFlowS, r.free_flow_s) &&
    sameReal(f.controlDelayS, r.control_delay_s) &&
    f.stopped === r.stopped &&
    sameReal(f.stopDurationS, r.stop_duration_s) &&
    (f.approachSpeedKph === null
      ? r.approach_speed_kph === null
      : r.approach_speed_kph !== null && sameReal(f.approachSpeedKph, r.approach_speed_kph)) &&
    (f.arrivedOnGreen ?? null) === r.arrived_on_green &&
    mapVersion === r.map_version
  );
}

/**
 * Stores `facts` in one transaction as the whole new content of the trace parts in `replace`
 * (default: the parts of `facts`; a fact of another part overwrites the stored one of the same key
 * in place), writing only the difference to what is stored: facts that are gone are deleted,
 * new and changed ones are upserted, identical ones are left alone. The rollups stay exact:
 * 15-minute slices that lost or changed a fact are recomputed from the facts, new facts in other
 * slices are added to the rollup rows. A growing trace re-stored after each batch of pings so
 * touches only its last crossings and their slices. The table ends exactly as after deleting the
 * replaced parts and upserting `facts`. Fact writers are serialised by an advisory transaction lock.
 * Returns the number of rows written (inserted or changed).
 */
export async function storeFacts(db: Db, facts: readonly Fact[], opts: StoreFactsOptions = {}): Promise<number> {
  return db.transaction((tx) => storeFactsIn(tx, facts, opts));
}

/**
 * `storeFacts` inside the caller's transaction `tx` (the ingestion commits a chunk's traversals,
 * facts and change announcement together). Takes the fact writers' advisory lock until `tx` ends.
 */
export async function storeFactsIn(
  tx: Queryable,
  facts: readonly Fact[],
  opts: StoreFactsOptions = {},
): Promise<number> {
  const replaced = opts.replace ?? uniqueParts(facts);
  const replacedSet = new Set(replaced.map((p) => `${p.part}\u0000${p.traceId}`));
  const mapVersion = opts.mapVersion ?? '';
  const region = opts.region ?? '';
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [FACT_WRITE_LOCK]);
  // the replaced parts, and the facts' own parts (a fact of another part overwrites in place)
  const stored = await storedFacts(tx, region, uniqueParts([...replaced, ...facts]));
  const slices = new SliceSet();
  const write: Fact[] = [];
  for (const f of facts) {
    const k = factKey(f.traceId, f.part, f.intersectionKey, f.occurrence);
    const r = stored.get(k);
    if (r === undefined) {
      write.push(f);
      continue;
    }
    stored.delete(k);
    if (sameFact(f, r, mapVersion)) continue;
    slices.add(r.intersection_key, r.d, Number(r.local_minute)); // its old slice loses it
    write.push(f);
  }
  // what is left of the replaced parts' stored facts is gone from their new content
  const gone = [...stored.values()].filter((r) => replacedSet.has(`${Number(r.part)}\u0000${r.trace_id}`));
  for (const r of gone) slices.add(r.intersection_key, r.d, Number(r.local_minute));
  await deleteFacts(tx, region, gone);
  // slices that lost or changed a fact are recomputed from the facts (new ones included);
  // new facts in other slices are added to the rollups
  const added = write.filter((f) => !slices.has(f.intersectionKey, f.localDay, f.localMinute));
  const written = await upsertFacts(tx, write, mapVersion, region);
  await addToRollups(tx, added, mapVersion); // before the rebuild, which recomputes whole hours and months
  await rebuildRollupSlices(tx, slices.values());
  return written;
}

/** Deletes the stored facts `gone` of `region`, in batches. */
async function deleteFacts(tx: Queryable, region: string, gone: readonly StoredFactRow[]): Promise<void> {
  for (let i = 0; i < gone.length; i += BATCH_ROWS) {
    const c = gone.slice(i, i + BATCH_ROWS);
    await tx.query(
      `DELETE FROM analytics_fact f USING unnest($1::text[], $2::int[], $3::text[], $4::smallint[]) AS g(trace_id, part, ik, occ)
       WHERE f.region = $5 AND f.trace_id = g.trace_id AND f.part = g.part AND f.intersection_key = g.ik AND f.occurrence = g.occ`,
      [
        c.map((r) => r.trace_id),
        c.map((r) => Number(r.part)),
        c.map((r) => r.intersection_key),
        c.map((r) => Number(r.occurrence)),
        region,
      ],
    );
  }
}

const UPSERT_FACTS = `INSERT INTO analytics_fact (trace_id, part, intersection_key, occurrence, intersection_id, movement_id,
         in_edge, out_edge, entry_s, exit_s, local_day, local_minute, local_dow, zone_length_m, travel_time_s,
         free_flow_s, control_delay_s, stopped, stop_duration_s, approach_speed_kph, arrived_on_green, map_version, region)
       SELECT *, $20::text, $22::text FROM unnest($1::text[], $2::int[], $3::text[], $4::smallint[], $5::bigint[], $6::int[],
         $7::int[], $8::int[], $9::float8[], $10::float8[], $11::date[], $12::smallint[], $13::smallint[],
         $14::real[], $15::real[], $16::real[], $17::real[], $18::boolean[], $19::real[], $21::real[], $23::boolean[])
       ON CONFLICT (region, trace_id, part, intersection_key, occurrence) DO UPDATE SET
         intersection_id = EXCLUDED.intersection_id, movement_id = EXCLUDED.movement_id,
         in_edge = EXCLUDED.in_edge, out_edge = EXCLUDED.out_edge, entry_s = EXCLUDED.entry_s,
         exit_s = EXCLUDED.exit_s, local_day = EXCLUDED.local_day, local_minute = EXCLUDED.local_minute,
         local_dow = EXCLUDED.local_dow, zone_length_m = EXCLUDED.zone_length_m,
         travel_time_s = EXCLUDED.travel_time_s, free_flow_s = EXCLUDED.free_flow_s,
         control_delay_s = EXCLUDED.control_delay_s, stopped = EXCLUDED.stopped,
         stop_duration_s = EXCLUDED.stop_duration_s, approach_speed_kph = EXCLUDED.approach_speed_kph,
         arrived_on_green = EXCLUDED.arrived_on_green, map_version = EXCLUDED.map_version`;

/** Inserts or updates `write` in batches; returns the rows written. */
async function upsertFacts(tx: Queryable, write: readonly Fact[], mapVersion: string, region: string): Promise<number> {
  let written = 0;
  for (let i = 0; i < write.length; i += BATCH_ROWS) {
    const c = write.slice(i, i + BATCH_ROWS);
    const col = <T>(f: (x: Fact) => T): T[] => c.map(f);
    const res = await tx.query(UPSERT_FACTS, [
      col((f) => f.traceId),
      col((f) => f.part),
      col((f) => f.intersectionKey),
      col((f) => f.occurrence),
      col((f) => f.intersectionId),
      col((f) => f.movementId),
      col((f) => f.inEdge),
      col((f) => f.outEdge),
      col((f) => f.entryS),
      col((f) => f.exitS),
      col((f) => f.localDay),
      col((f) => f.localMinute),
      col((f) => f.localDow),
      col((f) => f.zoneLengthM),
      col((f) => f.travelTimeS),
      col((f) => f.freeFlowS),
      col((f) => f.controlDelayS),
      col((f) => f.stopped),
      col((f) => f.stopDurationS),
      mapVersion,
      col((f) => f.approachSpeedKph),
      region,
      col((f) => f.arrivedOnGreen ?? null),
    ]);
    written += res.rowCount || c.length;
  }
  return written;
}

function uniqueParts(
  facts: ReadonlyArray<{ traceId: string; part: number }>,
): Array<{ traceId: string; part: number }> {
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
export type TrajectorySource = (
  db: Db,
) => Promise<readonly Trajectory[]> | readonly Trajectory[] | AsyncIterable<Trajectory>;

/**
 * Rebuilds the facts of every trajectory the source yields, in batches, replacing earlier facts
 * of the same trace parts (a trace part that no longer crosses any intersection loses its facts).
 * Call after probe ingestion or a simulation run. Returns counts.
 *
 * @example
 * await refreshFacts(ctx.db, ctx.region, (db) => readTrajectories(db, { sinceS, untilS }));
 */
export async function refreshFacts(
  db: Db,
  region: Region,
  readTrajectories: TrajectorySource,
): Promise<{ trajectories: number; facts: number }> {
  const mapVersion = mapVersionOf(region);
  let trajectories = 0;
  let facts = 0;
  const handle = async (batch: readonly Trajectory[]): Promise<void> => {
    if (batch.length === 0) return;
    trajectories += batch.length;
    const f = buildFacts(region, batch, await storedFactInputs(db, region, batch));
    facts += f.length;
    await storeFacts(db, f, {
      mapVersion,
      region: region.meta.name,
      replace: batch.map((t) => ({ traceId: t.traceId, part: t.part })),
    });
  };
  const src = await readTrajectories(db);
  if (Symbol.asyncIterator in (src as object)) {
    // The source is suspended while a batch is stored, so a single-connection database is fine.
    let batch: Trajectory[] = [];
    for await (const t of src as AsyncIterable<Trajectory>) {
      batch.push(t);
      if (batch.length >= REFRESH_BATCH_TRAJECTORIES) {
        await handle(batch);
        batch = [];
      }
    }
    await handle(batch);
  } else {
    const arr = src as readonly Trajectory[];
    for (let i = 0; i < arr.length; i += REFRESH_BATCH_TRAJECTORIES)
      await handle(arr.slice(i, i + REFRESH_BATCH_TRAJECTORIES));
  }
  return { trajectories, facts };
}
