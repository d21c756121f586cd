/**
 * The README's commands, run as an operator would, while the server runs on the embedded
 * database: every command either works through the server or refuses at once without touching
 * the files; after a stop and a start, and after a SIGKILL, the database opens and holds
 * everything that was acknowledged.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashTokenFor } from '../../src/auth/index.js';
import { openDbFull } from '../../src/store/index.js';
import { appToken, runCli, startServer, type ServerProcess } from '../helpers/processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-ops-'));
const env = { DATA_DIR: dataDir };
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.kill().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The demo region's bounds [minLat, minLon, maxLat, maxLon]. */
function regionBounds(): [number, number, number, number] {
  return (
    JSON.parse(readFileSync(join(dataDir, 'regions', 'demo', 'region.json'), 'utf8')) as {
      meta: { bounds: [number, number, number, number] };
    }
  ).meta.bounds;
}

/** Demo credentials as the banner prints them. */
function demoApp(out: string): { appId: string; appKey: string } {
  return { appId: /appId:\s+(\S+)/.exec(out)![1], appKey: /appKey:\s+(\S+)/.exec(out)![1] };
}

/** NDJSON pings of `traces` vehicles crossing the demo city's bounding box, 5 s apart. */
function pings(
  prefix: string,
  traces: number,
  perTrace: number,
  bounds: [number, number, number, number],
  endS: number,
): string {
  const [minLat, minLon, maxLat, maxLon] = bounds;
  let out = '';
  for (let v = 0; v < traces; v++) {
    for (let i = 0; i < perTrace; i++) {
      const f = i / perTrace;
      const lat = minLat + (maxLat - minLat) * (0.2 + 0.6 * ((v % 7) / 7));
      const lon = minLon + (maxLon - minLon) * (0.1 + 0.8 * f);
      out += `${JSON.stringify({ traceId: `${prefix}-${v}`, timestamp: endS - (perTrace - i) * 5, lat, lon })}\n`;
    }
  }
  return out;
}

describe('the README sequence while the server runs (embedded database)', () => {
  let ops: { appId: string; appKey: string };
  let acknowledged = 0;

  it('runs every command through the server or refuses, and a second server refuses', async () => {
    server = await startServer(env);
    const demo = demoApp(server.stdout());
    const url = server.url;

    const created = await runCli(['apps', 'create', '--name', 'ops', '--admin'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/through the server at http:\/\/127\.0\.0\.1:\d+/);
    ops = { appId: /appId:\s+(\S+)/.exec(created.stdout)![1], appKey: /appKey:\s+(\S+)/.exec(created.stdout)![1] };
    const tok = await appToken(url, ops.appId, hashTokenFor(ops.appId, ops.appKey));
    expect(tok.status).toBe(200);

    const listed = await runCli(['apps', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${ops.appId}\\s+admin\\s+active\\s+ops`));
    expect(listed.stdout).toContain(demo.appId);

    const parking = await runCli(['parking', 'load', join(dataDir, 'demo', 'parking-upload.json')], env);
    expect(parking.code, parking.stderr).toBe(0);
    expect(parking.stdout).toMatch(/parking load: \d+ lots and \d+ blocks stored .*through the server/);

    const imported = await runCli(['import', join(dataDir, 'demo', 'demo.osm'), '--name', 'copy'], env);
    expect(imported.code, imported.stderr).toBe(0);

    const traces = join(dataDir, 'traces.csv');
    const simulated = await runCli(['simulate', '--hours', '0.2', '--penetration', '0.2', '--out', traces], env);
    expect(simulated.code, simulated.stderr).toBe(0);
    expect(simulated.stdout).toMatch(/ingested (\d+) new pings \(0 already stored\) into the server at http/);
    const simulatedPings = Number(/ingested (\d+) new pings/.exec(simulated.stdout)![1]);
    expect(simulatedPings).toBeGreaterThan(0);
    acknowledged += simulatedPings;
    const ingested = await runCli(['ingest', 'probes', traces], env);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toContain(
      `pings: ${simulatedPings} read, 0 new, ${simulatedPings} already stored, 0 malformed (region demo, into the server at`,
    );

    const refreshed = await runCli(['analytics', 'refresh'], env);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toMatch(/region "demo", through the server/);

    const second = await runCli(['serve', '--port', '0'], env);
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(/in use by the streetwise server \(pid \d+, http:\/\/127\.0\.0\.1:\d+\)/);

    // probes over HTTP with the new app's token: acknowledged means stored
    const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string; region: string };
    expect(health).toMatchObject({ status: 'ok', region: 'demo' });
    const bounds = regionBounds();
    const body = pings('readme', 20, 30, bounds, Math.floor(Date.now() / 1000) - 60);
    const r = await fetch(`${url}/v1/probes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok.token}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    expect(r.status).toBe(200);
    const rep = (await r.json()) as { inserted: number; pendingTraces: number };
    expect(rep.inserted).toBe(600);
    expect(rep.pendingTraces).toBe(0);
    acknowledged += rep.inserted;
    // the server's own ingestion worker processed everything
    const after = (await (await fetch(`${url}/healthz`)).json()) as { ingestion: { workers: number } };
    expect(after.ingestion.workers).toBe(1);

    expect(await server.stop()).toBe(0);
    server = undefined;
  }, 240_000);

  it('after a stop and a start the database holds everything acknowledged', async () => {
    server = await startServer(env);
    const tok = await appToken(server.url, ops.appId, hashTokenFor(ops.appId, ops.appKey));
    expect(tok.status).toBe(200);
    const lots = await fetch(`${server.url}/lots?point=0%7C0&radius=1&sort=distance`, {
      headers: { authorization: `Bearer ${tok.token}` },
    });
    expect(lots.status).toBeLessThan(500);
  }, 180_000);

  it('a SIGKILL in the middle of an ingestion loses nothing acknowledged and the database opens again', async () => {
    const url = server!.url;
    const tok = (await appToken(url, ops.appId, hashTokenFor(ops.appId, ops.appKey))).token!;
    const bounds = regionBounds();
    const ack = await fetch(`${url}/v1/probes?defer=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/x-ndjson' },
      body: pings('ack', 30, 20, bounds, Math.floor(Date.now() / 1000) - 30),
    });
    expect(ack.status).toBe(200);
    acknowledged += ((await ack.json()) as { inserted: number }).inserted;
    // a large body, killed while it is being ingested
    const big = pings('killed', 400, 50, bounds, Math.floor(Date.now() / 1000) - 10);
    const inFlight = fetch(`${url}/v1/probes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/x-ndjson' },
      body: big,
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    await server!.kill();
    server = undefined;
    await inFlight;

    const { db } = await openDbFull({ dataDir }, 'test');
    try {
      const n = Number(
        (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM probe_pings WHERE trace_id NOT LIKE 'killed-%'"))
          .rows[0].n,
      );
      expect(n).toBe(acknowledged);
      const apps = (await db.query<{ name: string }>("SELECT name FROM applications WHERE name = 'ops'")).rows;
      expect(apps).toHaveLength(1);
    } finally {
      await db.close();
    }
    // and the server starts on it again; the deferred and cut-off pings get processed in the background
    server = await startServer(env);
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as { status: string };
    expect(health.status).toBe('ok');
    expect(await server.stop()).toBe(0);
    server = undefined;
    writeFileSync(join(dataDir, 'done'), '');
  }, 240_000);
});
