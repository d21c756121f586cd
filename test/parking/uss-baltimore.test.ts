/**
 * Open spots on the real Baltimore extract: spots are snapped to the curb of the nearest block
 * (checked against a brute-force scan of every block segment), on the side the car was.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M_PER_DEG } from '../../src/geo/index.js';
import { buildRegion } from '../../src/network/index.js';
import type { Block, Region } from '../../src/network/region.js';
import { readOsmExtract } from '../../src/osm/index.js';
import {
  CURB_OFFSET_M,
  curbIndex,
  findOpenSpots,
  migrations,
  SNAP_MAX_M,
  snapToCurb,
  storeParkEvents,
} from '../../src/parking/reservations/index.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';

const PBF = '../shared/data/baltimore.osm.pbf';
const present = existsSync(PBF);
if (!present) {
  if (process.env.CI === 'true') throw new Error(`${PBF} is missing (required in CI)`);
  console.warn(`skipping the Baltimore open-spots test: ${PBF} not found`);
}

const NOW_MS = Date.UTC(2026, 10, 23, 15, 0);

/** Distance (m) from a point to a block's polyline, and the signed side (+1 left, −1 right), by brute force. */
function distanceToBlock(b: Block, lat: number, lon: number): { d: number; side: number } {
  const kx = M_PER_DEG * Math.cos((lat * Math.PI) / 180);
  const ky = M_PER_DEG;
  let best = { d: Infinity, side: 0 };
  for (let v = 0; v + 1 < b.geometry.length; v++) {
    const ax = (b.geometry[v][1] - lon) * kx;
    const ay = (b.geometry[v][0] - lat) * ky;
    const ex = (b.geometry[v + 1][1] - lon) * kx - ax;
    const ey = (b.geometry[v + 1][0] - lat) * ky - ay;
    const len2 = ex * ex + ey * ey;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * ex + ay * ey) / len2));
    const d = Math.hypot(ax + t * ex, ay + t * ey);
    if (d < best.d) best = { d, side: ex * -ay - ey * -ax >= 0 ? 1 : -1 };
  }
  return best;
}

describe.skipIf(!present)('open spots on the Baltimore extract', () => {
  let region: Region;
  let db: Db;
  beforeAll(async () => {
    region = buildRegion(readOsmExtract(PBF), { name: 'baltimore' });
    db = await openPglite();
    await runMigrations(db, migrations);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it('snaps to the nearest block found by a brute-force scan, 3 m from its line', () => {
    expect(region.blocks.length).toBeGreaterThan(1000);
    const idx = curbIndex(region.blocks);
    // deterministic sample points around the blocks' midpoints, 12 m to alternating sides
    let checked = 0;
    for (let i = 0; i < region.blocks.length && checked < 200; i += Math.floor(region.blocks.length / 200) || 1) {
      const b = region.blocks[i];
      if (b.geometry.length < 2 || b.lengthM < 30) continue;
      const [aLat, aLon] = b.geometry[0];
      const [cLat, cLon] = b.geometry[1];
      const lat = (aLat + cLat) / 2 + (checked % 2 === 0 ? 1 : -1) * 0.0001;
      const lon = (aLon + cLon) / 2;
      const snapped = snapToCurb(idx, lat, lon);
      let nearest = Infinity;
      for (const other of region.blocks) nearest = Math.min(nearest, distanceToBlock(other, lat, lon).d);
      if (nearest > SNAP_MAX_M) {
        expect(snapped.blockId).toBeNull();
      } else {
        const chosen = region.blocks.find((x) => x.id === snapped.blockId) as Block;
        expect(distanceToBlock(chosen, lat, lon).d).toBeCloseTo(nearest, 6);
        expect(distanceToBlock(chosen, snapped.lat, snapped.lon).d).toBeCloseTo(CURB_OFFSET_M, 1);
        expect(distanceToBlock(chosen, snapped.lat, snapped.lon).side).toBe(distanceToBlock(chosen, lat, lon).side);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('reports a spot a car left downtown two minutes ago on the curb of its street', async () => {
    const b = region.blocks.find(
      (x) => x.lengthM > 80 && Math.abs(x.geometry[0][0] - 39.29) < 0.01 && Math.abs(x.geometry[0][1] + 76.61) < 0.01,
    ) as Block;
    expect(b).toBeDefined();
    const [lat, lon] = b.geometry[0];
    const [lat2, lon2] = b.geometry[b.geometry.length - 1];
    const eventLat = lat + (lat2 - lat) * 0.3;
    const eventLon = lon + (lon2 - lon) * 0.3;
    await storeParkEvents(
      db,
      [
        {
          sensorId: 's',
          vendorId: '',
          vendorName: '',
          requestId: '',
          lat: eventLat,
          lon: eventLon,
          headingDeg: null,
          speedKph: null,
          parkedOut: true,
          observedMs: NOW_MS - 120_000,
          arrivalMs: null,
        },
      ],
      NOW_MS,
    );
    const spots = await findOpenSpots(db, region.blocks, {
      lat: eventLat,
      lon: eventLon,
      destLat: eventLat,
      destLon: eventLon,
      bearingDeg: null,
      velocityKph: 0,
      nowMs: NOW_MS,
    });
    expect(spots).toHaveLength(1);
    expect(spots[0].openedMs).toBe(NOW_MS - 120_000);
    expect(spots[0].blockId).not.toBeNull();
    const chosen = region.blocks.find((x) => x.id === spots[0].blockId) as Block;
    expect(distanceToBlock(chosen, spots[0].lat, spots[0].lon).d).toBeCloseTo(CURB_OFFSET_M, 1);
  });
});
