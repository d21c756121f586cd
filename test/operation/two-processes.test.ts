/**
 * Two server processes on one PostgreSQL database: what one is told is used by the other without a
 * restart — live speeds from a crawl, learned profiles, incidents (how soon is printed; the
 * benchmark measures it).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '../../src/store/index.js';
import { hashTokenFor } from '../../src/auth/index.js';
import { appToken, startServer, type ServerProcess } from '../helpers/processes.js';
import { testDatabaseUrl } from '../helpers/context.js';

const baseUrl = testDatabaseUrl();
if (!baseUrl) {
  if (process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set under CI=true');
  console.warn(
    'two processes on PostgreSQL: skipped (set TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test)',
  );
}

/** Points every `stepM` metres along a [lon, lat] polyline, up to `maxM` metres. */
function along(line: Array<[number, number]>, stepM: number, maxM: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const m = (a: [number, number], b: [number, number]) => {
    const dy = (b[1] - a[1]) * 111_320;
    const dx = (b[0] - a[0]) * 111_320 * Math.cos((a[1] * Math.PI) / 180);
    return Math.hypot(dx, dy);
  };
  let walked = 0;
  let next = 0;
  for (let i = 1; i < line.length && next <= maxM; i++) {
    const seg = m(line[i - 1], line[i]);
    while (next <= walked + seg && next <= maxM) {
      const f = seg === 0 ? 0 : (next - walked) / seg;
      out.push([
        line[i - 1][1] + (line[i][1] - line[i - 1][1]) * f,
        line[i - 1][0] + (line[i][0] - line[i - 1][0]) * f,
      ]);
      next += stepM;
    }
    walked += seg;
  }
  return out;
}

describe.skipIf(!baseUrl)('two processes on one PostgreSQL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-two-'));
  const schema = `t_two_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let dbUrl = '';
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let token = '';
  let routeId = '';
  let line: Array<[number, number]> = [];

  beforeAll(async () => {
    const admin = await openPostgres(baseUrl!);
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.close();
    dbUrl = `${baseUrl}${baseUrl!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    a = await startServer({ DATA_DIR: dataDir, DATABASE_URL: dbUrl });
    b = await startServer({ DATA_DIR: dataDir, DATABASE_URL: dbUrl });
    const out = a.stdout();
    const appId = /appId:\s+(\S+)/.exec(out)![1];
    const appKey = /appKey:\s+(\S+)/.exec(out)![1];
    token = (await appToken(b.url, appId, hashTokenFor(appId, appKey))).token!;
    const wp1 = /WP_1=([\d.,-]+)/.exec(out)![1];
    const wp2 = /WP_2=([\d.,-]+)/.exec(out)![1];
    const found = (await (
      await fetch(
        `${b.url}/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=${wp1}&WP_2=${wp2}&RouteOutputFields=P&Token=${token}`,
      )
    ).json()) as {
      result: { trip: { routes: Array<{ id: string; points: { coordinates: Array<[number, number]> } }> } };
    };
    routeId = found.result.trip.routes[0].id;
    line = found.result.trip.routes[0].points.coordinates;
  }, 240_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    const admin = await openPostgres(baseUrl!);
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const getRoute = async (
    server: ServerProcess,
    extra = '',
  ): Promise<{ travelTimeMinutes: number; hasClosures: boolean }> => {
    const r = (await (
      await fetch(
        `${server.url}/traffic/api.ashx?Action=GetRoute&Format=JSON&RouteId=${routeId}&Token=${token}${extra}`,
      )
    ).json()) as { result: { trip: { routes: Array<{ travelTimeMinutes: number; hasClosures: boolean }> } } };
    return r.result.trip.routes[0];
  };
  /** Polls `check` on B until it holds; returns the time it took, ms (`npm run bench -- live` measures it). */
  const within = async (check: () => Promise<boolean>, limitMs: number): Promise<number> => {
    const t0 = Date.now();
    while (!(await check())) {
      if (Date.now() - t0 > limitMs) throw new Error(`not seen within ${limitMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return Date.now() - t0;
  };
  const post = async (server: ServerProcess, ndjson: string) => {
    const r = await fetch(`${server.url}/v1/probes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: ndjson,
    });
    expect(r.status).toBe(200);
    return r.json() as Promise<{ matched: { traversals: number } }>;
  };

  it("a crawl posted to A changes B's route time within a second (live speeds)", async () => {
    const before = await getRoute(b!);
    // five vehicles crawling the first 700 m of the route at 5 km/h, ending now
    const pts = along(line, 10, 700);
    const nowS = Math.floor(Date.now() / 1000);
    let ndjson = '';
    for (let v = 0; v < 5; v++) {
      pts.forEach(([lat, lon], i) => {
        ndjson += `${JSON.stringify({ traceId: `crawl-${v}`, timestamp: nowS - (pts.length - i) * 7.2 - v, lat, lon })}\n`;
      });
    }
    const rep = await post(a!, ndjson);
    expect(rep.matched.traversals).toBeGreaterThan(5);
    const ms = await within(async () => (await getRoute(b!)).travelTimeMinutes >= before.travelTimeMinutes + 3, 10_000);
    console.log(
      `live crawl on A seen by B after ${ms} ms (route ${before.travelTimeMinutes} → ${(await getRoute(b!)).travelTimeMinutes} min)`,
    );
  }, 60_000);

  it('learned profiles posted to A are used by B without a restart', async () => {
    // twenty vehicles crawling the same stretch a week ago, two hours later in the day than now
    const pts = along(line, 10, 700);
    const departS = Math.floor(Date.now() / 1000) + 2 * 3600;
    const weekAgoS = departS - 7 * 86400;
    const iso = new Date(departS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const before = await getRoute(b!, `&DepartureTime=${iso}`);
    let ndjson = '';
    for (let v = 0; v < 20; v++) {
      pts.forEach(([lat, lon], i) => {
        ndjson += `${JSON.stringify({ traceId: `learn-${v}`, timestamp: weekAgoS + i * 7.2 + v * 3, lat, lon })}\n`;
      });
    }
    await post(a!, ndjson);
    const ms = await within(
      async () => (await getRoute(b!, `&DepartureTime=${iso}`)).travelTimeMinutes >= before.travelTimeMinutes + 2,
      10_000,
    );
    console.log(`learned profile on A seen by B after ${ms} ms`);
  }, 60_000);

  it('an incident created on A is used by B without a restart', async () => {
    expect((await getRoute(b!)).hasClosures).toBe(false);
    const [lon, lat] = line[Math.floor(line.length / 2)];
    const r = await fetch(`${a!.url}/v1/incidents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'construction',
        severity: 4,
        lat,
        lon,
        closure: true,
        startTime: new Date(Date.now() - 60_000).toISOString(),
      }),
    });
    expect(r.status).toBe(201);
    const ms = await within(async () => (await getRoute(b!)).hasClosures, 10_000);
    console.log(`incident on A seen by B after ${ms} ms`);
  }, 60_000);
});
