/**
 * Rollups of the traversal facts, kept exact and in step with `analytics_fact`:
 *
 * - `analytics_rollup_15m`: one row per (intersection, local day, 15-minute bin, movement, inbound
 *   edge, map version). Every temporal dimension (quarter … 15MinBin, customTimeRange on the
 *   15-minute grid) is a function of (local day, bin), so every metric request can be answered here.
 * - `analytics_rollup_hour`: one row per (intersection, local day, hour, map version), built from
 *   the 15-minute rollup; answers requests that need neither movements nor sub-hour time.
 * - `analytics_rollup_month`: one row per (intersection, month, day of week, hour, map version)
 *   (`local_day` = the month's first day), built from the hour rollup; answers the whole months of
 *   requests that in addition need neither `day` nor `week`.
 *
 * Both hold counts, float8 sums and maxima, so avg = sum / count and max = max of maxima are exact.
 * `local_minute` holds the start minute of the row's bin (resp. hour), so the dimension and
 * filter expressions of the facts apply unchanged.
 *
 * Maintenance, in the transaction of `storeFacts`: new facts whose (intersection, day, 15-minute
 * bin) slice lost or changed no fact are added to the rollups (`addToRollups`: sums add, maxima
 * take the greater); every slice that lost or changed a fact is recomputed from the facts
 * (`rebuildRollupSlices`: exact for maxima too, which subtraction could not keep).
 */
import type { Db, Queryable } from '../../store/db.js';
import { THREE_MINUTE_DELAY_S } from '../metrics/definitions.js';

/** Measure columns shared by both rollup tables (SQL column definitions). */
export const ROLLUP_MEASURE_COLUMNS = `  vehicle_count integer NOT NULL,
  through_count integer NOT NULL,
  travel_sum_s double precision NOT NULL,
  travel_max_s real NOT NULL,
  approach_count integer NOT NULL,
  approach_sum_kph double precision NOT NULL,
  approach_max_kph real,
  through_approach_count integer NOT NULL,
  through_approach_sum_kph double precision NOT NULL,
  through_approach_max_kph real,
  delay_sum_s double precision NOT NULL,
  delay_max_s real NOT NULL,
  delayed_3m_count integer NOT NULL`;

/** Names of the measure columns of migration 402, comma-separated. */
const ROLLUP_MEASURES_402 =
  'vehicle_count, through_count, travel_sum_s, travel_max_s, approach_count, approach_sum_kph, approach_max_kph, ' +
  'through_approach_count, through_approach_sum_kph, through_approach_max_kph, delay_sum_s, delay_max_s, delayed_3m_count';
/**
 * Names of the measure columns, comma-separated. `on_green_count` (migration 421): vehicles that
 * arrived on green by the controller's timing, or, where no timing covers the fact, did not stop.
 */
export const ROLLUP_MEASURES = `${ROLLUP_MEASURES_402}, on_green_count`;

/** The measures of migration 402 aggregated from facts (same order as ROLLUP_MEASURES_402). */
const FROM_FACTS_402 = `count(*)::int, (count(*) FILTER (WHERE NOT stopped))::int, sum(travel_time_s::float8), max(travel_time_s),
  count(approach_speed_kph)::int, coalesce(sum(approach_speed_kph::float8), 0), max(approach_speed_kph),
  (count(approach_speed_kph) FILTER (WHERE NOT stopped))::int, coalesce(sum(approach_speed_kph::float8) FILTER (WHERE NOT stopped), 0),
  max(approach_speed_kph) FILTER (WHERE NOT stopped), sum(control_delay_s::float8), max(control_delay_s),
  (count(*) FILTER (WHERE control_delay_s >= ${THREE_MINUTE_DELAY_S}))::int`;
/** The measures aggregated from facts (same order as ROLLUP_MEASURES). */
const FROM_FACTS = `${FROM_FACTS_402},
  (count(*) FILTER (WHERE coalesce(arrived_on_green, NOT stopped)))::int`;

/** The measures of migration 402 re-aggregated from rollup rows. */
const FROM_ROLLUP_402 = `sum(vehicle_count)::int, sum(through_count)::int, sum(travel_sum_s), max(travel_max_s),
  sum(approach_count)::int, sum(approach_sum_kph), max(approach_max_kph),
  sum(through_approach_count)::int, sum(through_approach_sum_kph), max(through_approach_max_kph),
  sum(delay_sum_s), max(delay_max_s), sum(delayed_3m_count)::int`;
/** The measures re-aggregated from rollup rows. */
const FROM_ROLLUP = `${FROM_ROLLUP_402}, sum(on_green_count)::int`;

const cols15m = (m: string): string =>
  `intersection_key, local_day, local_minute, movement_id, in_edge, map_version, local_dow, ${m}`;
const colsHour = (m: string): string => `intersection_key, local_day, local_minute, map_version, local_dow, ${m}`;
const colsMonth = (m: string): string => `intersection_key, local_day, local_dow, local_minute, map_version, ${m}`;
const COLS_15M = cols15m(ROLLUP_MEASURES);
const COLS_HOUR = colsHour(ROLLUP_MEASURES);
const COLS_MONTH = colsMonth(ROLLUP_MEASURES);

/** SQL of the first day of the month of a date expression (a date; independent of the session time zone). */
export function monthStartSql(day: string): string {
  return `(${day} - (extract(day FROM ${day})::int - 1))`;
}

/**
 * SQL filling both rollups from every stored fact (used by migration 402 on empty rollups and by
 * `rebuildRollups` after a TRUNCATE). Rows are inserted in key order so one intersection's rows
 * sit together on disk.
 */
function rebuildRollupsSql(measures: string, fromFacts: string, fromRollup: string): string {
  return `
INSERT INTO analytics_rollup_15m (${cols15m(measures)})
  SELECT intersection_key, local_day, (local_minute / 15 * 15)::smallint, movement_id, in_edge, map_version, local_dow, ${fromFacts}
  FROM analytics_fact GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6;
INSERT INTO analytics_rollup_hour (${colsHour(measures)})
  SELECT intersection_key, local_day, (local_minute / 60 * 60)::smallint, map_version, local_dow, ${fromRollup}
  FROM analytics_rollup_15m GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4;
INSERT INTO analytics_rollup_month (${colsMonth(measures)})
  SELECT intersection_key, ${monthStartSql('local_day')}, local_dow, local_minute, map_version, ${fromRollup}
  FROM analytics_rollup_hour GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4;
`;
}
export const REBUILD_ROLLUPS_SQL = rebuildRollupsSql(ROLLUP_MEASURES, FROM_FACTS, FROM_ROLLUP);
/** The same as migration 402 ran it (before `on_green_count`). */
export const REBUILD_ROLLUPS_SQL_402 = rebuildRollupsSql(ROLLUP_MEASURES_402, FROM_FACTS_402, FROM_ROLLUP_402);

/**
 * Recomputes both rollups from all facts (bulk loads, repairs). Runs in one transaction.
 *
 * @example
 * await rebuildRollups(db); // after loading facts with INSERT … SELECT
 */
export async function rebuildRollups(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('TRUNCATE analytics_rollup_15m, analytics_rollup_hour, analytics_rollup_month');
    for (const stmt of REBUILD_ROLLUPS_SQL.split(';')
      .map((x) => x.trim())
      .filter(Boolean))
      await tx.query(stmt);
    await tx.query('ANALYZE analytics_rollup_15m');
    await tx.query('ANALYZE analytics_rollup_hour');
    await tx.query('ANALYZE analytics_rollup_month');
  });
}

/** A 15-minute slice of one intersection's local day: the unit the rollups are rebuilt by. */
export interface RollupSlice {
  intersectionKey: string;
  localDay: string;
  /** start minute of the 15-minute bin, 0 … 1425 */
  binMinute: number;
}

/** Collects distinct slices (keyed by intersection, day, bin). */
export class SliceSet {
  private readonly map = new Map<string, RollupSlice>();

  /** Adds the slice of a fact's (intersection, local day, local minute). */
  add(intersectionKey: string, localDay: string, localMinute: number): void {
    const binMinute = localMinute - (localMinute % 15);
    const k = `${intersectionKey}\u0000${localDay}\u0000${binMinute}`;
    if (!this.map.has(k)) this.map.set(k, { intersectionKey, localDay, binMinute });
  }

  /** The slices collected so far. */
  values(): RollupSlice[] {
    return [...this.map.values()];
  }

  /** Number of slices. */
  get size(): number {
    return this.map.size;
  }

  /** Whether the slice of (intersection, local day, local minute) is in the set. */
  has(intersectionKey: string, localDay: string, localMinute: number): boolean {
    return this.map.has(`${intersectionKey}\u0000${localDay}\u0000${localMinute - (localMinute % 15)}`);
  }
}

/** ON CONFLICT assignments adding a delta row to a stored rollup row (sums and counts add, maxima take the greater). */
function mergeSet(table: string): string {
  return ROLLUP_MEASURES.split(',')
    .map((c) => c.trim())
    .map((c) =>
      c.endsWith('_max_s') || c.endsWith('_max_kph')
        ? `${c} = GREATEST(${table}.${c}, EXCLUDED.${c})` // GREATEST skips NULLs, as max() does
        : `${c} = ${table}.${c} + EXCLUDED.${c}`,
    )
    .join(', ');
}

/** The fact columns a rollup delta needs. */
export interface RollupFact {
  intersectionKey: string;
  localDay: string;
  localMinute: number;
  localDow: number;
  movementId: number;
  inEdge: number;
  travelTimeS: number;
  controlDelayS: number;
  stopped: boolean;
  approachSpeedKph: number | null;
  /** arrived on green by the controller's timing; null or absent without timing */
  arrivedOnGreen?: boolean | null;
}

/**
 * Adds newly inserted facts to all three rollups (upsert of their aggregates). Only for facts whose
 * 15-minute slice lost or changed no fact in this transaction; call before `rebuildRollupSlices`
 * for the other slices (which recomputes whole hours and months, including these deltas).
 * Values are cast to `real` first, as stored in the facts.
 */
export async function addToRollups(tx: Queryable, facts: readonly RollupFact[], mapVersion: string): Promise<void> {
  const src = `unnest($1::text[], $2::date[], $3::smallint[], $4::smallint[], $5::int[], $6::int[], $7::real[], $8::real[], $9::boolean[], $10::real[], $12::boolean[])
    AS f(intersection_key, local_day, local_minute, local_dow, movement_id, in_edge, travel_time_s, control_delay_s, stopped, approach_speed_kph, arrived_on_green)`;
  // rows are upserted in key order, so workers adding to the same rollup rows at once take their
  // row locks in one order and do not deadlock
  const sorted = [...facts].sort(byRollupKey);
  for (let i = 0; i < sorted.length; i += SLICE_BATCH) {
    const c = sorted.slice(i, i + SLICE_BATCH);
    const params = [
      c.map((f) => f.intersectionKey),
      c.map((f) => f.localDay),
      c.map((f) => f.localMinute),
      c.map((f) => f.localDow),
      c.map((f) => f.movementId),
      c.map((f) => f.inEdge),
      c.map((f) => f.travelTimeS),
      c.map((f) => f.controlDelayS),
      c.map((f) => f.stopped),
      c.map((f) => f.approachSpeedKph),
      mapVersion,
      c.map((f) => f.arrivedOnGreen ?? null),
    ];
    await tx.query(
      `INSERT INTO analytics_rollup_15m AS t (${COLS_15M})
       SELECT intersection_key, local_day, (local_minute / 15 * 15)::smallint, movement_id, in_edge, $11::text, local_dow, ${FROM_FACTS}
         FROM ${src} GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (intersection_key, local_day, local_minute, movement_id, in_edge, map_version) DO UPDATE SET ${mergeSet('t')}`,
      params,
    );
    await tx.query(
      `INSERT INTO analytics_rollup_hour AS t (${COLS_HOUR})
       SELECT intersection_key, local_day, (local_minute / 60 * 60)::smallint, $11::text, local_dow, ${FROM_FACTS}
         FROM ${src} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3
       ON CONFLICT (intersection_key, local_day, local_minute, map_version) DO UPDATE SET ${mergeSet('t')}`,
      params,
    );
    await tx.query(
      `INSERT INTO analytics_rollup_month AS t (${COLS_MONTH})
       SELECT intersection_key, ${monthStartSql('local_day')}, local_dow, (local_minute / 60 * 60)::smallint, $11::text, ${FROM_FACTS}
         FROM ${src} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4
       ON CONFLICT (intersection_key, local_day, local_dow, local_minute, map_version) DO UPDATE SET ${mergeSet('t')}`,
      params,
    );
  }
}

/** Orders rollup facts by intersection, day, minute, movement and approach edge. */
function byRollupKey(a: RollupFact, b: RollupFact): number {
  if (a.intersectionKey !== b.intersectionKey) return a.intersectionKey < b.intersectionKey ? -1 : 1;
  if (a.localDay !== b.localDay) return a.localDay < b.localDay ? -1 : 1;
  return a.localMinute - b.localMinute || a.movementId - b.movementId || a.inEdge - b.inEdge;
}

/** Slices per rebuild statement. */
const SLICE_BATCH = 2000;

/**
 * Recomputes the rollup rows of the given slices from the facts (15-minute rows of every movement
 * in the slice, then the hour rows containing them, then the month × day-of-week × hour rows
 * containing those). Call inside the transaction that changed the facts, after the change.
 */
export async function rebuildRollupSlices(tx: Queryable, slices: readonly RollupSlice[]): Promise<void> {
  const sliceParams = (c: readonly RollupSlice[]) => [
    c.map((s) => s.intersectionKey),
    c.map((s) => s.localDay),
    c.map((s) => s.binMinute),
  ];
  await replaceInBatches(
    tx,
    slices,
    sliceParams,
    `DELETE FROM analytics_rollup_15m r USING unnest($1::text[], $2::date[], $3::smallint[]) AS s(k, d, m)
      WHERE r.intersection_key = s.k AND r.local_day = s.d AND r.local_minute = s.m`,
    `INSERT INTO analytics_rollup_15m (${COLS_15M})
     SELECT f.intersection_key, f.local_day, (f.local_minute / 15 * 15)::smallint, f.movement_id, f.in_edge, f.map_version, f.local_dow, ${FROM_FACTS}
       FROM analytics_fact f JOIN unnest($1::text[], $2::date[], $3::smallint[]) AS s(k, d, m)
         ON f.intersection_key = s.k AND f.local_day = s.d AND f.local_minute >= s.m AND f.local_minute < s.m + 15
      GROUP BY 1, 2, 3, 4, 5, 6, 7`,
  );
  const hours = new Map<string, RollupSlice>();
  for (const s of slices) {
    const h = s.binMinute - (s.binMinute % 60);
    const k = `${s.intersectionKey}\u0000${s.localDay}\u0000${h}`;
    if (!hours.has(k)) hours.set(k, { intersectionKey: s.intersectionKey, localDay: s.localDay, binMinute: h });
  }
  const hl = [...hours.values()];
  await replaceInBatches(
    tx,
    hl,
    sliceParams,
    `DELETE FROM analytics_rollup_hour r USING unnest($1::text[], $2::date[], $3::smallint[]) AS s(k, d, m)
      WHERE r.intersection_key = s.k AND r.local_day = s.d AND r.local_minute = s.m`,
    `INSERT INTO analytics_rollup_hour (${COLS_HOUR})
     SELECT r.intersection_key, r.local_day, (r.local_minute / 60 * 60)::smallint, r.map_version, r.local_dow, ${FROM_ROLLUP}
       FROM analytics_rollup_15m r JOIN unnest($1::text[], $2::date[], $3::smallint[]) AS s(k, d, m)
         ON r.intersection_key = s.k AND r.local_day = s.d AND r.local_minute >= s.m AND r.local_minute < s.m + 60
      GROUP BY 1, 2, 3, 4, 5`,
  );
  const months = new Map<string, { k: string; monthStart: string; dow: number; m: number }>();
  for (const h of hl) {
    const monthStart = `${h.localDay.slice(0, 8)}01`;
    const dow = ((new Date(`${h.localDay}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
    const key = `${h.intersectionKey}\u0000${monthStart}\u0000${dow}\u0000${h.binMinute}`;
    if (!months.has(key)) months.set(key, { k: h.intersectionKey, monthStart, dow, m: h.binMinute });
  }
  await replaceInBatches(
    tx,
    [...months.values()],
    (c) => [c.map((s) => s.k), c.map((s) => s.monthStart), c.map((s) => s.dow), c.map((s) => s.m)],
    `DELETE FROM analytics_rollup_month r USING unnest($1::text[], $2::date[], $3::smallint[], $4::smallint[]) AS s(k, d, w, m)
      WHERE r.intersection_key = s.k AND r.local_day = s.d AND r.local_dow = s.w AND r.local_minute = s.m`,
    `INSERT INTO analytics_rollup_month (${COLS_MONTH})
     SELECT r.intersection_key, s.d, r.local_dow, r.local_minute, r.map_version, ${FROM_ROLLUP}
       FROM analytics_rollup_hour r JOIN unnest($1::text[], $2::date[], $3::smallint[], $4::smallint[]) AS s(k, d, w, m)
         ON r.intersection_key = s.k AND r.local_day >= s.d AND r.local_day < (s.d + interval '1 month')::date
        AND r.local_dow = s.w AND r.local_minute = s.m
      GROUP BY r.intersection_key, s.d, r.local_dow, r.local_minute, r.map_version`,
  );
}

/** Deletes the rows of `rows`' slices and inserts them anew, SLICE_BATCH slices per statement pair (same parameters for both). */
async function replaceInBatches<T>(
  tx: Queryable,
  rows: readonly T[],
  params: (c: readonly T[]) => unknown[],
  deleteSql: string,
  insertSql: string,
): Promise<void> {
  for (let i = 0; i < rows.length; i += SLICE_BATCH) {
    const p = params(rows.slice(i, i + SLICE_BATCH));
    await tx.query(deleteSql, p);
    await tx.query(insertSql, p);
  }
}
