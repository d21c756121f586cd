/**
 * Two regions in one database (an imported region beside the demo): each server answers metrics
 * and availability for its own intersections only, whatever else the database holds.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';
import { catalogOf, storeFacts } from '../../src/analytics/index.js';
import type { Fact } from '../../src/analytics/facts/build-facts.js';
import type { Region } from '../../src/network/region.js';
import { buildFixture } from '../analytics/fixture.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';

/** One fact at the first intersection of `region`'s catalog on 2026-11-16 08:00. */
function factAt(region: Region, traceId: string): Fact {
  const c = catalogOf(region).list[0];
  const m = c.movements[0];
  return {
    traceId,
    part: 0,
    intersectionKey: c.key,
    occurrence: 0,
    intersectionId: c.intersection.id,
    movementId: Number(m.id),
    inEdge: m.movement.inEdge,
    outEdge: m.movement.outEdge,
    entryS: Date.UTC(2026, 10, 16, 13) / 1000,
    exitS: Date.UTC(2026, 10, 16, 13, 1) / 1000,
    localDay: '2026-11-16',
    localMinute: 480,
    localDow: 1,
    zoneLengthM: 200,
    travelTimeS: 60,
    freeFlowS: 20,
    controlDelayS: 40,
    stopped: true,
    stopDurationS: 20,
    approachSpeedKph: 30,
    zoneStart: [0, 0],
    zoneEnd: [0, 0],
  } as Fact;
}

describe('two regions sharing one database', () => {
  let db: Db;
  let a: TestContext;
  let b: TestContext;
  const regionA = buildFixture().region;
  // the same streets 1.1 km further north under another name: other intersection ids
  const shifted = buildFixture().region;
  const regionB: Region = {
    ...shifted,
    meta: { ...shifted.meta, name: 'north', mapVersion: 'north-20261102-1' },
    intersections: shifted.intersections.map((i) => ({ ...i, lat: i.lat + 0.01 })),
  };

  beforeAll(async () => {
    db = await openPglite();
    await runMigrations(db, allMigrations());
    a = await makeTestContext({ db, region: regionA });
    b = await makeTestContext({ db, region: regionB });
    await storeFacts(db, [factAt(regionA, 'a-1')], { mapVersion: '20261101' });
    await storeFacts(db, [factAt(regionB, 'b-1'), factAt(regionB, 'b-2')], { mapVersion: '20261102' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.close();
  });

  const metrics = async (t: TestContext) => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/metrics/intersections',
      headers: { authorization: `Bearer ${t.token}` },
      payload: {
        dateRanges: [{ startDate: '2026-11-01', endDate: '2026-11-30' }],
        metrics: [{ name: 'totalVehicleCount' }],
        dimensions: [{ name: 'intersectionId' }],
      },
    });
    expect(r.statusCode, r.body).toBe(201);
    return (r.json() as { data: { rows: Array<[string, string]> } }).data.rows.map(([key, n]) => [key, Number(n)]);
  };

  it("metrics list only the served region's intersections", async () => {
    expect(catalogOf(regionA).list[0].key).not.toBe(catalogOf(regionB).list[0].key);
    expect(await metrics(a)).toEqual([[catalogOf(regionA).list[0].key, 1]]);
    expect(await metrics(b)).toEqual([[catalogOf(regionB).list[0].key, 2]]);
  });

  it("availability lists only the served region's intersections and days", async () => {
    const avail = async (t: TestContext) => {
      const r = await t.app.inject({
        url: '/v1/metrics/intersections/availability?intersectionOutputMode=all',
        headers: { authorization: `Bearer ${t.token}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      return (r.json() as { data: { rows: unknown[] } }).data.rows;
    };
    expect(JSON.stringify(await avail(a))).toContain(catalogOf(regionA).list[0].key);
    expect(JSON.stringify(await avail(a))).not.toContain(catalogOf(regionB).list[0].key);
    expect(JSON.stringify(await avail(b))).not.toContain(catalogOf(regionA).list[0].key);
  });
});
