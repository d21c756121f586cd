/**
 * Parking inventory benchmark: GET /lots and /blocks query latency (p50 / p95) for box and
 * point+radius queries over generated inventories — 10 000 and 1 000 000 lots (10 000 and 200 000
 * blocks) — measured in process (parse → spatial index → geodesic filter → sort → render with rates
 * and occupancy), and over HTTP (`app.inject`, token check and JSON included) for the 10 000 case.
 * Seeded: the same inventory and queries every run.
 */
import {
  buildInventory,
  buildFrames,
  parseInventoryQuery,
  parseRateRules,
  selectBlocks,
  selectLots,
  holidayCalendar,
  Inventory,
} from '../src/parking/index.js';
import type { BlockRecord, LotRecord } from '../src/parking/index.js';
import { renderBlocks, renderLots } from '../src/parking/render/render.js';
import type { OsmLot, Region } from '../src/network/region.js';
import { makeTestContext } from '../test/helpers/context.js';
import { tinyRegion } from '../test/helpers/tiny-region.js';
import { createRng } from '../src/sim/prng.js';

const CENTRE = { lat: 39.29, lon: -76.61 };
/** degrees of latitude per side of the square holding 10 000 lots (constant density across sizes) */
const SIDE_10K_DEG = 0.2;
const QUERIES = 300;
const WARMUP = 30;
const NOW_S = Date.UTC(2026, 10, 23, 15, 0) / 1000;

/** Seeded uniform numbers in [0, 1) (mulberry32, the simulator's generator). */
const rng = (seed: number): (() => number) => createRng(seed).next;

const FRAMES = buildFrames(
  parseRateRules(
    [
      { dow_start: 1, dow_end: 5, time_in: '07:00', time_out: '19:00', rate: 3, increment: 60, repeats: true, max: 24 },
      { dow_start: 6, dow_end: 7, rate: 10, increment: 1440 },
    ],
    'structured_rates',
  ),
);

function sideDeg(n: number): number {
  return SIDE_10K_DEG * Math.sqrt(n / 10_000);
}

function generateLots(n: number, seed: number): LotRecord[] {
  const r = rng(seed);
  const side = sideDeg(n);
  const shared = { pmtTypes: ['Cash', 'Visa'], hrs: ['Mon-Sun: 24 Hours'], amenities: [], peps: [] };
  const lots: LotRecord[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const lat = CENTRE.lat + (r() - 0.5) * side;
    const lon = CENTRE.lon + (r() - 0.5) * side * 1.3;
    lots[i] = {
      id: i + 1,
      alias: null,
      osmRef: null,
      lat,
      lon,
      tz: 'America/New_York',
      operatorKey: i % 7 === 0 ? 'metro' : 'city',
      category: 'Public Parking',
      spacesTotal: 20 + (i % 400),
      frames: FRAMES,
      openingHours: null,
      rateCardUploaded: false,
      currencyIso: 'USD',
      fields: {
        name: `Lot ${i + 1}`,
        operator: i % 7 === 0 ? 'Metro' : 'City',
        point: { type: 'Point', coordinates: [lon, lat] },
        ...shared,
      },
    };
  }
  return lots;
}

function generateBlocks(n: number, seed: number): BlockRecord[] {
  const r = rng(seed);
  const side = sideDeg(n);
  const blocks: BlockRecord[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const lat = CENTRE.lat + (r() - 0.5) * side;
    const lon = CENTRE.lon + (r() - 0.5) * side * 1.3;
    const horizontal = r() < 0.5;
    const g: Array<[number, number]> = horizontal
      ? [
          [lat, lon],
          [lat, lon + 0.0015],
        ]
      : [
          [lat, lon],
          [lat + 0.0012, lon],
        ];
    blocks[i] = {
      blockID: i + 1,
      operatorKey: '',
      geometry: g,
      bbox: [
        Math.min(g[0][0], g[1][0]),
        Math.min(g[0][1], g[1][1]),
        Math.max(g[0][0], g[1][0]),
        Math.max(g[0][1], g[1][1]),
      ],
      tz: 'America/New_York',
      currencyIso: 'USD',
      segments: (['RIGHT', 'LEFT'] as const).map((s, k) => ({
        segmentID: `${i + 1}-${k}`,
        side: s,
        startM: 0,
        endM: 120,
        spacesTotal: 18,
        frames: FRAMES,
        baseOpen: true,
        neverOpen: false,
        restrictions: [],
        geometry: g,
        fields: { paymentID: [], amenities: [], structuredRates: [] },
        rateCardUploaded: false,
      })),
      fields: {
        name: `Street ${i % 500}`,
        address: '',
        operator: '',
        currency: '$',
        pmtTypes: [],
        photoThumbs: [],
        reservations: [],
        amenities: [],
      },
    };
  }
  return blocks;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(
  label: string,
  makeQuery: (r: () => number) => string,
  run: (qs: string) => Promise<number> | number,
): Promise<void> {
  const r = rng(42);
  const times: number[] = [];
  let items = 0;
  for (let i = 0; i < WARMUP + QUERIES; i++) {
    const qs = makeQuery(r);
    const t0 = performance.now();
    const n = await run(qs);
    const dt = performance.now() - t0;
    if (i >= WARMUP) {
      times.push(dt);
      items += n;
    }
  }
  times.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(58)} p50 ${pct(times, 50).toFixed(3).padStart(8)} ms   p95 ${pct(times, 95).toFixed(3).padStart(8)} ms   avg items ${(items / QUERIES).toFixed(1)}`,
  );
}

function randomPoint(r: () => number, n: number): [number, number] {
  const side = sideDeg(n) * 0.9;
  return [CENTRE.lat + (r() - 0.5) * side, CENTRE.lon + (r() - 0.5) * side * 1.3];
}

const circleQuery =
  (n: number) =>
  (r: () => number): string => {
    const [lat, lon] = randomPoint(r, n);
    return `point=${lat.toFixed(5)}|${lon.toFixed(5)}&radius=500&sort=distance&duration=60|120&limit=100`;
  };
const boxQuery =
  (n: number) =>
  (r: () => number): string => {
    const [lat, lon] = randomPoint(r, n);
    return `box=${(lat + 0.0045).toFixed(5)}|${(lon - 0.006).toFixed(5)},${(lat - 0.0045).toFixed(5)}|${(lon + 0.006).toFixed(5)}&duration=60&limit=100`;
  };

function paramsOf(qs: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(qs).entries());
}

/** Runs the parking benchmark and prints p50/p95 per case. */
export async function benchParking(): Promise<void> {
  const isHoliday = holidayCalendar('US');
  const rc = { nowS: NOW_S, isHoliday, lotObservations: new Map(), segmentObservations: new Map() };
  for (const [nLots, nBlocks] of [
    [10_000, 10_000],
    [1_000_000, 200_000],
  ] as const) {
    let t0 = performance.now();
    const inv = new Inventory(generateLots(nLots, 1), generateBlocks(nBlocks, 2));
    console.log(
      `\n${nLots.toLocaleString('en-US')} lots, ${nBlocks.toLocaleString('en-US')} blocks: generated and indexed in ${((performance.now() - t0) / 1000).toFixed(2)} s`,
    );
    await measure(`lots   point+radius 500 m (in process)`, circleQuery(nLots), (qs) => {
      const q = parseInventoryQuery('lots', paramsOf(qs), NOW_S);
      const { hits } = selectLots(inv, q);
      return renderLots(hits, { ...rc, query: q, polyline6: false }).length;
    });
    await measure(`lots   box 1 km × 1 km (in process)`, boxQuery(nLots), (qs) => {
      const q = parseInventoryQuery('lots', paramsOf(qs), NOW_S);
      const { hits } = selectLots(inv, q);
      return renderLots(hits, { ...rc, query: q, polyline6: false }).length;
    });
    await measure(`blocks point+radius 500 m (in process)`, circleQuery(nBlocks), (qs) => {
      const q = parseInventoryQuery('blocks', paramsOf(qs), NOW_S);
      const { hits } = selectBlocks(inv, q);
      return renderBlocks(hits, { ...rc, query: q, polyline6: true }).length;
    });
    await measure(`blocks box 1 km × 1 km (in process)`, boxQuery(nBlocks), (qs) => {
      const q = parseInventoryQuery('blocks', paramsOf(qs), NOW_S);
      const { hits } = selectBlocks(inv, q);
      return renderBlocks(hits, { ...rc, query: q, polyline6: true }).length;
    });
    t0 = performance.now();
    void t0;
  }

  // HTTP (inject): the real plugin over a region holding 10 000 OSM lots
  const r = rng(7);
  const side = sideDeg(10_000);
  const osmLots: OsmLot[] = [];
  for (let i = 0; i < 10_000; i++) {
    osmLots.push({
      id: i + 1,
      osmType: 'node',
      osmId: i + 1,
      name: `Lot ${i + 1}`,
      operator: 'City',
      capacity: 50 + (i % 300),
      capacityDisabled: null,
      fee: 'yes',
      access: 'yes',
      parking: 'surface',
      openingHours: '24/7',
      payment: [],
      lat: CENTRE.lat + (r() - 0.5) * side,
      lon: CENTRE.lon + (r() - 0.5) * side * 1.3,
      outline: null,
      tags: { charge: '2 USD/hour' },
    });
  }
  const region: Region = { ...tinyRegion(), lots: osmLots };
  void buildInventory;
  const t = await makeTestContext({ region, now: () => NOW_S * 1000 });
  const auth = { authorization: `Bearer ${t.token}` };
  console.log('\n10,000 lots over HTTP (app.inject: token check, parse, query, observations, render, JSON)');
  await measure('GET /lots point+radius 500 m', circleQuery(10_000), async (qs) => {
    const res = await t.app.inject({ url: `/lots?${qs}`, headers: auth });
    if (res.statusCode !== 200) throw new Error(res.body);
    return (res.json().result as unknown[]).length;
  });
  await measure('GET /lots box 1 km × 1 km', boxQuery(10_000), async (qs) => {
    const res = await t.app.inject({ url: `/lots?${qs}`, headers: auth });
    if (res.statusCode !== 200) throw new Error(res.body);
    return (res.json().result as unknown[]).length;
  });
  await t.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchParking();
