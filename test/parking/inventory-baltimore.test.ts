import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { chordDistanceM } from './inventory-fixture.js';

const PBF = '../shared/data/baltimore.osm.pbf';
const present = existsSync(PBF);
if (!present) {
  if (process.env.CI === 'true') throw new Error(`${PBF} is missing (required in CI)`);
  console.warn(`skipping the Baltimore lots test: ${PBF} not found`);
}

/** Harbor East, downtown Baltimore (inside the extract). */
const POINT = { lat: 39.2835, lon: -76.599 };

describe.skipIf(!present)('lots on the Baltimore extract', () => {
  let t: TestContext;
  beforeAll(async () => {
    const region = buildRegion(readOsmExtract(PBF), { name: 'baltimore' });
    t = await makeTestContext({ region, now: () => Date.UTC(2026, 10, 23, 15, 0) });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('returns the lots within 500 m sorted by distance, each within 1 m of the ellipsoidal distance', async () => {
    const r = await t.app.inject({
      url: `/lots?point=${POINT.lat}|${POINT.lon}&radius=500&sort=distance&limit=1000`,
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(r.statusCode).toBe(200);
    const lots = r.json().result as Array<{ id: number; distance: number; point: { coordinates: [number, number] } }>;
    expect(lots.length).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < lots.length; i++) {
      const [lon, lat] = lots[i].point.coordinates;
      const truth = chordDistanceM(POINT.lat, POINT.lon, lat, lon);
      expect(Math.abs(lots[i].distance - truth)).toBeLessThanOrEqual(1);
      expect(truth).toBeLessThanOrEqual(500.5);
      if (i > 0) expect(lots[i].distance).toBeGreaterThanOrEqual(lots[i - 1].distance);
    }
    // completeness: any lot whose centre lies within 499 m must be present
    const ids = new Set(lots.map((l) => l.id));
    const all = await t.app.inject({
      url: `/lots?point=${POINT.lat}|${POINT.lon}&radius=2000&limit=1000&outputfields=point`,
      headers: { authorization: `Bearer ${t.token}` },
    });
    for (const l of all.json().result as Array<{ id: number; point: { coordinates: [number, number] } }>) {
      const d = chordDistanceM(POINT.lat, POINT.lon, l.point.coordinates[1], l.point.coordinates[0]);
      if (d < 499) expect(ids.has(l.id)).toBe(true);
      if (d > 501) expect(ids.has(l.id)).toBe(false);
    }
  });

  it('returns blocks with curb segments around the same point', async () => {
    const r = await t.app.inject({
      url: `/blocks?point=${POINT.lat}|${POINT.lon}&radius=300&sort=distance&duration=60`,
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(r.statusCode).toBe(200);
    const blocks = r.json().result as Array<{
      distance: number;
      segments: Array<{ start: number; end: number; side: string }>;
    }>;
    expect(blocks.length).toBeGreaterThan(5);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i].distance).toBeGreaterThanOrEqual(blocks[i - 1].distance);
    for (const b of blocks)
      for (const s of b.segments) {
        expect(s.end).toBeGreaterThan(s.start);
        expect(['LEFT', 'RIGHT']).toContain(s.side);
      }
  });
});
