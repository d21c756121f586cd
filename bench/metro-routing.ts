/**
 * FindRoute on a region against OSRM v6.0.0 (MLD) on the same OSM file and the same seeded pairs,
 * both in their own process over real TCP, a new connection per request: latency one request at a
 * time (route only: OSRM `overview=false`), alternatives (MaxAlternates=1 / `alternatives=true`),
 * and throughput with 16 connections. streetwise departs Monday 08:00 local (the AM peak), and the
 * same pairs again at 03:00 (free flow); GetRoute and GetRouteTravelTimes on 200 stored routes.
 * Timed once the server is idle after a warm-up: the departures' window tables are built in the
 * background after their first requests, as OSRM's customization is done before it serves.
 */
import { join } from 'node:path';
import { startBaltimoreServer } from './lib/baltimore-server.js';
import { runLoad, type LoadRequest } from './lib/http-load.js';
import {
  fmtLatency,
  isoZ,
  latencyOf,
  type MetroBench,
  metroGraph,
  nextMonday,
  recordFigures,
} from './lib/metro-common.js';
import { processIdle } from './lib/measured.js';
import { hasOsrm, prepareOsrm, startOsrm } from './lib/osrm.js';
import { odPairs } from './routing.js';

const PAIRS = 1000;
const WARM_UP = 300;
const THROUGHPUT_MS = 8000;
/** Routes stored by FindRoute and then asked for with GetRoute and GetRouteTravelTimes. */
const STORED = 200;
/** A metro server needs minutes to build its search structures on a busy 2-core machine. */
export const SERVER_START_MS = 3_600_000;

/** One region to compare: its imported data directory and its OSM file. */
export interface RoutingSubject {
  label: string;
  dataDir: string;
  region: string;
  pbf: string;
  timeZone: string;
}

/** Prepares OSRM on the subject's file, recording the preparation figures. */
export async function osrmPrepare(b: MetroBench, s: RoutingSubject): Promise<string> {
  const p = await prepareOsrm(s.pbf, join(b.dir, `osrm-${s.label}`));
  if (p.steps.length > 0) {
    const figures: Record<string, number> = {};
    for (const { name, run } of p.steps) {
      figures[`${name}S`] = run.wallS;
      figures[`${name}CpuS`] = run.cpuS;
      figures[`${name}PeakMb`] = run.peakMb;
      console.log(
        `  ${name}: ${run.wallS.toFixed(1)} s (${run.cpuS.toFixed(1)} s CPU), peak RSS ${run.peakMb.toFixed(0)} MB`,
      );
    }
    recordFigures(b, `osrm-prepare-${s.label}`, figures);
  } else console.log(`  OSRM files of ${s.label} already prepared in ${b.dir}`);
  return p.base;
}

/** Runs the comparison on one subject and records it under `route-<label>`. */
export async function compareRouting(b: MetroBench, s: RoutingSubject): Promise<void> {
  if (!hasOsrm()) {
    console.log('  OSRM binaries not found in ../shared/anchors/osrm: comparison skipped');
    return;
  }
  const base = await osrmPrepare(b, s);
  const pairs = odPairs(metroGraph(s.dataDir, s.region), PAIRS, b.seed);
  const depS = nextMonday(s.timeZone, 8);
  const t0 = Date.now();
  const { server, token } = await startBaltimoreServer(s.dataDir, {
    env: { REGION: s.region },
    timeoutMs: SERVER_START_MS,
  });
  console.log(`  streetwise serve ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (default threads)`);
  const osrm = await startOsrm(base);
  try {
    const sw = (extra: string, dep = depS): LoadRequest[] =>
      pairs.map(([a, z]) => ({
        path: `/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=${a.lat.toFixed(6)},${a.lon.toFixed(6)}&WP_2=${z.lat.toFixed(6)},${z.lon.toFixed(6)}&DepartureTime=${isoZ(dep)}&Token=${token}${extra}`,
      }));
    // the same pairs at 03:00, when predicted speeds are free flow: what the peak's traffic costs
    const nightS = depS - 5 * 3600;
    const os = (extra: string): LoadRequest[] =>
      pairs.map(([a, z]) => ({
        path: `/route/v1/driving/${a.lon.toFixed(6)},${a.lat.toFixed(6)};${z.lon.toFixed(6)},${z.lat.toFixed(6)}?overview=false${extra}`,
      }));
    const swPort = Number(new URL(server.url).port);
    const one = (port: number, requests: LoadRequest[], total = PAIRS) =>
      runLoad({ host: '127.0.0.1', port, requests, connections: 1, newConnection: true, total });
    await one(swPort, sw(''), WARM_UP);
    await one(swPort, sw('&MaxAlternates=1'), WARM_UP / 10);
    await one(swPort, sw('', nightS), WARM_UP / 3);
    // the warm-up's departures had their window tables built in the background: measure once done
    const idleS = await processIdle(server.child.pid!);
    console.log(`  streetwise idle ${idleS.toFixed(0)} s after the warm-up (window tables of the departure built)`);
    await one(osrm.port, os(''), WARM_UP);
    const swRoute = latencyOf(await one(swPort, sw('')));
    const osRoute = latencyOf(await one(osrm.port, os('')));
    const swNight = latencyOf(await one(swPort, sw('', nightS)));
    const swAlt = latencyOf(await one(swPort, sw('&MaxAlternates=1')));
    const osAlt = latencyOf(await one(osrm.port, os('&alternatives=true')));
    // stored routes: GetRoute and GetRouteTravelTimes re-cost a known path (no search)
    const ids: string[] = [];
    for (const r of sw('').slice(0, STORED)) {
      const body = (await (await fetch(`${server.url}${r.path}`)).json()) as {
        result?: { trip?: { routes?: Array<{ id: string }> } };
      };
      const id = body.result?.trip?.routes?.[0]?.id;
      if (id) ids.push(id);
    }
    await new Promise((r) => setTimeout(r, 500)); // routes are written behind
    const stored = (action: string, extra: string): LoadRequest[] =>
      ids.map((id) => ({
        path: `/traffic/api.ashx?Action=${action}&Format=JSON&RouteId=${id}&DepartureTime=${isoZ(depS)}&Token=${token}${extra}`,
      }));
    const swGet = latencyOf(await one(swPort, stored('GetRoute', ''), ids.length));
    const swTimes = latencyOf(
      await one(swPort, stored('GetRouteTravelTimes', '&TravelTimeCount=4&TravelTimeInterval=15'), ids.length),
    );
    const rate = async (port: number, requests: LoadRequest[]): Promise<number> => {
      const r = await runLoad({
        host: '127.0.0.1',
        port,
        requests,
        connections: 16,
        newConnection: true,
        durationMs: THROUGHPUT_MS,
      });
      return (r.ms.length * 1000) / r.durationMs;
    };
    const swRate = await rate(swPort, sw(''));
    const osRate = await rate(osrm.port, os(''));
    console.log(
      `  ${s.label}: ${PAIRS} seeded pairs, new TCP connection per request, streetwise at ${isoZ(depS)} (Monday 08:00 local)`,
    );
    console.log(`    FindRoute              ${fmtLatency(swRoute)}   ${swRate.toFixed(0)} req/s (16 connections)`);
    console.log(`    OSRM MLD route         ${fmtLatency(osRoute)}   ${osRate.toFixed(0)} req/s`);
    console.log(
      `    ratio streetwise/OSRM  p50 × ${(swRoute.p50 / osRoute.p50).toFixed(2)}  p99 × ${(swRoute.p99 / osRoute.p99).toFixed(2)}`,
    );
    console.log(
      `    FindRoute at 03:00     ${fmtLatency(swNight)}   (ratio to OSRM p50 × ${(swNight.p50 / osRoute.p50).toFixed(2)})`,
    );
    console.log(`    FindRoute MaxAlternates=1  ${fmtLatency(swAlt)}`);
    console.log(`    OSRM alternatives=true     ${fmtLatency(osAlt)}`);
    console.log(
      `    alternatives ratio p50 × ${(swAlt.p50 / osAlt.p50).toFixed(2)}; streetwise alternatives / one route p50 × ${(swAlt.p50 / swRoute.p50).toFixed(2)}`,
    );
    console.log(
      `    GetRoute ${fmtLatency(swGet)}; GetRouteTravelTimes (4 × 15 min) ${fmtLatency(swTimes)} (${ids.length} stored routes)`,
    );
    recordFigures(b, `route-${s.label}`, {
      findRouteP50Ms: swRoute.p50,
      findRouteP99Ms: swRoute.p99,
      findRouteFailed: swRoute.failed,
      findRouteNightP50Ms: swNight.p50,
      findRouteNightP99Ms: swNight.p99,
      osrmP50Ms: osRoute.p50,
      osrmP99Ms: osRoute.p99,
      altP50Ms: swAlt.p50,
      altP99Ms: swAlt.p99,
      osrmAltP50Ms: osAlt.p50,
      osrmAltP99Ms: osAlt.p99,
      getRouteP50Ms: swGet.p50,
      travelTimesP50Ms: swTimes.p50,
      travelTimesP99Ms: swTimes.p99,
      findRouteReqS: swRate,
      osrmReqS: osRate,
    });
  } finally {
    await osrm.stop();
    await server.stop();
  }
}
