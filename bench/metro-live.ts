/**
 * The metro benchmark's live steps, on a `streetwise serve` in its own process:
 * - live updates (PostgreSQL): a closure posted on a route (`POST /v1/incidents`), then live
 *   speeds written on 1 000 edges (500 of them on a route) the way ingestion writes them (probe
 *   traversals and a `speeds` change in one transaction): the time from the write until a
 *   FindRoute leaving now answers differently, polled back to back on new connections;
 * - tiles: every basemap tile over the metro at z8–z14 (a sample at z12–z14), first request and
 *   cached, over keep-alive HTTP, and the server's RSS before and after.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { locate } from '../src/network/index.js';
import type { Graph } from '../src/network/graph.js';
import { EdgeFlag } from '../src/network/graph.js';
import { announceChange } from '../src/store/changes.js';
import { openPostgres } from '../src/store/index.js';
import { createRng } from '../src/sim/prng.js';
import { startBaltimoreServer } from './lib/baltimore-server.js';
import { quantile } from './lib/http-load.js';
import { rssMb } from './lib/measured.js';
import { type MetroBench, metroGraph, recordFigures } from './lib/metro-common.js';
import { SERVER_START_MS } from './metro-routing.js';
import { odPairs } from './routing.js';

const LIVE_EDGES = 1000;
const POLL_LIMIT_MS = 60_000;

type Pair = ReturnType<typeof odPairs>[number];

/** A scratch schema on the benchmark's PostgreSQL, or null when none is configured. */
async function scratchSchema(name: string): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const base = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!base) return null;
  const schema = `${name}_${process.pid}`;
  const admin = await openPostgres(base);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    drop: async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.close();
    },
  };
}

interface RouteAnswer {
  key: string;
  points: Array<[number, number]>;
}

async function findRoute(url: string, token: string, [a, z]: Pair): Promise<RouteAnswer> {
  const r = await fetch(
    `${url}/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=${a.lat.toFixed(6)},${a.lon.toFixed(6)}&WP_2=${z.lat.toFixed(6)},${z.lon.toFixed(6)}&RouteOutputFields=S,P&Token=${token}`,
    { headers: { connection: 'close' } },
  );
  const body = (await r.json()) as {
    result?: {
      trip?: {
        routes?: Array<{
          travelTimeMinutes: number;
          totalDistance: number;
          hasClosures: boolean;
          points: { coordinates: Array<[number, number]> };
        }>;
      };
    };
  };
  const route = body.result?.trip?.routes?.[0];
  if (!route) throw new Error(`FindRoute gave no route: ${JSON.stringify(body).slice(0, 300)}`);
  return {
    key: `${route.travelTimeMinutes}|${route.totalDistance}|${route.hasClosures}|${route.points.coordinates.length}`,
    points: route.points.coordinates,
  };
}

/** Milliseconds from `since` until FindRoute on `pair` answers other than `before` (NaN past the limit). */
async function untilChanged(url: string, token: string, pair: Pair, before: string, since: number): Promise<number> {
  while (performance.now() - since < POLL_LIMIT_MS) {
    const a = await findRoute(url, token, pair);
    if (a.key !== before) return performance.now() - since;
  }
  return Number.NaN;
}

function bearing([lon1, lat1]: [number, number], [lon2, lat2]: [number, number]): number {
  const y = Math.sin(((lon2 - lon1) * Math.PI) / 180) * Math.cos((lat2 * Math.PI) / 180);
  const x =
    Math.cos((lat1 * Math.PI) / 180) * Math.sin((lat2 * Math.PI) / 180) -
    Math.sin((lat1 * Math.PI) / 180) * Math.cos((lat2 * Math.PI) / 180) * Math.cos(((lon2 - lon1) * Math.PI) / 180);
  return Math.round(((Math.atan2(y, x) * 180) / Math.PI + 360) % 360) % 360;
}

/** The edges a route runs on (its points snapped), topped up with random routable edges to `n`. */
function liveEdges(g: Graph, points: Array<[number, number]>, n: number, seed: number): number[] {
  const out = new Set<number>();
  for (const [lon, lat] of points) {
    if (out.size >= n / 2) break;
    const s = locate(g, lat, lon);
    if (s) out.add(s.edge);
  }
  const rng = createRng(seed);
  while (out.size < n) {
    const e = Math.floor(rng.next() * g.edgeCount);
    if (g.edgeFlags[e] & EdgeFlag.routable) out.add(e);
  }
  return [...out];
}

/** Runs the live-update step. */
export async function benchLiveUpdates(b: MetroBench): Promise<void> {
  const pg = await scratchSchema('bench_metro_live');
  if (!pg) {
    console.log('  skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL (live updates are measured on PostgreSQL)');
    return;
  }
  const g = metroGraph(b.dataDir);
  const meta = JSON.parse(readFileSync(join(b.dataDir, 'regions', 'metro', 'region.json'), 'utf8')).meta as {
    mapVersion: string;
  };
  const { server, token } = await startBaltimoreServer(b.dataDir, {
    databaseUrl: pg.url,
    admin: true,
    env: { REGION: 'metro' },
    timeoutMs: SERVER_START_MS,
  });
  const db = await openPostgres(pg.url);
  try {
    const pairs = odPairs(g, 6, b.seed + 1);
    const closures: number[] = [];
    for (const pair of pairs.slice(0, 5)) {
      const before = await findRoute(server.url, token, pair);
      const i = Math.floor(before.points.length / 2);
      const [lon, lat] = before.points[i];
      const r = await fetch(`${server.url}/v1/incidents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'construction',
          severity: 4,
          startTime: new Date(Date.now() - 60_000).toISOString(),
          lat,
          lon,
          heading: bearing(before.points[i], before.points[Math.min(i + 1, before.points.length - 1)]),
          closure: true,
        }),
      });
      if (r.status !== 201) throw new Error(`incident not created: ${r.status} ${await r.text()}`);
      closures.push(await untilChanged(server.url, token, pair, before.key, performance.now()));
    }
    const pair = pairs[5];
    const before = await findRoute(server.url, token, pair);
    const edges = liveEdges(g, before.points, LIVE_EDGES, b.seed);
    const nowS = Date.now() / 1000;
    const t0 = performance.now();
    await db.transaction(async (tx) => {
      const rows = edges.map((e, k) => `('bench-live', 0, ${k}, $1, ${e}, ${nowS - 90}, ${nowS - 30}, 1, 0, 4, '[]')`);
      await tx.query(`INSERT INTO probe_traversals VALUES ${rows.join(',')}`, [meta.mapVersion]);
      await announceChange(tx, 'speeds', meta.mapVersion, { edges, learnedBins: [] });
    });
    const liveMs = await untilChanged(server.url, token, pair, before.key, t0);
    const sorted = [...closures].sort((x, y) => x - y);
    console.log(
      `  closure until FindRoute avoids it: ${closures.map((x) => `${x.toFixed(0)} ms`).join(', ')} (median ${quantile(sorted, 0.5).toFixed(0)} ms)`,
    );
    console.log(
      `  live speeds on ${edges.length} edges until FindRoute uses them: ${liveMs.toFixed(0)} ms (target ≤ 1 000 ms)`,
    );
    recordFigures(b, 'live', {
      closureMedianMs: quantile(sorted, 0.5),
      closureMaxMs: sorted[sorted.length - 1],
      liveSpeedsMs: liveMs,
    });
  } finally {
    await db.close();
    await server.stop();
    await pg.drop();
  }
}

/** Tile x/y of a point at zoom z. */
function tileAt(lat: number, lon: number, z: number): [number, number] {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return [
    Math.floor(((lon + 180) / 360) * n),
    Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n),
  ];
}

/** Runs the tiles step. */
export async function benchTiles(b: MetroBench): Promise<void> {
  const meta = JSON.parse(readFileSync(join(b.dataDir, 'regions', 'metro', 'region.json'), 'utf8')).meta as {
    bounds: [number, number, number, number];
  };
  const [minLat, minLon, maxLat, maxLon] = meta.bounds;
  const { server } = await startBaltimoreServer(b.dataDir, { env: { REGION: 'metro' }, timeoutMs: SERVER_START_MS });
  try {
    const pid = server.child.pid!;
    const rss0 = rssMb(pid);
    const rows: Record<string, number> = { rssBeforeMb: rss0 };
    const rng = createRng(b.seed);
    for (let z = 0; z <= 14; z++) {
      const [x0, y1] = tileAt(minLat, minLon, z);
      const [x1, y0] = tileAt(maxLat, maxLon, z);
      let tiles: Array<[number, number]> = [];
      for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) tiles.push([x, y]);
      if (tiles.length > 40) tiles = Array.from({ length: 40 }, () => tiles[Math.floor(rng.next() * tiles.length)]);
      const first: number[] = [];
      const cached: number[] = [];
      let bytes = 0;
      for (const pass of [first, cached])
        for (const [x, y] of tiles) {
          const t = performance.now();
          const r = await fetch(`${server.url}/tiles/${z}/${x}/${y}.pbf`, { headers: { 'accept-encoding': 'gzip' } });
          const body = await r.arrayBuffer();
          pass.push(performance.now() - t);
          if (pass === first) bytes = Math.max(bytes, body.byteLength);
          if (r.status !== 200 && r.status !== 204) throw new Error(`tile ${z}/${x}/${y}: HTTP ${r.status}`);
        }
      const s = (v: number[]) => [...v].sort((p, q) => p - q);
      console.log(
        `  z${z}: ${tiles.length} tiles, first p50 ${quantile(s(first), 0.5).toFixed(1)} ms max ${Math.max(...first).toFixed(0)} ms, cached p50 ${quantile(s(cached), 0.5).toFixed(1)} ms, largest ${(bytes / 1024).toFixed(0)} KiB`,
      );
      rows[`z${z}FirstP50Ms`] = quantile(s(first), 0.5);
      rows[`z${z}FirstMaxMs`] = Math.max(...first);
    }
    rows.rssAfterMb = rssMb(pid);
    console.log(`  server RSS ${rss0.toFixed(0)} MB before the tiles, ${rows.rssAfterMb.toFixed(0)} MB after`);
    recordFigures(b, 'tiles', rows);
  } finally {
    await server.stop();
  }
}
