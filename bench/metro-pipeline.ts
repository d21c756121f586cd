/**
 * The metro benchmark's data steps, on PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL, a
 * scratch schema each):
 * - pipeline: `streetwise simulate` a weekday of fleet probes on the metro to a CSV file (at least
 *   5 M pings by default), then `streetwise ingest` it: pings, ingestion pings/s end to end
 *   (stored, matched, speeds and facts), facts written, peak RSS of each command;
 * - analytics: a month of traversal facts for every signalised intersection of the metro (48 a
 *   day each, generated in the database as `bench -- analytics` does), rollups built, then
 *   intersectionId × hourOfDay over the month for all of them: the first page (10 000 rows) and
 *   every page.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CatalogIntersection,
  type IntersectionCatalog,
  metricSourceFor,
  migrations,
  parseMetricRequest,
  queryMetrics,
} from '../src/analytics/index.js';
import { INTERSECTIONS_PART } from '../src/network/bundle-parts.js';
import { readPartFile } from '../src/network/part-file.js';
import { openPostgres, runMigrations } from '../src/store/index.js';
import { loadFacts, loadRollups } from './analytics.js';
import { runMeasured } from './lib/measured.js';
import { CLI, type MetroBench, recordFigures } from './lib/metro-common.js';

/** Trips simulated in the weekday (every vehicle reports; about 400 pings a trip on the 1 M-edge metro: ≥ 5 M pings). */
const TRIPS = Number(process.env.BENCH_METRO_TRIPS ?? 13_000);
const PENETRATION = process.env.BENCH_METRO_PENETRATION ?? '1';
const FACTS_PER_SIGNAL_DAY = 48;

async function scratch(name: string): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const base = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!base) return null;
  const schema = `${name}_${process.pid}`;
  const admin = await openPostgres(base);
  await admin.query(`CREATE SCHEMA ${schema}`);
  return {
    url: `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    drop: async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.close();
    },
  };
}

/** Lines of a file (each ends in a newline), counted in its bytes: no string of the whole file. */
function countLines(path: string): number {
  const bytes = readFileSync(path);
  let n = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) n++;
  return n;
}

/** Runs the simulate + ingest step. */
export async function benchPipeline(b: MetroBench): Promise<void> {
  const pg = await scratch('bench_metro_pipeline');
  if (!pg) {
    console.log('  skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL (the pipeline is measured on PostgreSQL)');
    return;
  }
  const csv = join(b.dir, 'weekday.csv');
  const env = { DATABASE_URL: pg.url, REGION: 'metro', DATA_DIR: b.dataDir, LOG_LEVEL: 'warn' };
  try {
    const sim = await runMeasured(
      CLI[0],
      [
        CLI[1],
        'simulate',
        '--days',
        '1',
        '--trips-per-day',
        String(TRIPS),
        '--penetration',
        PENETRATION,
        '--seed',
        String(b.seed),
        '--no-ingest',
        '--out',
        csv,
      ],
      env,
    );
    if (sim.code !== 0) throw new Error(`simulate failed: ${sim.stderr.slice(-800)}`);
    const pings = countLines(csv) - 1;
    console.log(`  simulate: ${sim.stdout.trim().split('\n').pop()}`);
    console.log(
      `  simulate: ${pings} pings (${(statSync(csv).size / 1e6).toFixed(0)} MB CSV) in ${sim.wallS.toFixed(0)} s, peak RSS ${sim.peakMb.toFixed(0)} MB`,
    );
    const ing = await runMeasured(CLI[0], [CLI[1], 'ingest', 'probes', csv], env);
    if (ing.code !== 0) throw new Error(`ingest failed: ${ing.stderr.slice(-800)}`);
    const db = await openPostgres(pg.url);
    const n = await db.query<{ f: number; t: number }>(
      'SELECT (SELECT count(*) FROM analytics_fact)::int AS f, (SELECT count(*) FROM probe_traversals)::int AS t',
    );
    await db.close();
    console.log(`  ingest: ${ing.stdout.trim().split('\n').slice(-2).join(' | ')}`);
    console.log(
      `  ingest: ${pings} pings in ${ing.wallS.toFixed(0)} s = ${(pings / ing.wallS).toFixed(0)} pings/s end to end, ${n.rows[0].t} traversals, ${n.rows[0].f} facts, peak RSS ${ing.peakMb.toFixed(0)} MB`,
    );
    recordFigures(b, 'pipeline', {
      pings,
      simulateS: sim.wallS,
      simulateCpuS: sim.cpuS,
      simulatePeakMb: sim.peakMb,
      ingestS: ing.wallS,
      ingestCpuS: ing.cpuS,
      ingestPingsPerS: pings / ing.wallS,
      ingestPeakMb: ing.peakMb,
      traversals: n.rows[0].t,
      facts: n.rows[0].f,
    });
  } finally {
    await pg.drop();
  }
}

/**
 * A catalog of the `n` intersections `loadFacts` writes (keys `39.<ix, 5 digits>_-76.61000`): a
 * query's scope is the served region's intersections, as on a server.
 */
function factsCatalog(n: number): IntersectionCatalog {
  const list = Array.from(
    { length: n },
    (_, ix) =>
      ({
        key: `39.${String(ix).padStart(5, '0')}_-76.61000`,
        intersection: { lat: 39 + ix / 1e5, lon: -76.61 },
        nodes: [],
        junctionNodes: [],
        name: `signal ${ix}`,
        movements: [],
      }) as unknown as CatalogIntersection,
  );
  return {
    list,
    byKey: new Map(list.map((c) => [c.key, c])),
    byNode: new Map(),
    movementById: new Map(),
    mapVersion: '20261101',
  };
}

/** Runs the month-of-facts analytics step. */
export async function benchAnalyticsMonth(b: MetroBench): Promise<void> {
  const pg = await scratch('bench_metro_analytics');
  if (!pg) {
    console.log('  skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL (analytics are measured on PostgreSQL)');
    return;
  }
  const dir = join(b.dataDir, 'regions', 'metro');
  const ixs = readPartFile(
    join(dir, INTERSECTIONS_PART.file),
    INTERSECTIONS_PART.kind,
    INTERSECTIONS_PART.version,
    INTERSECTIONS_PART.decode,
  );
  const signals = ixs.filter((i) => i.signalized).length;
  const db = await openPostgres(pg.url);
  try {
    await runMigrations(db, migrations);
    const facts = signals * 30 * FACTS_PER_SIGNAL_DAY;
    const loadS = await loadFacts(db, facts, signals);
    console.log(
      `  ${facts} facts on ${signals} signalised intersections loaded in ${loadS.toFixed(0)} s; ${await loadRollups(db)}`,
    );
    const body = {
      dateRanges: [{ startDate: '2026-11-01', endDate: '2026-11-30' }],
      dimensions: [{ name: 'intersectionId' }, { name: 'hourOfDay' }],
      metrics: [
        { name: 'totalVehicleCount' },
        { name: 'avgControlDelay' },
        { name: 'maxControlDelay' },
        { name: 'LOS' },
      ],
      pageSize: 10_000,
    };
    const req = parseMetricRequest(body);
    const catalog = factsCatalog(signals);
    await queryMetrics(db, catalog, req, { source: metricSourceFor(req) }); // warm-up
    const firstMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await queryMetrics(db, catalog, req, { source: metricSourceFor(req) });
      firstMs.push(performance.now() - t0);
    }
    firstMs.sort((x, y) => x - y);
    let rows = 0;
    let pages = 0;
    const t0 = performance.now();
    for (let offset = 0; ; offset += 10_000) {
      const page = parseMetricRequest({ ...body, offset });
      const r = await queryMetrics(db, catalog, page, { source: metricSourceFor(page) });
      rows += r.rows.length;
      pages++;
      if (r.rows.length < 10_000) break;
    }
    const allMs = performance.now() - t0;
    console.log(
      `  intersectionId × hourOfDay, November, ${signals} intersections: first page (10 000 rows) median ${firstMs[2].toFixed(0)} ms; all ${rows} rows in ${pages} pages ${allMs.toFixed(0)} ms`,
    );
    recordFigures(b, 'analytics', {
      signals,
      facts,
      loadS,
      firstPageMedianMs: firstMs[2],
      allRows: rows,
      allPagesMs: allMs,
    });
  } finally {
    await db.close();
    await pg.drop();
  }
}
