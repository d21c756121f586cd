/**
 * Analytics benchmark: metric query latency over a month of traversal facts on 300 intersections
 * (12 movements each): 1 million facts on PGlite (in memory), 10 million on PostgreSQL when
 * DATABASE_URL or TEST_DATABASE_URL is set (in a scratch schema, dropped afterwards).
 * Facts are generated in the database (`INSERT … SELECT generate_series`) from a fixed formula,
 * so every run sees the same data; the rollups are then built from them with INSERT … SELECT …
 * GROUP BY (`rebuildRollups`, what `storeFacts` maintains slice by slice). Two queries, each timed
 * 5× after a warm-up, on the source the engine picks (a rollup) and on the facts table:
 *   Q1 intersectionId × hourOfDay (all intersections): count, avg/max delay, LOS, 3MDPct
 *   Q2 movementId × 15MinBin for one intersection: count, avg delay, POG, turnPct
 * Both sources must give identical rows (checked).
 */
import {
  metricSourceFor,
  migrations,
  parseMetricRequest,
  queryMetrics,
  rebuildRollups,
  type IntersectionCatalog,
  type MetricSource,
} from '../src/analytics/index.js';
import { openPglite, openPostgres, runMigrations, type Db } from '../src/store/index.js';

const INTERSECTIONS = 300;
const MOVEMENTS_PER_INTERSECTION = 12;
const RUNS = 5;

/** Loads deterministic facts g = 1..n spread over November 2026 (local days) on `intersections` intersections (default 300); returns seconds. */
export async function loadFacts(db: Db, n: number, intersections = INTERSECTIONS): Promise<number> {
  const t0 = performance.now();
  const chunk = 1_000_000;
  for (let from = 1; from <= n; from += chunk) {
    const to = Math.min(n, from + chunk - 1);
    await db.query(`
      INSERT INTO analytics_fact (trace_id, part, intersection_key, occurrence, intersection_id, movement_id, in_edge, out_edge,
        entry_s, exit_s, local_day, local_minute, local_dow, zone_length_m, travel_time_s, free_flow_s, control_delay_s,
        stopped, stop_duration_s, approach_speed_kph, map_version, region)
      SELECT 't' || g, 0, '39.' || lpad(ix::text, 5, '0') || '_-76.61000', 0, ix, ix * ${MOVEMENTS_PER_INTERSECTION} + mv, ix * 4 + mv % 4, ix * 4 + (mv + 1) % 4,
        1793509200 + d * 86400 + m * 60, 1793509200 + d * 86400 + m * 60 + 20 + delay, DATE '2026-11-01' + d::int, m,
        extract(isodow FROM DATE '2026-11-01' + d::int)::int, 200, 20 + delay, 20, delay, delay > 15, CASE WHEN delay > 15 THEN delay - 10 ELSE 0 END,
        25 + (g % 30), '20261101', 'bench'
      FROM (SELECT g, ix, (h % ${MOVEMENTS_PER_INTERSECTION})::int AS mv, (r % 30)::int AS d, ((r / 30) % 1440)::int AS m,
              ((r / 43200) % 1200) / 10.0 AS delay
            FROM (SELECT g, g % ${intersections} AS ix, g / ${intersections} AS h, ((g / ${intersections}) * 2654435761 + g % ${intersections} * 40503) % 4294967296 AS r
            FROM generate_series(${from}::bigint, ${to}::bigint) AS g) q) s`);
  }
  await db.query('ANALYZE analytics_fact');
  return (performance.now() - t0) / 1000;
}

/** A catalog without intersections: queries by id need none. */
export const EMPTY_CATALOG: IntersectionCatalog = {
  list: [],
  byKey: new Map(),
  byNode: new Map(),
  movementById: new Map(),
  mapVersion: '20261101',
};

const QUERIES: Record<string, Record<string, unknown>> = {
  'Q1 intersectionId x hourOfDay': {
    dateRanges: [{ startDate: '2026-11-01', endDate: '2026-11-30' }],
    dimensions: [{ name: 'intersectionId' }, { name: 'hourOfDay' }],
    metrics: [
      { name: 'totalVehicleCount' },
      { name: 'avgControlDelay' },
      { name: 'maxControlDelay' },
      { name: 'LOS' },
      { name: '3MDPct' },
    ],
    pageSize: 10_000,
  },
  'Q2 movementId x 15MinBin (one intersection)': {
    dateRanges: [{ startDate: '2026-11-01', endDate: '2026-11-30' }],
    dimensions: [{ name: 'movementId' }, { name: '15MinBin' }],
    metrics: [{ name: 'totalVehicleCount' }, { name: 'avgControlDelay' }, { name: 'POG' }, { name: 'turnPct' }],
    dimensionFilters: [{ name: 'intersectionId', operator: 'EQUALS', expressions: ['39.00042_-76.61000'] }],
    pageSize: 10_000,
  },
};

async function timeQueries(db: Db, label: string): Promise<void> {
  for (const [name, body] of Object.entries(QUERIES)) {
    const req = parseMetricRequest(body);
    const results: string[] = [];
    const sources: MetricSource[] = [metricSourceFor(req), 'facts'];
    for (const source of sources) {
      const first = await queryMetrics(db, EMPTY_CATALOG, req, { source }); // warm-up
      results.push(JSON.stringify(first.rows));
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await queryMetrics(db, EMPTY_CATALOG, req, { source });
        ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      console.log(
        `  ${label} ${name} [${source}]: ${first.rows.length} rows, median ${ms[Math.floor(RUNS / 2)].toFixed(0)} ms (min ${ms[0].toFixed(0)}, max ${ms[RUNS - 1].toFixed(0)})`,
      );
    }
    if (results[0] !== results[1])
      throw new Error(`${label} ${name}: the ${sources[0]} rows differ from the facts rows`);
  }
}

/** Builds the rollups from the loaded facts; returns seconds and row counts. */
export async function loadRollups(db: Db): Promise<string> {
  const t0 = performance.now();
  await rebuildRollups(db);
  const s = (performance.now() - t0) / 1000;
  const n = await db.query<{ q: number; h: number; m: number }>(
    'SELECT (SELECT count(*) FROM analytics_rollup_15m)::int AS q, (SELECT count(*) FROM analytics_rollup_hour)::int AS h, (SELECT count(*) FROM analytics_rollup_month)::int AS m',
  );
  const f = (x: number): string => x.toLocaleString('en-US');
  return `rollups built in ${s.toFixed(1)} s (${f(n.rows[0].q)} 15-minute rows, ${f(n.rows[0].h)} hour rows, ${f(n.rows[0].m)} month rows)`;
}

/** Runs the analytics benchmark and prints its figures. */
export async function benchAnalytics(): Promise<void> {
  // BENCH_ANALYTICS_PGLITE_FACTS / BENCH_ANALYTICS_POSTGRES_FACTS change the sizes (0 skips a backend).
  const nLite = Number(process.env.BENCH_ANALYTICS_PGLITE_FACTS ?? 1_000_000);
  if (nLite > 0) {
    const pg = await openPglite();
    try {
      await runMigrations(pg, migrations);
      const loadS = await loadFacts(pg, nLite);
      console.log(
        `  PGlite: ${nLite.toLocaleString('en-US')} facts loaded in ${loadS.toFixed(1)} s; ${await loadRollups(pg)}`,
      );
      await timeQueries(pg, 'PGlite');
    } finally {
      await pg.close();
    }
  }

  const url = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!url) {
    console.log('  PostgreSQL: skipped (set DATABASE_URL or TEST_DATABASE_URL for the 10 million fact run)');
    return;
  }
  const schema = `bench_analytics_${process.pid}`;
  const admin = await openPostgres(url);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const sep = url.includes('?') ? '&' : '?';
  const db = await openPostgres(`${url}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`);
  try {
    await runMigrations(db, migrations);
    const n = Number(process.env.BENCH_ANALYTICS_POSTGRES_FACTS ?? 10_000_000);
    if (!(n > 0)) return;
    const loadS = await loadFacts(db, n);
    console.log(
      `  PostgreSQL: ${n.toLocaleString('en-US')} facts loaded in ${loadS.toFixed(1)} s; ${await loadRollups(db)}`,
    );
    await timeQueries(db, 'PostgreSQL');
  } finally {
    await db.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
  }
}
