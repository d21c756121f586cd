import { describe, it, expect } from 'vitest';
import { Inventory } from './inventory.js';
import { parseInventoryQuery } from './params.js';
import { selectBlocks, selectLots } from './select.js';
import { distanceToPolylineM, geodesicDistanceM, pointInPolygon } from '../../geo/index.js';
import type { BlockRecord, LotRecord } from './types.js';

/** Mulberry32: seeded, printed on failure. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lot(id: number, lat: number, lon: number, operator: string): LotRecord {
  return {
    id,
    alias: null,
    osmRef: null,
    lat,
    lon,
    tz: 'America/New_York',
    operatorKey: operator,
    category: 'Unknown',
    spacesTotal: 10,
    frames: null,
    openingHours: null,
    rateCardUploaded: false,
    currencyIso: 'USD',
    fields: {},
  };
}

function block(id: number, g: Array<[number, number]>): BlockRecord {
  const lats = g.map((p) => p[0]),
    lons = g.map((p) => p[1]);
  return {
    blockID: id,
    operatorKey: '',
    geometry: g,
    bbox: [Math.min(...lats), Math.min(...lons), Math.max(...lats), Math.max(...lons)],
    tz: 'America/New_York',
    currencyIso: 'USD',
    segments: [],
    fields: {},
  };
}

const NOW = Date.UTC(2026, 10, 23, 15) / 1000;

describe('spatial selection agrees with a brute-force scan', () => {
  const seed = 20261123;
  const r = rng(seed);
  const lots = Array.from({ length: 3000 }, (_, i) =>
    lot(i + 1, 39.25 + r() * 0.1, -76.66 + r() * 0.12, r() < 0.3 ? 'metro' : 'city'),
  );
  const blocks = Array.from({ length: 1500 }, (_, i) => {
    const lat = 39.25 + r() * 0.1,
      lon = -76.66 + r() * 0.12;
    return block(i + 1, [
      [lat, lon],
      [lat + (r() - 0.5) * 0.003, lon + (r() - 0.5) * 0.003],
      [lat + (r() - 0.5) * 0.004, lon + (r() - 0.5) * 0.004],
    ]);
  });
  const inv = new Inventory(lots, blocks);

  it(`circle, box, polygon and corridor queries return exactly the brute-force answer (seed ${seed})`, () => {
    for (let k = 0; k < 40; k++) {
      const lat = 39.26 + r() * 0.08,
        lon = -76.65 + r() * 0.1,
        radius = 100 + r() * 1900;
      const circle = selectLots(
        inv,
        parseInventoryQuery(
          'lots',
          { point: `${lat}|${lon}`, radius: String(radius), limit: '1000', sort: 'distance' },
          NOW,
        ),
      );
      const expected = lots
        .filter((l) => geodesicDistanceM(lat, lon, l.lat, l.lon) <= radius)
        .sort((a, b) => geodesicDistanceM(lat, lon, a.lat, a.lon) - geodesicDistanceM(lat, lon, b.lat, b.lon));
      expect(
        circle.hits.map((h) => h.rec.id),
        `seed ${seed} circle ${k}`,
      ).toEqual(expected.map((l) => l.id).slice(0, 1000));

      const [a, b] = [lat + 0.005 + r() * 0.01, lon + 0.006 + r() * 0.01];
      const box = selectLots(
        inv,
        parseInventoryQuery('lots', { box: `${a}|${lon},${lat}|${b}`, limit: '1000', operator: 'metro' }, NOW),
      );
      expect(
        box.hits.map((h) => h.rec.id),
        `seed ${seed} box ${k}`,
      ).toEqual(
        lots
          .filter((l) => l.lat >= lat && l.lat <= a && l.lon >= lon && l.lon <= b && l.operatorKey === 'metro')
          .map((l) => l.id),
      );

      const ring: Array<[number, number]> = [
        [lat, lon],
        [lat + 0.01, lon + 0.002],
        [lat + 0.004, lon + 0.012],
      ];
      const poly = selectLots(
        inv,
        parseInventoryQuery('lots', { polygon: ring.map((p) => p.join('|')).join(','), limit: '1000' }, NOW),
      );
      expect(
        poly.hits.map((h) => h.rec.id),
        `seed ${seed} polygon ${k}`,
      ).toEqual(lots.filter((l) => pointInPolygon(l.lat, l.lon, ring)).map((l) => l.id));

      const route: Array<[number, number]> = [
        [lat, lon],
        [lat + 0.01, lon + 0.01],
        [lat + 0.02, lon + 0.005],
      ];
      const corridor = selectLots(
        inv,
        parseInventoryQuery('lots', { polyline: route.map((p) => p.join('|')).join(','), limit: '1000' }, NOW),
      );
      expect(
        corridor.hits.map((h) => h.rec.id),
        `seed ${seed} corridor ${k}`,
      ).toEqual(lots.filter((l) => distanceToPolylineM(l.lat, l.lon, route) <= 100).map((l) => l.id));

      const blk = selectBlocks(
        inv,
        parseInventoryQuery('blocks', { point: `${lat}|${lon}`, radius: String(radius), limit: '1000' }, NOW),
      );
      expect(
        blk.hits.map((h) => h.rec.blockID),
        `seed ${seed} blocks ${k}`,
      ).toEqual(blocks.filter((bl) => distanceToPolylineM(lat, lon, bl.geometry) <= radius).map((bl) => bl.blockID));
    }
  });

  it('pages a sorted result without gaps or repeats', () => {
    const q = (offset: number) =>
      selectLots(
        inv,
        parseInventoryQuery(
          'lots',
          { point: '39.3|-76.6', radius: '3000', sort: 'distance', limit: '7', offset: String(offset) },
          NOW,
        ),
      );
    const all = selectLots(
      inv,
      parseInventoryQuery('lots', { point: '39.3|-76.6', radius: '3000', sort: 'distance', limit: '1000' }, NOW),
    ).hits.map((h) => h.rec.id);
    const paged: number[] = [];
    for (let off = 0; off < all.length; off += 7) paged.push(...q(off).hits.map((h) => h.rec.id));
    expect(paged).toEqual(all);
    expect(q(0).total).toBe(all.length);
  });
});
