import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegion } from '../../src/network/index.js';
import { createDemoRegion, type DemoRegionResult } from '../../src/demo/create-demo-region.js';
import { demoLandmarks } from '../../src/demo/landmarks.js';
import { M_PER_DEG_LAT, M_PER_DEG_LON, ORIGIN_LAT, ORIGIN_LON } from '../../src/demo/layout.js';
import type { ParkingUpload } from '../../src/demo/parking-upload.js';
import { loadParkingDocument } from '../../src/app/parking-upload.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';

// A fresh machine's view: the demo city imported, its parking upload loaded, the HTTP app answering.

const L = demoLandmarks();
let dir: string;
let demo: DemoRegionResult;
let upload: ParkingUpload;
let t: TestContext;
let db: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sw-demo-apis-'));
  demo = await createDemoRegion(dir, { seed: 42 });
  upload = JSON.parse(readFileSync(demo.uploadPath, 'utf8')) as ParkingUpload;
  // a fixed clock: Monday 23 Nov 2026, 14:00 UTC
  // The upload is loaded before the app starts (as on a first start): a running server notices
  // uploads made by other processes within a second, which a test should not wait for.
  db = await openPglite();
  await runMigrations(db, allMigrations());
  const loaded = await loadParkingDocument(db, 'demo', upload);
  expect(loaded).toMatchObject({ lots: 9, products: 10, ignoredFields: [] });
  t = await makeTestContext({ db, region: loadRegion(demo.regionDir), now: () => Date.UTC(2026, 10, 23, 14, 0) });
});

afterAll(async () => {
  await t?.close();
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function get(url: string): Promise<{ status: number; body: any }> {
  const r = await t.app.inject({ method: 'GET', url });
  return { status: r.statusCode, body: r.body.startsWith('{') ? JSON.parse(r.body) : r.body };
}

describe('the demo region through the HTTP APIs', () => {
  it('lists the Harborplace Garage with the uploaded rates and a price for a 2-hour stay', async () => {
    const g = L.harborplaceGarage;
    const r = await get(
      `/lots?point=${g.lat}|${g.lon}&radius=300&sort=distance&entry_time=2026-11-23T10:00&duration=120&accesstoken=${t.token}`,
    );
    expect(r.status).toBe(200);
    const lot = r.body.result[0];
    const up = upload.lots.find((l) => l.alias === 'demo|harborplace-garage')!;
    expect(lot.id).toBe(up.id);
    expect(lot.name).toBe('Harborplace Garage');
    expect(lot.rateCard).toEqual(up.rateCard);
    expect(lot.ev_chargers).toEqual(up.ev_chargers);
    expect(lot.peps).toEqual(up.peps);
    const day = up.structured_rates[0];
    expect(lot.calculatedRates[0].rate_cost).toBe(Math.min(2 * day.rate, day.max));
  });

  it('lists metered blocks near the waterfront with curb segments', async () => {
    const p = L.downtownWaterfront;
    const r = await get(`/blocks?point=${p.lat}|${p.lon}&radius=200&accesstoken=${t.token}`);
    expect(r.status).toBe(200);
    expect(r.body.result.length).toBeGreaterThan(3);
    const eutaw = r.body.result.find((b: any) => b.name === 'Eutaw St');
    expect(eutaw.segments.length).toBe(2);
    expect(eutaw.segments.every((s: any) => s.isOpen === true && s.spacesTotal > 0)).toBe(true);
  });

  it('offers the garage products for reservation', async () => {
    const up = upload.lots.find((l) => l.alias === 'demo|harborplace-garage')!;
    const r = await get(`/product/?f_id=${up.id}&accesstoken=${t.token}`);
    expect(r.status).toBe(200);
    expect(r.body.ProductCount).toBe(2);
    expect(r.body.Products.map((p: any) => p.name).sort()).toEqual([
      'Harborplace Garage Event Evening',
      'Harborplace Garage Reserved Parking',
    ]);
  });

  it('routes across the river by ferry, and over the toll bridge when ferries are avoided', async () => {
    const a = L.downtownWaterfront;
    const b = L.southport;
    const base = `/traffic/Root.ashx?Action=FindRoute&Token=${t.token}&WP_1=${a.lat},${a.lon}&WP_2=${b.lat},${b.lon}&Format=JSON&RouteOutputFields=S,D&Units=1`;
    const plain = await get(base);
    const noFerry = await get(`${base}&Criteria=F`);
    const noFerryNoToll = await get(`${base}&Criteria=F,T`);
    for (const r of [plain, noFerry, noFerryNoToll]) expect(r.status).toBe(200);
    const text = (r: { body: any }): string => JSON.stringify(r.body);
    expect(text(plain)).toMatch(/Harbor Ferry/);
    expect(text(noFerry)).not.toMatch(/Harbor Ferry/);
    expect(text(noFerry)).toMatch(/Harbor Expressway|I 900/);
    expect(text(noFerryNoToll)).toMatch(/Old Mill Rd/);
    expect(text(noFerryNoToll)).not.toMatch(/Harbor Expressway|I 900/);
  });

  it('takes the express lanes only with PreferExpress and the HOV lane only with PreferCarPool', async () => {
    const a = L.parkAndRide;
    const b = L.northernPkwyEast;
    const route = async (from: typeof a, to: typeof a, criteria: string): Promise<Array<[number, number]>> => {
      const r = await get(
        `/traffic/Root.ashx?Action=FindRoute&Token=${t.token}&WP_1=${from.lat},${from.lon}&WP_2=${to.lat},${to.lon}` +
          `&Format=JSON&RouteOutputFields=S,P&Units=1${criteria ? `&Criteria=${criteria}` : ''}`,
      );
      expect(r.status).toBe(200);
      // route points as local plan metres (x east, y north)
      return (r.body.result.trip.routes[0].points.coordinates as Array<[number, number]>).map(([lon, lat]) => [
        (lon - ORIGIN_LON) * M_PER_DEG_LON,
        (lat - ORIGIN_LAT) * M_PER_DEG_LAT,
      ]);
    };
    // the express lanes run at x = 1440 m, the HOV lane at x = 1360 m, between y = 700 and 1100 m
    const along = (pts: Array<[number, number]>, xM: number): boolean =>
      pts.some(([x, y]) => Math.abs(x - xM) < 10 && y > 650 && y < 1150);
    expect(along(await route(a, b, ''), 1440)).toBe(false);
    expect(along(await route(a, b, 'E'), 1440)).toBe(true);
    expect(along(await route(b, a, ''), 1360)).toBe(false);
    expect(along(await route(b, a, 'C'), 1360)).toBe(true);
  });
});
