/**
 * `npm run bench -- metro [--step NAME] [--edges N] [--seed N] [--dir DIR]`: the generated metro
 * (`streetwise demo --size metro`, ≥ 1 M directed edges by default) through every stage, each in
 * its own process over real TCP, seeded. Steps, in order (each runnable alone with `--step`; what a
 * step needs from an earlier one — the file, the import, OSRM's files — is made when missing and
 * kept in DIR between runs):
 *   generate   the OSM file: time, peak RSS, size
 *   import     `streetwise import`: time, peak RSS (targets ≤ 60 s, ≤ 3 GB)
 *   serve      `streetwise serve` with 1, 2, 3 serving threads, answering every service and then
 *              routing only (`BENCH_METRO_SERVE=all|routing` runs one), twice each: start-up
 *              time, peak RSS and settled RSS after 300 FindRoutes a thread (targets ≤ 2 GB with 2
 *              threads, ≤ 100 MB per added thread, from the lowest settled RSS)
 *   parking    the parking inventory's shared base: build, bytes, records made per thread,
 *              /blocks selection against the inventory built whole (`metro-parking.ts`)
 *   route      FindRoute at Monday 08:00 vs OSRM v6.0.0 MLD on the same file and 1 000 seeded
 *              pairs: p50/p99, alternatives, req/s (`metro-routing.ts`)
 *   sizes      the same comparison on Baltimore, and the in-memory 1 M-edge grid's search
 *   live       a closure and live speeds on 1 000 edges: time until FindRoute uses them
 *              (PostgreSQL; `metro-live.ts`)
 *   tiles      basemap tiles at every zoom: first and cached latency, server RSS
 *   pipeline   `streetwise simulate` a weekday (≥ 5 M pings), `streetwise ingest` (PostgreSQL;
 *              `metro-pipeline.ts`)
 *   analytics  intersection × hour over a month of facts for every signal (PostgreSQL)
 * Figures go to DIR/figures.json; the run ends with the summary of every figure recorded there.
 * PostgreSQL steps read BENCH_DATABASE_URL or TEST_DATABASE_URL (a scratch schema each).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { startBaltimoreServer } from './lib/baltimore-server.js';
import { ensureBuilt } from './lib/built.js';
import { runLoad } from './lib/http-load.js';
import { peakRssMb, rssMb, runMeasured } from './lib/measured.js';
import {
  CLI,
  ensureMetroFile,
  isoZ,
  type MetroBench,
  metroGraph,
  metroOptions,
  nextMonday,
  readFigures,
  recordFigures,
} from './lib/metro-common.js';
import { benchLiveUpdates, benchTiles } from './metro-live.js';
import { benchSharedParking } from './metro-parking.js';
import { benchAnalyticsMonth, benchPipeline } from './metro-pipeline.js';
import { SERVER_START_MS, compareRouting } from './metro-routing.js';
import { BALTIMORE_PBF } from './lib/baltimore-server.js';
import { socketSharing } from '../src/app/serving/socket-sharing.js';
import { gridSearchP50 } from './routing.js';

const TZ = 'America/New_York';

async function stepGenerate(b: MetroBench): Promise<void> {
  const run = await ensureMetroFile(b, true);
  if (!run) return;
  const mb = statSync(b.file).size / 1e6;
  const line = run.stderr.split('\n').find((l) => l.includes('Greater Calvert')) ?? '';
  console.log(
    `  generated in ${run.wallS.toFixed(1)} s (${run.cpuS.toFixed(1)} s CPU), peak RSS ${run.peakMb.toFixed(0)} MB, ${mb.toFixed(1)} MB`,
  );
  console.log(`  ${line.trim()}`);
  recordFigures(b, 'generate', {
    wallS: run.wallS,
    cpuS: run.cpuS,
    peakMb: run.peakMb,
    fileMb: mb,
    summary: line.trim(),
  });
}

/** Imports `file` as `region` into `dataDir` with the compiled CLI; returns its figures. */
async function importMeasured(file: string, dataDir: string, region: string): Promise<Record<string, number | string>> {
  const run = await runMeasured(CLI[0], [CLI[1], 'import', file, '--name', region, '--data-dir', dataDir]);
  if (run.code !== 0) throw new Error(`import failed: ${run.stderr.slice(-800)}`);
  const line = run.stderr.split('\n').find((l) => l.includes(`region "${region}"`)) ?? '';
  const stages = run.stderr
    .split('\n')
    .filter((l) => / done in \d+ ms/.test(l))
    .map((l) => l.replace(/^import: /, '').trim())
    .join(', ');
  return {
    wallS: run.wallS,
    cpuS: run.cpuS,
    peakMb: run.peakMb,
    summary: line.replace(/^import: /, '').trim(),
    stages,
  };
}

async function stepImport(b: MetroBench): Promise<void> {
  await ensureMetroFile(b);
  const f = await importMeasured(b.file, b.dataDir, 'metro');
  const ok = (f.wallS as number) <= 60 && (f.peakMb as number) <= 3072;
  console.log(`  ${f.summary}`);
  console.log(`  stages: ${f.stages}`);
  console.log(
    `  import ${(f.wallS as number).toFixed(1)} s wall (${(f.cpuS as number).toFixed(1)} s CPU), peak RSS ${(f.peakMb as number).toFixed(0)} MB (targets ≤ 60 s, ≤ 3 GB: ${ok ? 'met' : 'NOT met'})`,
  );
  recordFigures(b, 'import', f);
}

/** Makes sure region `metro` is imported in the bench's data directory. */
async function ensureImported(b: MetroBench): Promise<void> {
  try {
    metroGraph(b.dataDir);
  } catch {
    await stepImport(b);
  }
}

/** The services a serve run answers: every one (the default), and routing alone. */
const SERVE_MODES: Array<{ key: string; label: string; env: Record<string, string> }> = [
  { key: 'all', label: 'every service', env: {} },
  { key: 'routing', label: 'routing only (SERVICES=routing)', env: { SERVICES: 'routing' } },
];

/** FindRoutes each serving thread answers before a serve run's memory is read. */
const SERVE_REQUESTS_PER_THREAD = 300;
/**
 * Serve runs per thread count. The settled RSS of runs alike differs by up to ~150 MB: memory the
 * process's threads freed (start-up's and the window builds' temporaries) is not always handed
 * back to the system by the C allocator, so the lowest of the runs is the closest to what the
 * threads hold.
 */
const SERVE_RUNS = 2;

/**
 * Peak and settled RSS of a serve run of `n` threads after its FindRoutes, or the reason there is
 * none. The peak is reached at start-up, while the preparing thread holds the shared structures
 * twice (built, and copied to shared memory), so it moves little with the thread count; what an
 * added thread costs is read from the settled RSS, once the threads have answered enough requests
 * to have touched their search arrays.
 */
async function serveOnce(
  b: MetroBench,
  n: number,
  env: Record<string, string>,
  paths: (token: string) => Array<{ path: string }>,
): Promise<{ peakMb: number; settledMb: number; readyS: number } | { error: string }> {
  const t0 = Date.now();
  const { server, token } = await startBaltimoreServer(b.dataDir, {
    env: { REGION: 'metro', SERVING_THREADS: String(n), ...env },
    timeoutMs: SERVER_START_MS,
  });
  const readyS = (Date.now() - t0) / 1000;
  try {
    const port = Number(new URL(server.url).port);
    const requests = paths(token);
    await runLoad({
      host: '127.0.0.1',
      port,
      requests,
      connections: n,
      newConnection: true,
      total: SERVE_REQUESTS_PER_THREAD * n,
    });
    // every run holds the same things when measured: the peak's window table built and handed out
    await windowTableReceived(server.url);
    const settledMb = await rssSettled(server.child.pid!);
    if (server.child.exitCode !== null || server.child.signalCode !== null)
      return {
        error: `server exited (${server.child.exitCode ?? server.child.signalCode}): ${server.stderr().slice(-400)}`,
      };
    return { peakMb: peakRssMb(server.child.pid!), settledMb, readyS };
  } finally {
    await server.stop();
  }
}

/** Waits (up to 2 minutes) until the serving threads hold a window table from the builder (`GET /metrics`). */
async function windowTableReceived(url: string): Promise<void> {
  for (const end = Date.now() + 120_000; Date.now() < end; ) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const m = /streetwise_window_tables\{event="received"\} (\d+)/.exec(text);
    if (m === null || Number(m[1]) > 0) return; // no window tables in this mode, or one received
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Waits (up to a minute) until the process's RSS has moved less than 4 MB over 4 s; that RSS, MB. */
async function rssSettled(pid: number): Promise<number> {
  const seen: number[] = [];
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    seen.push(rssMb(pid));
    const last = seen.slice(-5);
    if (last.length === 5 && Math.max(...last) - Math.min(...last) < 4) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return seen[seen.length - 1];
}

async function stepServe(b: MetroBench): Promise<void> {
  await ensureImported(b);
  const { odPairs } = await import('./routing.js');
  const pairs = odPairs(metroGraph(b.dataDir), SERVE_REQUESTS_PER_THREAD, b.seed);
  const depS = nextMonday(TZ, 8);
  const paths = (token: string) =>
    pairs.map(([a, z]) => ({
      path: `/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=${a.lat.toFixed(6)},${a.lon.toFixed(6)}&WP_2=${z.lat.toFixed(6)},${z.lon.toFixed(6)}&DepartureTime=${isoZ(depS)}&Token=${token}`,
    }));
  const rows: Record<string, number | string> = {};
  // BENCH_METRO_SERVE=all or =routing runs one of the two
  const modes = SERVE_MODES.filter((m) => !process.env.BENCH_METRO_SERVE || process.env.BENCH_METRO_SERVE === m.key);
  for (const mode of modes) {
    console.log(`  ${mode.label}:`);
    // more than one serving thread needs reusePort (Node 22.12+ on Linux; src/app/serving/socket-sharing.ts)
    for (const n of socketSharing() === 'reusePort' ? [1, 2, 3] : [1]) {
      const threads = `${n} serving thread${n > 1 ? 's' : ' '}`;
      const runs: Array<{ peakMb: number; settledMb: number; readyS: number }> = [];
      for (let i = 0; i < SERVE_RUNS; i++) {
        const r = await serveOnce(b, n, mode.env, paths);
        if ('error' in r) {
          console.log(`    ${threads}: ${r.error}`);
          rows[`${mode.key}.threads${n}Error`] = r.error;
          break;
        }
        runs.push(r);
      }
      if (runs.length < SERVE_RUNS) continue;
      // the highest peak (the machine must hold it); the lowest settled RSS (freed memory a
      // thread's allocator has not handed back yet only adds to it)
      const peakMb = Math.max(...runs.map((r) => r.peakMb));
      const settledMb = Math.min(...runs.map((r) => r.settledMb));
      rows[`${mode.key}.threads${n}PeakMb`] = peakMb;
      rows[`${mode.key}.threads${n}SettledMb`] = settledMb;
      rows[`${mode.key}.threads${n}ReadyS`] = runs[0].readyS;
      const one = rows[`${mode.key}.threads1SettledMb`];
      const added =
        n > 1 && typeof one === 'number'
          ? `  (+${((settledMb - one) / (n - 1)).toFixed(0)} MB settled per added thread)`
          : '';
      const each = runs.map((r) => `${r.peakMb.toFixed(0)} / ${r.settledMb.toFixed(0)}`).join(', ');
      console.log(
        `    ${threads}: ready in ${runs[0].readyS.toFixed(1)} s, peak RSS ${peakMb.toFixed(0)} MB, settled ${settledMb.toFixed(0)} MB${added} (runs, peak / settled: ${each})`,
      );
    }
  }
  recordFigures(b, 'serve', rows);
}

async function stepRoute(b: MetroBench): Promise<void> {
  await ensureImported(b);
  await compareRouting(b, { label: 'metro', dataDir: b.dataDir, region: 'metro', pbf: b.file, timeZone: TZ });
}

async function stepSizes(b: MetroBench): Promise<void> {
  const balt = join(b.dir, 'baltimore-data');
  try {
    metroGraph(balt, 'baltimore');
  } catch {
    const f = await importMeasured(BALTIMORE_PBF, balt, 'baltimore');
    console.log(
      `  Baltimore import: ${f.summary}; ${(f.wallS as number).toFixed(1)} s, ${(f.peakMb as number).toFixed(0)} MB`,
    );
    recordFigures(b, 'import-baltimore', f);
  }
  await compareRouting(b, { label: 'baltimore', dataDir: balt, region: 'baltimore', pbf: BALTIMORE_PBF, timeZone: TZ });
  const grid = gridSearchP50();
  console.log(
    `  in-memory 1 M-edge grid (no HTTP): search p50 ${grid.p50.toFixed(1)} ms, p99 ${grid.p99.toFixed(1)} ms over ${grid.pairs} pairs at Monday 08:00`,
  );
  recordFigures(b, 'grid', { searchP50Ms: grid.p50, searchP99Ms: grid.p99 });
}

const STEPS: Record<string, (b: MetroBench) => Promise<void>> = {
  generate: stepGenerate,
  import: stepImport,
  serve: stepServe,
  parking: async (b) => {
    await ensureImported(b);
    await benchSharedParking(b);
  },
  route: stepRoute,
  sizes: stepSizes,
  live: async (b) => {
    await ensureImported(b);
    await benchLiveUpdates(b);
  },
  tiles: async (b) => {
    await ensureImported(b);
    await benchTiles(b);
  },
  pipeline: async (b) => {
    await ensureImported(b);
    await benchPipeline(b);
  },
  analytics: async (b) => {
    await ensureImported(b);
    await benchAnalyticsMonth(b);
  },
};

/** Runs the metro benchmark (every step, or the one named by `--step`). */
export async function benchMetro(): Promise<void> {
  const o = metroOptions(process.argv.slice(2));
  if (o.step !== undefined && !STEPS[o.step])
    throw new Error(`unknown step "${o.step}"; choose from ${Object.keys(STEPS).join(', ')}`);
  ensureBuilt();
  console.log(`metro: at least ${o.edges} directed edges, seed ${o.seed}, working directory ${o.dir}`);
  for (const [name, step] of Object.entries(STEPS)) {
    if (o.step !== undefined && o.step !== name) continue;
    console.log(`\n-- ${name}`);
    const t0 = performance.now();
    await step(o);
    console.log(`  (${name} took ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  console.log('\nfigures recorded so far (DIR/figures.json):');
  for (const [k, v] of Object.entries(readFigures(o))) console.log(`  ${k}: ${JSON.stringify(v)}`);
}
