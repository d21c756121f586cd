/**
 * `npm run bench -- metro --step parking`: the parking inventory's shared base on the metro, in
 * process: its build (time, bytes of shared arrays), what a serving thread's records cost (heap of
 * 4 096 blocks made, time a block), and `/blocks` selection (point + 300 m at 300 seeded points,
 * no rendering) over the shared base — records not yet made, and records kept (60 of the queries
 * timed the second time) — against the inventory built whole beforehand.
 */
import { join } from 'node:path';
import { loadRegion } from '../src/network/index.js';
import {
  buildInventory,
  type InventoryView,
  ParkingBaseReader,
  parseInventoryQuery,
  selectBlocks,
  SharedInventory,
  shareParkingBase,
} from '../src/parking/index.js';
import { typedBytes } from '../src/routing/search/shared-arrays.js';
import { createRng } from '../src/sim/prng.js';
import { type MetroBench, recordFigures } from './lib/metro-common.js';

const NOW_S = Date.UTC(2026, 10, 23, 15) / 1000;
const QUERIES = 300;

function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

/** p50, p95 (ms) and blocks a query of `/blocks` selection at `points`. */
function selectTimes(
  inv: InventoryView,
  points: Array<[number, number]>,
): { p50: number; p95: number; blocks: number } {
  const ms: number[] = [];
  let n = 0;
  for (const [lat, lon] of points) {
    const q = parseInventoryQuery('blocks', { point: `${lat}|${lon}`, radius: '300', limit: '1000' }, NOW_S);
    const t = performance.now();
    n += selectBlocks(inv, q).total;
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length * 0.5)], p95: ms[Math.floor(ms.length * 0.95)], blocks: n / points.length };
}

/** Measures the shared parking base of region `metro` in `b.dataDir`. */
export async function benchSharedParking(b: MetroBench): Promise<void> {
  const region = loadRegion(join(b.dataDir, 'regions', 'metro'));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const base = shareParkingBase(region);
  const cpu = process.cpuUsage(c0);
  const buildS = (performance.now() - t0) / 1000;
  const indexMb = ((base.lots.index?.byteLength ?? 0) + (base.blocks.index?.byteLength ?? 0)) / 1e6;
  const sharedMb = typedBytes(base) / 1e6 + indexMb;
  console.log(
    `  shared base: ${base.blocks.ids.length} blocks, ${base.lots.ids.length} lots, ${sharedMb.toFixed(1)} MB (strings ${(base.strings.bytes.byteLength / 1e6).toFixed(1)} MB, indexes ${indexMb.toFixed(1)} MB), built in ${buildS.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU (blocks decoded from the bundle included)`,
  );
  const h0 = heapMb();
  const shared = new SharedInventory(new ParkingBaseReader(base, 'USD'), { lots: [], blocks: [] });
  const t1 = performance.now();
  let made = 0;
  for (let i = 0; i < base.blocks.ids.length && made < 4096; i += 97, made++) shared.blockById.get(base.blocks.ids[i]);
  const blockUs = ((performance.now() - t1) * 1000) / made;
  const cacheMb = heapMb() - h0;
  console.log(`  a thread's ${made} blocks made: +${cacheMb.toFixed(1)} MB of heap, ${blockUs.toFixed(0)} µs a block`);
  const whole = buildInventory(region, { lots: [], blocks: [] }, 'USD');
  let [minLat, minLon, maxLat, maxLon] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const r of whole.blocks) {
    minLat = Math.min(minLat, r.bbox[0]);
    minLon = Math.min(minLon, r.bbox[1]);
    maxLat = Math.max(maxLat, r.bbox[2]);
    maxLon = Math.max(maxLon, r.bbox[3]);
  }
  const rng = createRng(b.seed);
  const points = Array.from(
    { length: QUERIES },
    () => [minLat + (maxLat - minLat) * rng.next(), minLon + (maxLon - minLon) * rng.next()] as [number, number],
  );
  const w = selectTimes(whole, points);
  const fresh = selectTimes(new SharedInventory(new ParkingBaseReader(base, 'USD'), { lots: [], blocks: [] }), points);
  // records kept: the first 60 queries (about 3 000 blocks, under the 4 096 kept) once, then timed again
  const kept = points.slice(0, 60);
  const warm = new SharedInventory(new ParkingBaseReader(base, 'USD'), { lots: [], blocks: [] });
  selectTimes(warm, kept);
  const again = selectTimes(warm, kept);
  const line = (label: string, r: typeof w) =>
    console.log(
      `  /blocks within 300 m, ${label}: p50 ${r.p50.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms (${r.blocks.toFixed(0)} blocks a query)`,
    );
  line('inventory built whole', w);
  line('shared, records not yet made', fresh);
  line('shared, records kept (60 queries, the second time)', again);
  recordFigures(b, 'parking', {
    sharedMb,
    buildS,
    buildCpuS: (cpu.user + cpu.system) / 1e6,
    cacheMb,
    blockUs,
    wholeP50Ms: w.p50,
    freshP50Ms: fresh.p50,
    againP50Ms: again.p50,
  });
}
