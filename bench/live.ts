/**
 * Serving while a probe feed arrives, measured as users meet it, on Baltimore. On the embedded
 * database the compiled server runs in its own process with both roles (serving threads and its
 * ingestion thread); on PostgreSQL, as recommended, two serving processes (`ROLES=serving`) and two
 * ingestion processes (`ROLES=ingestion`). A load process per serving process, holding nothing but
 * its requests (`lib/timed-load.ts`), sends FindRoute at a fixed rate over keep-alive connections
 * and polls `/healthz`, while a feeder in another process (`lib/feeder.ts`) posts simulated probe
 * pings back to back (NDJSON, 600 a request, current timestamps, several requests in flight) in
 * every other window: quiet and feed windows alternate, so both kinds sample the same stretch of
 * time and the machine's own noise falls on both alike. One feed window before them warms the
 * ingestion path up (printed apart, not counted). Prints FindRoute p50/p99 in the quiet windows vs
 * the feed windows, the slowest `/healthz`, the pings ingested per second end to end (stored,
 * matched, speeds and facts updated) and, on PostgreSQL, how soon after a `speeds` change is
 * written both serving processes apply it; then 1 M-ping CSV and NDJSON bodies streamed in (stored,
 * the post not waiting for processing, which runs meanwhile) with the serving process's peak RSS, and one body of simulated traffic
 * processed end to end. PostgreSQL is measured when BENCH_DATABASE_URL or TEST_DATABASE_URL is set
 * (in a fresh schema). `BENCH_LIVE_ONLY=pglite` or `postgresql` measures one backend;
 * `BENCH_LIVE_BULK=0` skips the large bodies, `BENCH_LIVE_FEED=0` everything before them.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import type { Region } from '../src/network/region.js';
import { openPostgres } from '../src/store/index.js';
import { localParts, parseIsoToUnixS } from '../src/time/index.js';
import { startServer, type ServerProcess } from '../test/helpers/processes.js';
import { BALTIMORE_PBF, baltimoreDataDir, startBaltimoreServer } from './lib/baltimore-server.js';
import { odPairs, searchRun } from './routing.js';
import { RoutingEngine } from '../src/routing/engine.js';
import { SpeedFeeds } from '../src/traffic/feeds.js';
import { probeBody } from '../test/helpers/probe-bodies.js';
import { FEED_CONCURRENCY, PINGS_PER_POST, feedBodies, startFeeder } from './lib/feeder.js';
import { quantile, runLoad, type LoadRequest } from './lib/http-load.js';
import { nowMs, startTimedLoad, type TimedLoadResult } from './lib/timed-load.js';
import { reniceBackends, type Renicer } from './lib/renice-backends.js';
import { INGESTION_NICE } from '../src/app/ingestion/worker.js';

/** FindRoute requests per second, quiet and during the feed. */
const RATE = 100;
/** Windows of each kind: quiet, then feed, this many times. */
const ROUNDS = 6;
const WINDOW_MS = 10_000;
/** Left out of the quiet windows after the feed pauses: the last posts' speed reloads. */
const SETTLE_MS = 1_000;
/** Pings of each large body. */
const BULK_PINGS = 1_000_000;

/** Figures of the requests started inside a set of windows. */
interface WindowFigures {
  n: number;
  p50: number;
  p99: number;
  errors: number;
  healthMaxMs: number;
  healthStates: Set<string>;
  p99s: number[];
}

/** FindRoute and `/healthz` figures of the samples whose start lies inside one of `windows` ([from, to) unix ms). */
function inWindows(run: TimedLoadResult, windows: Array<[number, number]>): WindowFigures {
  const inside = (t: number): number => windows.findIndex(([a, b]) => t >= a && t < b);
  const all: number[] = [];
  const each: number[][] = windows.map(() => []);
  let errors = 0;
  for (const [t, ms, status] of run.requests) {
    const w = inside(t);
    if (w < 0) continue;
    if (status !== 200) errors++;
    all.push(ms);
    each[w].push(ms);
  }
  let healthMaxMs = 0;
  const healthStates = new Set<string>();
  for (const [t, ms, status] of run.health) {
    if (inside(t) < 0) continue;
    healthMaxMs = Math.max(healthMaxMs, ms);
    healthStates.add(status);
  }
  return {
    n: all.length,
    p50: quantile(all, 0.5),
    p99: quantile(all, 0.99),
    errors,
    healthMaxMs,
    healthStates,
    p99s: each.map((w) => quantile(w, 0.99)),
  };
}

/**
 * Unix seconds of 10:00 local time (`tz`) on the latest Monday to Friday at least two days back:
 * the end of a morning peak, so a body simulated before it carries the same traffic whenever the
 * benchmark runs.
 */
function pastMorningPeakEndS(tz: string): number {
  for (let d = 2; d < 10; d++) {
    const p = localParts(Date.now() / 1000 - d * 86400, tz);
    if (p.dayOfWeek < 1 || p.dayOfWeek > 5) continue;
    const iso = `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}T10:00:00`;
    return parseIsoToUnixS(iso, tz) as number;
  }
  throw new Error('no weekday found');
}

/** Peak resident memory of a process so far, MB (Linux). */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * Large bodies: 1 M generated pings as CSV and as NDJSON, stored with `defer=true` (streamed; the
 * server's peak RSS shows what it held), then one body of simulated Baltimore traffic processed
 * end to end in one request.
 */
async function bulk(server: ServerProcess, token: string, region: Region, regionDir: string): Promise<void> {
  const pid = server.child.pid!;
  // the morning peak 07:00–10:00 local of a recent weekday: the same traffic whenever this runs
  const bodies = await feedBodies(regionDir, 180, 1, pastMorningPeakEndS(region.meta.timeZone || 'UTC'));
  const body = bodies[0];
  const n = body.split('\n').length;
  const t0 = performance.now();
  const r = await fetch(`${server.url}/v1/probes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    body,
  });
  const rep = (await r.json()) as { matched?: { traces: number; traversals: number }; intersectionFacts?: number };
  const s = (performance.now() - t0) / 1000;
  console.log(
    `  one body of ${n} simulated pings (07:00–10:00 local of a weekday, ${rep.matched?.traces} vehicles, grouped by vehicle), processed end to end: ${s.toFixed(1)} s = ${Math.round(n / s)} pings/s (${rep.matched?.traversals} traversals, ${rep.intersectionFacts} facts)`,
  );
  for (const format of ['csv', 'ndjson'] as const) {
    const before = peakRssMb(pid);
    const t0 = performance.now();
    const r = await fetch(`${server.url}/v1/probes?defer=true`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': format === 'csv' ? 'text/csv' : 'application/x-ndjson',
      },
      body: Readable.from(probeBody(format, BULK_PINGS, `bulk-${format}-`)) as unknown as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const rep = (await r.json()) as { received?: number; inserted?: number };
    const s = (performance.now() - t0) / 1000;
    console.log(
      `  1 M pings as ${format.toUpperCase()} over HTTP (stored; processed meanwhile, not waited for): HTTP ${r.status}, ${rep.received} received, ${rep.inserted} new in ${s.toFixed(1)} s = ${Math.round((rep.received ?? 0) / s)} pings/s; server peak RSS ${before.toFixed(0)} → ${peakRssMb(pid).toFixed(0)} MB`,
    );
  }
}

async function runBackend(
  label: string,
  dataDir: string,
  region: Region,
  databaseUrl: string | undefined,
): Promise<void> {
  const regionDir = join(dataDir, 'regions', 'baltimore');
  // on PostgreSQL the recommended deployment: two serving processes and two ingestion processes
  const pg = databaseUrl !== undefined;
  const { server, token } = await startBaltimoreServer(dataDir, {
    databaseUrl,
    admin: true,
    env: pg ? { ROLES: 'serving' } : {},
  });
  const others: ServerProcess[] = [];
  const processEnv = { DATA_DIR: dataDir, REGION: 'baltimore', DATABASE_URL: databaseUrl ?? '' };
  if (pg) {
    others.push(await startServer({ ...processEnv, ROLES: 'serving' }, 600_000, [], true));
    for (let i = 0; i < 2; i++)
      others.push(await startServer({ ...processEnv, ROLES: 'ingestion' }, 600_000, [], true));
  }
  const serving = pg ? [server, others[0]] : [server];
  // the ingestion processes' database sessions at the priority of the ingestion thread, as on a machine
  // where PostgreSQL shares the cores with them (BENCH_LIVE_DB_NICE=0 leaves them at normal priority)
  const dbNice = Number(process.env.BENCH_LIVE_DB_NICE ?? INGESTION_NICE);
  let renicer: Renicer | undefined;
  if (pg && dbNice !== 0) renicer = await reniceBackends(databaseUrl!, 'streetwise ingestion', dbNice);
  try {
    if (process.env.BENCH_LIVE_FEED === '0') {
      console.log(`${label}: serving during a feed skipped (BENCH_LIVE_FEED=0); large bodies on a fresh server`);
      await bulk(server, token, region, regionDir);
      return;
    }
    const pairs = odPairs(region.graph, 500, 42);
    const requests: LoadRequest[] = pairs.map(([a, b]) => ({
      path: `/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=${a.lat},${a.lon}&WP_2=${b.lat},${b.lon}&Token=${token}`,
    }));
    const ports = serving.map((x) => Number(new URL(x.url).port));
    for (const port of ports)
      await runLoad({ host: '127.0.0.1', port, requests, connections: 4, newConnection: false, total: 4000 }); // warm-up (JIT)
    // twelve hours of every simulated vehicle (a peak whatever the hour), built and posted by another process: more bodies than
    // the feed can take in all its windows
    const feed = await startFeeder({ url: server.url, token, regionDir, minutes: 720 });
    const loads = await Promise.all(
      ports.map((port) =>
        startTimedLoad({
          host: '127.0.0.1',
          port,
          requests,
          connections: 4 / ports.length,
          rate: RATE / ports.length,
          healthEveryMs: 100,
        }),
      ),
    );
    let perProcess: TimedLoadResult[] = [];
    const load = {
      start: () => {
        for (const l of loads) l.start();
      },
      stop: async (): Promise<TimedLoadResult> => {
        perProcess = await Promise.all(loads.map((l) => l.stop()));
        return { requests: perProcess.flatMap((r) => r.requests), health: perProcess.flatMap((r) => r.health) };
      },
    };
    const propagation = pg ? sampleSpeedPropagation(databaseUrl!, serving) : undefined;
    // one continuous load; quiet and feed windows alternate, so both kinds sample the same stretch of time
    const quietWindows: Array<[number, number]> = [];
    const feedWindows: Array<[number, number]> = [];
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    load.start();
    await sleep(SETTLE_MS);
    // the feed's first seconds after start-up are a one-time cost (the ingestion path compiled, the learned bins of a
    // fresh region created): a warm-up window, printed but not counted, as the requests before the load are for FindRoute
    const w0 = nowMs();
    feed.resume();
    await sleep(WINDOW_MS);
    const warmUp: [number, number] = [w0, nowMs()];
    await feed.pause();
    await sleep(SETTLE_MS);
    for (let i = 0; i < ROUNDS; i++) {
      const q0 = nowMs();
      await sleep(WINDOW_MS);
      quietWindows.push([q0, nowMs()]);
      const f0 = nowMs();
      feed.resume();
      await sleep(WINDOW_MS);
      feedWindows.push([f0, nowMs()]);
      await feed.pause();
      await sleep(SETTLE_MS);
    }
    const run = await load.stop();
    // a learned speed above a window table's bound drops the table in the thread that sees it (it
    // searches on other bounds until the builder's new one arrives): how often the feed did so
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const tables = [...metrics.matchAll(/streetwise_window_tables\{event="(\w+)"\} (\d+)/g)]
      .map((m) => `${m[1]} ${m[2]}`)
      .join(', ');
    if (tables) console.log(`  window tables of one serving thread: ${tables}`);
    const fed = await feed.stop();
    const lags = await propagation?.stop();
    if (fed.ranOut) console.log(`  (the feed ran out of its ${feed.bodies} bodies)`);
    const quiet = inWindows(run, quietWindows);
    const during = inWindows(run, feedWindows);
    const f = (x: number) => x.toFixed(2);
    console.log(
      `${label}: ${pg ? '2 serving processes (ROLES=serving) and 2 ingestion processes (ROLES=ingestion); ' : ''}FindRoute at ${RATE}/s over 4 keep-alive connections from ${pg ? 'a process per serving process' : 'a process of its own'}; ${ROUNDS} × (${WINDOW_MS / 1000} s quiet, ${WINDOW_MS / 1000} s feed), alternating`,
    );
    for (const [name, w] of [
      ['quiet', quiet],
      ['during feed', during],
    ] as const) {
      console.log(
        `  ${name.padEnd(12)} p50 ${f(w.p50)} ms  p99 ${f(w.p99)} ms  (${w.n} requests; p99 per window ${w.p99s.map(f).join(' ')})  /healthz max ${f(w.healthMaxMs)} ms (${[...w.healthStates].join(', ')})  errors ${w.errors}`,
      );
    }
    const warm = inWindows(run, [warmUp]);
    console.log(
      `  feed warm-up (first ${WINDOW_MS / 1000} s of feed after start-up, not counted above) p50 ${f(warm.p50)} ms  p99 ${f(warm.p99)} ms  /healthz max ${f(warm.healthMaxMs)} ms  errors ${warm.errors}`,
    );
    console.log(`  p99 during / quiet ${(during.p99 / quiet.p99).toFixed(2)}  (target ≤ 2)`);
    if (perProcess.length > 1)
      perProcess.forEach((r, i) => {
        const q = inWindows(r, quietWindows);
        const d = inWindows(r, feedWindows);
        console.log(
          `  serving process ${i + 1}${i === 0 ? ' (receives the feed posts)' : ''}: p99 quiet ${f(q.p99)} ms, during feed ${f(d.p99)} ms (× ${(d.p99 / q.p99).toFixed(2)})`,
        );
      });
    console.log(
      `  feed: ${fed.posts} posts of ${PINGS_PER_POST} pings, ${FEED_CONCURRENCY} in flight: ${Math.round(fed.pings / fed.seconds)} pings/s ingested end to end (stored, matched, speeds, facts) over ${fed.seconds.toFixed(1)} s of posting`,
    );
    if (lags !== undefined && lags.length > 0) {
      console.log(
        `  speeds of the feed used by both serving processes: p50 ${quantile(lags, 0.5).toFixed(0)} ms, max ${Math.max(...lags).toFixed(0)} ms after the statement that announced them, the last of their transaction (${lags.length} changes sampled; target ≤ 1 000 ms)`,
      );
    }
    if (process.env.BENCH_LIVE_BULK !== '0') await bulk(server, token, region, regionDir);
  } finally {
    if (renicer)
      console.log(`  (${renicer.reniced()} database sessions of the ingestion processes ran at nice ${dbNice})`);
    await renicer?.stop();
    await server.stop();
    for (const o of others) await o.stop();
  }
}

/**
 * Samples, until `stop()`, how long after a `speeds` change was written every serving process has
 * applied it (its `/healthz` reports the change log position it applied through): the newest change
 * every 250 ms, its time from `change_log.at` (when the announcement, the last statement of the
 * writing transaction, was written).
 */
function sampleSpeedPropagation(databaseUrl: string, servers: ServerProcess[]): { stop: () => Promise<number[]> } {
  const lags: number[] = [];
  let stopped = false;
  const applied = async (url: string): Promise<number> =>
    ((await (await fetch(`${url}/healthz`)).json()) as { changes?: { appliedThrough: number } }).changes
      ?.appliedThrough ?? 0;
  const loop = (async () => {
    const db = await openPostgres(databaseUrl, { max: 1 });
    let last = 0;
    try {
      while (!stopped) {
        const r = await db.query<{ seq: number; at_ms: number }>(
          "SELECT seq, extract(epoch FROM at) * 1000 AS at_ms FROM change_log WHERE topic = 'speeds' ORDER BY seq DESC LIMIT 1",
        );
        const c = r.rows[0];
        if (c !== undefined && Number(c.seq) > last) {
          last = Number(c.seq);
          const seen = await Promise.all(
            servers.map(async (x) => {
              const end = Date.now() + 5000;
              while (Date.now() < end && (await applied(x.url)) < last) await new Promise((res) => setTimeout(res, 5));
              return Date.now();
            }),
          );
          lags.push(Math.max(...seen) - Number(c.at_ms));
        }
        await new Promise((res) => setTimeout(res, 250));
      }
    } finally {
      await db.close();
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return lags;
    },
  };
}

/**
 * The host's speed when the figures above were taken, as `bench -- routing` measures it (the
 * in-process search, Baltimore, 1000 seeded pairs at Monday 08:00): this VM's speed varies by
 * more than × 2 from hour to hour, and the absolute figures above move with it. Run after the
 * backends, so the engine it builds is not in this process while they are timed.
 */
function hostReference(region: Region): void {
  const dep = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000; // Monday 08:00 America/New_York
  const eng = new RoutingEngine(region.graph, new SpeedFeeds(), null, region.meta.timeZone);
  eng.prepareWindows(dep);
  const s = searchRun(eng, odPairs(region.graph, 1000, 1), dep, 100);
  console.log(
    `host reference: in-process search (plan), 1000 pairs, Mon 08:00 p50 ${quantile(s.ms, 0.5).toFixed(3)} ms (docs/routing.md: 0.116 ms on a faster state of this VM)`,
  );
}

/** Runs the live benchmark. */
export async function benchLive(): Promise<void> {
  const only = process.env.BENCH_LIVE_ONLY;
  if (only !== undefined && only !== 'pglite' && only !== 'postgresql')
    throw new Error(`BENCH_LIVE_ONLY must be pglite or postgresql, got "${only}"`);
  const bulkFlag = process.env.BENCH_LIVE_BULK;
  if (bulkFlag !== undefined && bulkFlag !== '0' && bulkFlag !== '1')
    throw new Error(`BENCH_LIVE_BULK must be 0 or 1, got "${bulkFlag}"`);
  const feedFlag = process.env.BENCH_LIVE_FEED;
  if (feedFlag !== undefined && feedFlag !== '0' && feedFlag !== '1')
    throw new Error(`BENCH_LIVE_FEED must be 0 or 1, got "${feedFlag}"`);
  if (feedFlag === '0' && bulkFlag === '0')
    throw new Error('BENCH_LIVE_FEED=0 with BENCH_LIVE_BULK=0 leaves nothing to measure');
  const dir = await baltimoreDataDir('streetwise-bench-live-');
  if (dir === undefined) {
    console.log(`live: ${BALTIMORE_PBF} not found, skipped`);
    return;
  }
  const { dataDir, region } = dir;
  try {
    if (only !== 'postgresql') await runBackend('PGlite (embedded)', dataDir, region, undefined);
    const pgUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
    if (only === 'pglite') console.log('PostgreSQL: skipped (BENCH_LIVE_ONLY=pglite)');
    else if (pgUrl) {
      const schema = `bench_live_${process.pid}`;
      const admin = await openPostgres(pgUrl);
      await admin.query(`CREATE SCHEMA ${schema}`);
      try {
        const url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
        await runBackend('PostgreSQL', dataDir, region, url);
      } finally {
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.close();
      }
    } else {
      console.log('PostgreSQL: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to measure it too');
    }
    hostReference(region);
  } finally {
    dir.remove();
  }
}
