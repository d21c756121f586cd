/**
 * The console's HTTP side by injection: the page, its config, basemap and live tiles with their
 * errors. Region: the 3 × 3 grid of test/helpers/tiny-region.ts (100 m spacing at 39.29, -76.61).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PbfReader } from 'pbf';
import { VectorTile } from '@mapbox/vector-tile';
import { DbAuthService, hashTokenFor } from '../../src/auth/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { tinyRegion } from '../helpers/tiny-region.js';

/** Tile x/y at zoom z of a position (Web Mercator). */
function tileOf(lat: number, lon: number, z: number): [number, number] {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return [
    Math.floor(((lon + 180) / 360) * n),
    Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n),
  ];
}

const NOW = Date.UTC(2026, 10, 23, 14, 0);
const [X14, Y14] = tileOf(39.2909, -76.6088, 14);

describe('console and tiles over HTTP', () => {
  let t: TestContext;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sw-console-http-'));
    const region = tinyRegion();
    region.meta = { ...region.meta, name: 'demo' };
    writeFileSync(
      join(dataDir, 'demo-app.json'),
      JSON.stringify({ appId: '11111111-2222-4333-8444-555555555555', appKey: 'k3y' }),
    );
    t = await makeTestContext({ region, now: () => NOW, config: { 'store.dataDir': dataDir } });
  });

  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the console page at / and /console', async () => {
    for (const url of ['/', '/console']) {
      const r = await t.app.inject({ method: 'GET', url });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.body).toContain('<main id="map"');
      expect(r.body).toContain('/console/app.js');
    }
    const js = await t.app.inject({
      method: 'GET',
      url: '/console/vendor/maplibre-gl.mjs',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-encoding']).toBe('br');
    expect((await t.app.inject({ method: 'GET', url: '/favicon.ico' })).statusCode).toBe(204);
  });

  it('gives the page the region, the server clock and, to local browsers of the demo, the demo app', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/console/config.json' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      region: {
        name: 'demo',
        mapVersion: 'tiny-1',
        bounds: [39.29, -76.61, 39.29 + 2 * 0.0009, -76.61 + 2 * 0.00116],
        timeZone: 'America/New_York',
        country: 'US',
      },
      now: '2026-11-23T14:00:00Z',
      services: ['routing', 'parking', 'analytics'],
      attribution: '© OpenStreetMap contributors',
      demoApp: { appId: '11111111-2222-4333-8444-555555555555', appKey: 'k3y' },
    });
    const remote = await t.app.inject({ method: 'GET', url: '/console/config.json', remoteAddress: '192.0.2.7' });
    expect(remote.json().demoApp).toBeUndefined();
  });

  it('serves basemap tiles gzip-encoded with the streets of the region, 204 where there is nothing, 304 when unchanged', async () => {
    const r = await t.app.inject({
      method: 'GET',
      url: `/tiles/14/${X14}/${Y14}.pbf`,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.etag).toBe('"tiny-1"');
    const vt = new VectorTile(new PbfReader(gunzipSync(r.rawPayload)));
    const names = new Set<string>();
    for (let i = 0; i < vt.layers.roads.length; i++) names.add(String(vt.layers.roads.feature(i).properties.name));
    expect([...names].sort()).toEqual(['Center Ave', 'East Ave', 'Middle St', 'North St', 'South St', 'West Ave']);
    expect(vt.layers.roads.length).toBe(12); // every undirected street segment once (each is its own OSM way here)
    const plain = await t.app.inject({ method: 'GET', url: `/tiles/14/${X14}/${Y14}.pbf` });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(new VectorTile(new PbfReader(plain.rawPayload)).layers.roads.length).toBe(12);
    expect((await t.app.inject({ method: 'GET', url: '/tiles/14/0/0.pbf' })).statusCode).toBe(204);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/tiles/14/${X14}/${Y14}.pbf`,
          headers: { 'if-none-match': '"tiny-1"' },
        })
      ).statusCode,
    ).toBe(304);
  });

  it('rejects tile coordinates outside the zoom level', async () => {
    for (const url of ['/tiles/3/8/0.pbf', '/tiles/25/0/0.pbf', '/tiles/a/0/0.pbf', '/tiles/3/1/1.png']) {
      const r = await t.app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(400);
      expect(r.json().error.code).toBe('TILES_BAD_COORDINATES');
    }
  });

  it('serves live tiles only with a valid app token', async () => {
    const url = `/tiles/live/14/${X14}/${Y14}.pbf`;
    const none = await t.app.inject({ method: 'GET', url });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({
      error: {
        code: 'TILES_AUTH_MISSING',
        statusId: 401,
        userMessage: 'live tiles need an app token: send Authorization: Bearer <token> or access_token',
      },
    });
    expect(
      (await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer nonsense' } })).json().error.code,
    ).toBe('TILES_AUTH_INVALID');
    const old = new DbAuthService(t.ctx.db, () => NOW - 25 * 3600_000);
    const expired = (await old.issueAppToken(t.appId, hashTokenFor(t.appId, t.appKey))).token;
    expect(
      (await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${expired}` } })).json().error.code,
    ).toBe('TILES_AUTH_EXPIRED');

    // no live speeds yet: an empty tile
    expect(
      (await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } })).statusCode,
    ).toBe(204);
    // edge 0 (South St eastbound) observed 2 minutes ago at 6 km/h
    t.ctx.speeds.setLive(0, { speedKph: 6, observedAtS: NOW / 1000 - 120, samples: 4 });
    const r = await t.app.inject({ method: 'GET', url: `${url}?access_token=${t.token}` });
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('private, no-store');
    const live = new VectorTile(new PbfReader(r.rawPayload)).layers.live;
    expect(live.length).toBe(1);
    expect(live.feature(0).properties).toMatchObject({
      edge: 0,
      speedKph: 6,
      ageS: 120,
      samples: 4,
      name: 'South St',
      bucket: 0,
    });
  });

  it('describes the basemap as TileJSON', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/tiles/tiles.json', headers: { host: 'maps.example:8080' } });
    expect(r.statusCode).toBe(200);
    const j = r.json();
    expect(j).toMatchObject({
      tilejson: '3.0.0',
      tiles: ['http://maps.example:8080/tiles/{z}/{x}/{y}.pbf'],
      minzoom: 0,
      maxzoom: 14,
      attribution: '© OpenStreetMap contributors',
    });
    expect(j.vector_layers.map((l: { id: string }) => l.id)).toEqual([
      'water',
      'waterways',
      'roads',
      'ferries',
      'lots',
      'lot_labels',
    ]);
  });
});
