/**
 * Ingestion scaled out, with real processes on one PostgreSQL and one NATS: a seeded fleet feed of
 * Baltimore (≥ 1 M pings, ≥ 5 000 traces, in time order) arrives through two doors at once — HTTP
 * posts to a serving process (`ROLES=serving`) and a JetStream subject that the ingestion workers
 * (`ROLES=ingestion`) consume; each ping goes to one door by a hash, so most traces arrive through
 * both. Three runs, each in a fresh schema: one worker; two workers; three workers of which one is
 * killed (SIGKILL) a third into the feed and started again at two thirds. Prints pings/s end to end
 * (first ping sent → nothing pending) and the CPU time of each worker process, the takeover time
 * after the kill (until every partition is held again), and whether the traversals, intersection
 * facts and learned speed bins of every run equal those of the one-worker run (digests over the
 * whole tables), with the pings stored against those sent.
 * `BENCH_SCALE_PINGS` sets the feed size (default 1 000 000).
 */
import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Region } from '../src/network/region.js';
import { simulate } from '../src/sim/simulator.js';
import type { ProbeRecord } from '../src/probes/ingest/records.js';
import { fnv1a32 } from '../src/probes/partition.js';
import { openPostgres, runMigrations, type Db } from '../src/store/index.js';
import { allMigrations } from '../src/app/migrations.js';
import { countHeld } from '../src/store/partition-leases.js';
import { probePool } from '../src/app/ingestion/intake.js';
import { createApp, hashTokenFor } from '../src/auth/index.js';
import { appToken, startServer, type ServerProcess } from '../test/helpers/processes.js';
import { baltimoreDataDir } from './lib/baltimore-server.js';

const NATS_URL = 'nats://127.0.0.1:4222';
/** Pings per HTTP post and per NATS message. */
const PER_POST = 2000;
const PER_MESSAGE = 200;
/** HTTP posts in flight. */
const POSTS_IN_FLIGHT = 4;

/** CPU time (user + system) a process has used, seconds (Linux: clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Order-independent digest of a query's rows: count and a sum of 60-bit row hashes. */
async function digest(db: Db, select: string): Promise<string> {
  const r = await db.query<{ n: number; h: string }>(
    `SELECT count(*)::int AS n, coalesce(sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint::numeric), 0)::text AS h
     FROM (${select}) t`,
  );
  return `${r.rows[0].n}:${r.rows[0].h}`;
}

/** The digests of what processing leaves. */
async function tables(db: Db): Promise<Record<string, string>> {
  return {
    traversals: await digest(
      db,
      'SELECT trace_id, part, seq, edge_id, enter_s, exit_s, covered, bin_of_week, speed_kph, pings FROM probe_traversals',
    ),
    facts: await digest(
      db,
      `SELECT trace_id, part, intersection_key, occurrence, movement_id, entry_s, exit_s, travel_time_s, free_flow_s,
         control_delay_s, stopped, stop_duration_s, approach_speed_kph FROM analytics_fact`,
    ),
    learned: await digest(
      db,
      'SELECT edge_id, bin_of_week, samples, sum_length_mm, sum_duration_ms FROM learned_speed_bins',
    ),
  };
}

/** A seeded feed of `want` pings at least, in time order. */
async function makeFeed(region: Region, want: number): Promise<ProbeRecord[]> {
  const out: ProbeRecord[] = [];
  // weekday daytime hours of Baltimore, every vehicle a probe every 3 s
  for await (const b of simulate(region, {
    startS: Date.UTC(2026, 0, 6, 11, 0) / 1000,
    durationS: 10 * 3600,
    penetration: 1,
    intervalS: 3,
    seed: 40,
    tracePrefix: 'scale',
    stopAtEnd: true,
  })) {
    out.push(...b);
    if (out.length >= want * 1.02) break;
  }
  out.sort((a, b) => a.ping.tS - b.ping.tS);
  return out.slice(0, want);
}

interface RunFigures {
  workers: number;
  seconds: number;
  cpu: number[];
  takeoverS?: number;
  stored: number;
  tables: Record<string, string>;
}

/** One run in a fresh schema with `n` workers; `kill` kills worker 1 a third in and restarts it at two thirds. */
async function run(
  pgUrl: string,
  dataDir: string,
  region: Region,
  feed: ProbeRecord[],
  n: number,
  kill: boolean,
): Promise<RunFigures> {
  const tag = `${process.pid}_${n}${kill ? 'k' : ''}_${Date.now() % 100000}`;
  const schema = `bench_scale_${tag}`;
  const admin = await openPostgres(pgUrl);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const db = await openPostgres(url);
  await runMigrations(db, allMigrations());
  const app = await createApp(db, { name: 'scale', admin: true });
  const subject = `streetwise.bench.${tag}`;
  const stream = `SWSCALE_${tag}`;
  const nc = await connect({ servers: NATS_URL });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [subject] });
  const env = { DATA_DIR: dataDir, REGION: 'baltimore', DATABASE_URL: url, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };
  const workerEnv = {
    ...env,
    ROLES: 'ingestion',
    PROBES_NATS_URL: NATS_URL,
    PROBES_NATS_SUBJECT: subject,
    PROBES_NATS_STREAM: stream,
    PROBES_NATS_DURABLE: `scale-${tag}`,
  };
  const servers: ServerProcess[] = [];
  const started = async (e: Record<string, string>): Promise<ServerProcess> => {
    const s = await startServer(e, 600_000, [], true);
    servers.push(s);
    return s;
  };
  try {
    const serving = await started({ ...env, ROLES: 'serving' });
    const token = (await appToken(serving.url, app.appId, hashTokenFor(app.appId, app.appKey))).token!;
    const workers: ServerProcess[] = [];
    for (let i = 0; i < n; i++) workers.push(await started(workerEnv));
    const cpuDone: number[] = new Array(n).fill(0);
    const pool = probePool(region.meta.name);
    while ((await countHeld(db, pool)) < 64) await new Promise((r) => setTimeout(r, 100));
    const js = jetstream(nc);
    const t0 = performance.now();
    let takeoverS: number | undefined;
    const chunk = 20_000;
    for (let i = 0; i < feed.length; i += chunk) {
      if (kill && i === Math.floor(feed.length / 3 / chunk) * chunk) {
        cpuDone[1] += cpuSeconds(workers[1].child.pid!);
        const k0 = performance.now();
        await workers[1].kill();
        while ((await countHeld(db, pool)) < 64) await new Promise((r) => setTimeout(r, 50));
        takeoverS = (performance.now() - k0) / 1000;
      }
      if (kill && i === Math.floor((2 * feed.length) / 3 / chunk) * chunk) workers[1] = await started(workerEnv);
      const part = feed.slice(i, i + chunk);
      const http: ProbeRecord[] = [];
      const nats: ProbeRecord[] = [];
      for (const r of part) (fnv1a32(Buffer.from(`${r.traceId}@${r.ping.tS}`)) & 1 ? nats : http).push(r);
      const ndjson = (rs: ProbeRecord[]): string =>
        rs
          .map((r) =>
            JSON.stringify({
              traceId: r.traceId,
              timestamp: r.ping.tS,
              lat: r.ping.lat,
              lon: r.ping.lon,
              speedKph: r.ping.speedKph,
            }),
          )
          .join('\n');
      const posts: Array<() => Promise<void>> = [];
      for (let k = 0; k < http.length; k += PER_POST) {
        const body = ndjson(http.slice(k, k + PER_POST));
        posts.push(async () => {
          const r = await fetch(`${serving.url}/v1/probes?defer=true`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
            body,
          });
          if (r.status !== 200)
            throw new Error(
              `POST /v1/probes answered ${r.status}: ${await r.text()}\n${serving.stderr()}\n${serving
                .stdout()
                .split('\n')
                .filter((l) => /"level":5/.test(l))
                .join('\n')}`,
            );
        });
      }
      const publishing = (async () => {
        for (let k = 0; k < nats.length; k += PER_MESSAGE)
          await js.publish(subject, ndjson(nats.slice(k, k + PER_MESSAGE)));
      })();
      for (let k = 0; k < posts.length; k += POSTS_IN_FLIGHT)
        await Promise.all(posts.slice(k, k + POSTS_IN_FLIGHT).map((p) => p()));
      await publishing;
    }
    for (;;) {
      const r = await db.query<{ stored: number; pending: number }>(
        'SELECT (SELECT count(*)::int FROM probe_pings) AS stored, (SELECT count(*)::int FROM probe_pending) AS pending',
      );
      if (r.rows[0].stored >= feed.length && r.rows[0].pending === 0) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = workers.map((w, i) => cpuDone[i] + cpuSeconds(w.child.pid!));
    const stored = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_pings')).rows[0].n);
    return { workers: n, seconds, cpu, takeoverS, stored, tables: await tables(db) };
  } finally {
    for (const s of servers) await s.kill().catch(() => undefined);
    await jsm.streams.delete(stream).catch(() => false);
    await nc.close();
    await db.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
  }
}

/** Runs the scale-out benchmark. */
export async function benchIngestScale(): Promise<void> {
  const pgUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!pgUrl) {
    console.log('ingest-scale: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL database; skipped');
    return;
  }
  const dir = await baltimoreDataDir('streetwise-bench-scale-');
  if (dir === undefined) {
    console.log('ingest-scale: ../shared/data/baltimore.osm.pbf not found, skipped');
    return;
  }
  try {
    const want = Number(process.env.BENCH_SCALE_PINGS ?? 1_000_000);
    const feed = await makeFeed(dir.region, want);
    const traces = new Set(feed.map((r) => r.traceId)).size;
    console.log(
      `feed: ${feed.length} pings of ${traces} traces (Baltimore, seeded), half over HTTP, half over NATS by ping`,
    );
    const runs: RunFigures[] = [];
    for (const [n, kill] of [
      [1, false],
      [2, false],
      [3, true],
    ] as const) {
      const r = await run(pgUrl, dir.dataDir, dir.region, feed, n, kill);
      runs.push(r);
      const same = Object.keys(r.tables).every((k) => r.tables[k] === runs[0].tables[k]);
      console.log(
        `  ${n} worker${n > 1 ? 's' : ''}${kill ? ', one killed at 1/3 and restarted at 2/3' : ''}: ${Math.round(feed.length / r.seconds)} pings/s end to end ` +
          `(${r.seconds.toFixed(1)} s); worker CPU ${r.cpu.map((c) => `${c.toFixed(1)} s`).join(', ')}` +
          `${r.takeoverS !== undefined ? `; takeover ${r.takeoverS.toFixed(2)} s` : ''}; pings stored ${r.stored} of ${feed.length}; ` +
          `tables ${
            n === 1
              ? `${Object.entries(r.tables)
                  .map(([k, v]) => `${k} ${v.split(':')[0]} rows`)
                  .join(', ')}`
              : same
                ? 'identical to 1 worker'
                : `DIFFERENT: ${JSON.stringify(r.tables)} vs ${JSON.stringify(runs[0].tables)}`
          }`,
      );
    }
  } finally {
    dir.remove();
  }
}
