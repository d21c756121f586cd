/**
 * The request path as users meet it: `streetwise serve` in its own process on loopback (Baltimore,
 * embedded database), requests from this process over real TCP (bench/lib/http-load.ts, raw
 * sockets, prebuilt requests), the seeded 1000 origin–destination pairs of the routing bench.
 *
 * For FindRoute (JSON and XML, 0/1/2 alternates), GetRoute and GetRouteTravelTimes, at Monday
 * 08:00 and 03:00 local time (the next ones):
 * - latency p50/p95/p99 with one request at a time, a new TCP connection per request
 *   (Connection: close) and over one keep-alive connection;
 * - throughput with 16 connections, new connections and keep-alive (with wrk -t2 -c16 when the
 *   `wrk` binary is installed, as OSRM's figures are taken; otherwise with the Node client).
 * Then the server's peak RSS. `BENCH_HTTP_WORKERS` sets the serving threads (default: the
 * server's own default, one per core). The figures are steady-state: a warm-up of 11 000 requests
 * (8 000 on new connections) runs first.
 */
import { readFileSync } from 'node:fs';
import { localParts, parseIsoToUnixS } from '../src/time/index.js';
import type { ServerProcess } from '../test/helpers/processes.js';
import { BALTIMORE_PBF, baltimoreDataDir, startBaltimoreServer } from './lib/baltimore-server.js';
import { odPairs } from './routing.js';
import { hasWrk, runWrk } from './lib/wrk.js';
import { quantile, runLoad, type LoadRequest, type LoadResult } from './lib/http-load.js';

const PAIRS = 1000;
const LATENCY_REQUESTS = 1000;
const THROUGHPUT_MS = 8000;
/** New-connection requests per departure time in the warm-up. */
const WARM_UP_NEW = 4000;

/** Unix seconds of the next Monday at `hh`:00 local time in `tz`. */
function nextMonday(tz: string, hh: number): number {
  for (let d = 1; d <= 8; d++) {
    const p = localParts(Date.now() / 1000 + d * 86400, tz);
    if (p.dayOfWeek !== 1) continue;
    const iso = `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}T${String(hh).padStart(2, '0')}:00:00`;
    return parseIsoToUnixS(iso, tz) as number;
  }
  throw new Error('no Monday ahead');
}

function isoZ(s: number): string {
  return new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function fmt(r: LoadResult): string {
  const bad = r.errors + [...r.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
  return `p50 ${quantile(r.ms, 0.5).toFixed(2)}  p95 ${quantile(r.ms, 0.95).toFixed(2)}  p99 ${quantile(r.ms, 0.99).toFixed(2)} ms${bad ? `  (${bad} failed, e.g. ${r.sampleFailure})` : ''}`;
}

function rate(r: LoadResult): string {
  return `${Math.round((r.ms.length * 1000) / r.durationMs)} req/s`;
}

/** Runs the HTTP benchmark. */
export async function benchHttp(): Promise<void> {
  const dir = await baltimoreDataDir('streetwise-bench-http-');
  if (dir === undefined) {
    console.log(`http: ${BALTIMORE_PBF} not found, skipped`);
    return;
  }
  const { dataDir, region } = dir;
  let server: ServerProcess | undefined;
  try {
    const workers = process.env.BENCH_HTTP_WORKERS;
    const started = await startBaltimoreServer(dataDir, { env: workers ? { SERVING_THREADS: workers } : {} });
    server = started.server;
    const token = started.token;
    const { hostname, port } = new URL(server.url);
    const host = hostname;
    const p = Number(port);
    const pairs = odPairs(region.graph, PAIRS, 42);
    const tz = region.meta.timeZone || 'UTC';
    console.log(
      `server: ${server.url}, region baltimore (${region.graph.nodeCount} nodes, ${region.graph.edgeCount} edges), client: this process`,
    );
    const find = (depS: number, extra: string): LoadRequest[] =>
      pairs.map(([a, b]) => ({
        path: `/traffic/api.ashx?Action=FindRoute&WP_1=${a.lat.toFixed(6)},${a.lon.toFixed(6)}&WP_2=${b.lat.toFixed(6)},${b.lon.toFixed(6)}&DepartureTime=${isoZ(depS)}&Token=${token}${extra}`,
      }));
    const latency = (reqs: LoadRequest[], newConnection: boolean) =>
      runLoad({ host, port: p, requests: reqs, connections: 1, newConnection, total: LATENCY_REQUESTS });
    const throughput = (reqs: LoadRequest[], newConnection: boolean) =>
      runLoad({ host, port: p, requests: reqs, connections: 16, newConnection, durationMs: THROUGHPUT_MS });
    const wrk = hasWrk();
    // warm-up to steady state (a server runs for days): JIT of the request path over keep-alive and
    // over new connections (the accept and socket set-up paths of both serving threads, and this
    // client's), window tables of both departures. Latency keeps dropping over the first few
    // thousand new connections; after WARM_UP_NEW it is flat.
    for (const hh of [8, 3]) {
      const reqs = find(nextMonday(tz, hh), '&Format=JSON');
      await runLoad({ host, port: p, requests: reqs, connections: 4, newConnection: false, total: 1500 });
      await runLoad({ host, port: p, requests: reqs, connections: 4, newConnection: true, total: WARM_UP_NEW });
    }
    console.log(`(after a warm-up of ${2 * (1500 + WARM_UP_NEW)} requests, half of them on new connections)`);

    // latency first for both departures, then throughput: a throughput run leaves seconds of
    // route-store writes behind it that a latency run right after would measure
    for (const hh of [8, 3]) {
      const depS = nextMonday(tz, hh);
      console.log(`\nMonday ${String(hh).padStart(2, '0')}:00 local (${isoZ(depS)}), one request at a time`);
      const json = find(depS, '&Format=JSON');
      console.log(`  FindRoute JSON, new connection      ${fmt(await latency(json, true))}`);
      console.log(`  FindRoute JSON, keep-alive          ${fmt(await latency(json, false))}`);
      console.log(`  FindRoute XML, new connection       ${fmt(await latency(find(depS, ''), true))}`);
      console.log(
        `  FindRoute MaxAlternates=1, new conn ${fmt(await latency(find(depS, '&Format=JSON&MaxAlternates=1'), true))}`,
      );
      console.log(
        `  FindRoute MaxAlternates=2, new conn ${fmt(await latency(find(depS, '&Format=JSON&MaxAlternates=2'), true))}`,
      );
    }
    for (const hh of [8, 3]) {
      const depS = nextMonday(tz, hh);
      const json = find(depS, '&Format=JSON');
      console.log(`\nMonday ${String(hh).padStart(2, '0')}:00 local, 16 connections`);
      if (wrk) {
        const w = (newConnection: boolean) =>
          runWrk(
            server!.url,
            json.map((r) => r.path),
            { connections: 16, threads: 2, seconds: THROUGHPUT_MS / 1000, newConnection },
          );
        const f = (r: ReturnType<typeof runWrk>) =>
          `${Math.round(r.requestsPerS)} req/s (p50 ${r.p50Ms.toFixed(2)}, p99 ${r.p99Ms.toFixed(2)} ms${r.failed ? `, ${r.failed} failed` : ''})`;
        console.log(`  FindRoute JSON, wrk -t2 -c16: new connections ${f(w(true))}, keep-alive ${f(w(false))}`);
      } else {
        const tNew = await throughput(json, true);
        const tKeep = await throughput(json, false);
        console.log(
          `  FindRoute JSON, 16 connections (Node client; install wrk for the C client): new connections ${rate(tNew)} (${fmt(tNew)}), keep-alive ${rate(tKeep)} (${fmt(tKeep)})`,
        );
      }
    }

    // route ids for GetRoute / GetRouteTravelTimes
    const depS = nextMonday(tz, 8);
    const ids: string[] = [];
    for (const r of find(depS, '&Format=JSON').slice(0, 200)) {
      const body = (await (await fetch(`${server.url}${r.path}`)).json()) as {
        result?: { trip?: { routes?: Array<{ id: string }> } };
      };
      const id = body.result?.trip?.routes?.[0]?.id;
      if (id) ids.push(id);
    }
    await new Promise((r) => setTimeout(r, 200)); // routes written behind
    const getRoute = ids.map((id) => ({
      path: `/traffic/api.ashx?Action=GetRoute&Format=JSON&RouteId=${id}&DepartureTime=${isoZ(depS)}&Token=${token}`,
    }));
    const times = ids.map((id) => ({
      path: `/traffic/api.ashx?Action=GetRouteTravelTimes&Format=JSON&RouteId=${id}&DepartureTime=${isoZ(depS)}&TravelTimeCount=4&TravelTimeInterval=15&Token=${token}`,
    }));
    console.log(`\nstored routes (${ids.length}), Monday 08:00`);
    console.log(`  GetRoute, new connection                  ${fmt(await latency(getRoute, true))}`);
    console.log(`  GetRouteTravelTimes (4 × 15 min), new conn ${fmt(await latency(times, true))}`);
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'));
    console.log(`\nserver peak RSS ${hwm ? (Number(hwm[1]) / 1024).toFixed(0) : '?'} MB`);
  } finally {
    await server?.stop();
    dir.remove();
  }
}
