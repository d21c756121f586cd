/**
 * The inventory read from the shared base (`SharedInventory` over `shareParkingBase`) answers what
 * the inventory built whole (`buildInventory`) answers, on the Baltimore extract: every lot and
 * block record field by field, the lookups by id and alias, boxes, circle queries and the segment
 * nearest to points, without uploads and with uploads merged over OSM lots and blocks; and a
 * second thread (a real worker thread) reading the same shared bytes answers the same.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import type { Region } from '../../src/network/region.js';
import { allMigrations } from '../../src/app/migrations.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import {
  buildInventory,
  ParkingBaseReader,
  readUploads,
  shareParkingBase,
  SharedInventory,
  storeUploads,
  type Inventory,
  type SharedParkingBase,
} from '../../src/parking/index.js';
import { encodeLine } from '../../src/parking/inventory/polyline.js';
import { startThread } from '../../src/store/thread.js';
import { answerProbes, gridProbes, type InventoryProbe } from './inventory-probes.js';

const PBF = '../shared/data/baltimore.osm.pbf';
const present = existsSync(PBF);
if (!present) {
  if (process.env.CI === 'true') throw new Error(`${PBF} is missing (required in CI)`);
  console.warn(`skipping the shared inventory test: ${PBF} not found`);
}

type Uploads = Awaited<ReturnType<typeof readUploads>>;

/** Every lookup's probes: each record by id and alias, a grid over the region, points on curbs. */
function probesOf(inv: Inventory): InventoryProbe[] {
  const lats = inv.blocks.flatMap((b) => [b.bbox[0], b.bbox[2]]),
    lons = inv.blocks.flatMap((b) => [b.bbox[1], b.bbox[3]]);
  const extent: [number, number, number, number] = [
    Math.min(...lats),
    Math.min(...lons),
    Math.max(...lats),
    Math.max(...lons),
  ];
  const probes: InventoryProbe[] = gridProbes(extent, 12);
  for (const l of inv.lots) {
    probes.push({ kind: 'lot', id: l.id });
    if (l.alias) probes.push({ kind: 'alias', key: l.alias.toLowerCase() });
    if (l.osmRef) probes.push({ kind: 'alias', key: `osm|${l.osmRef}` });
  }
  inv.blocks.forEach((b, i) => {
    probes.push({ kind: 'block', id: b.blockID });
    if (i % 25 === 0) probes.push({ kind: 'segment', lat: b.geometry[0][0] + 0.00003, lon: b.geometry[0][1] });
  });
  probes.push({ kind: 'lot', id: 1 }, { kind: 'block', id: 1 }, { kind: 'alias', key: 'nobody|1' });
  return probes;
}

/** Compares every record and every probe's answer of the two inventories. */
function expectSame(whole: Inventory, shared: SharedInventory, base: SharedParkingBase): void {
  const lots = whole.lots.map((l) => shared.lotById.get(l.id));
  expect(lots).toStrictEqual(whole.lots);
  expect(JSON.stringify(lots)).toBe(JSON.stringify(whole.lots)); // field order too (rendered as is)
  const blocks = whole.blocks.map((b) => shared.blockById.get(b.blockID));
  expect(blocks).toStrictEqual(whole.blocks);
  expect(JSON.stringify(blocks)).toBe(JSON.stringify(whole.blocks));
  // nothing more in the shared one: every base id the whole inventory has too (or moved away)
  for (const id of base.blocks.ids) expect(whole.blockById.has(id)).toBe(shared.blockById.has(id));
  for (const id of base.lots.ids) expect(whole.lotById.has(id)).toBe(shared.lotById.has(id));
  const probes = probesOf(whole);
  expect(answerProbes(shared, probes)).toStrictEqual(answerProbes(whole, probes));
}

describe.skipIf(!present)('the shared inventory on the Baltimore extract', () => {
  let region: Region;
  let base: SharedParkingBase;
  let db: Db;
  let uploads: Uploads;
  beforeAll(async () => {
    region = buildRegion(readOsmExtract(PBF), { name: 'baltimore' });
    base = shareParkingBase(region);
    db = await openPglite();
    await runMigrations(db, allMigrations());
    const lot = region.lots.find((l) => l.osmType === 'way') ?? region.lots[0];
    const other = region.lots.find((l) => l.id !== lot.id)!;
    const [b1, b2] = [region.blocks[10], region.blocks[20]];
    await storeUploads(
      db,
      'baltimore',
      [
        // over an OSM lot by its OSM reference, and another one by its id, moved
        { osm_type: lot.osmType, osm_id: lot.osmId, name: 'Renamed Garage', spacesTotal: 77 },
        { id: other.id, name: 'Moved Lot', point: { type: 'Point', coordinates: [-76.6, 39.29] } },
        // a new lot
        { alias: 'acme|1', name: 'Acme Lot', point: { type: 'Point', coordinates: [-76.61, 39.285] } },
      ],
      [
        { blockID: b1.id, operator: 'City DOT' },
        {
          blockID: b2.id,
          polyline: encodeLine([
            [39.3, -76.62],
            [39.301, -76.621],
          ]),
        },
        {
          blockID: 9_000_000_001,
          name: 'New Street',
          polyline: encodeLine([
            [39.29, -76.6],
            [39.291, -76.601],
          ]),
        },
      ],
    );
    uploads = await readUploads(db, 'baltimore');
  }, 180_000);
  afterAll(async () => {
    await db?.close();
  });

  it('holds every lot and block of the region in shared memory', () => {
    expect(base.blocks.ids.length).toBe(new Set(region.blocks.map((b) => b.id)).size);
    expect(base.lots.ids.length).toBe(new Set(region.lots.map((l) => l.id)).size);
    expect(base.blocks.coords.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(base.blocks.index).toBeInstanceOf(SharedArrayBuffer);
    expect(base.lots.index).toBeInstanceOf(SharedArrayBuffer);
  });

  it('answers as the inventory built whole, record by record and query by query, without uploads', () => {
    const none = { lots: [], blocks: [] };
    const whole = buildInventory(region, none, 'USD');
    expectSame(whole, new SharedInventory(new ParkingBaseReader(base, 'USD'), none), base);
  }, 120_000);

  it('answers as the inventory built whole with uploads merged over OSM lots and blocks', () => {
    expect(uploads.lots.length).toBe(3);
    expect(uploads.blocks.length).toBe(3);
    const whole = buildInventory(region, uploads, 'USD');
    const shared = new SharedInventory(new ParkingBaseReader(base, 'USD'), uploads);
    expect(shared.lotByAlias.get('acme|1')?.fields.name).toBe('Acme Lot');
    expect(shared.blockById.get(9_000_000_001)?.fields.name).toBe('New Street');
    expectSame(whole, shared, base);
  }, 120_000);

  it('answers the same from another thread reading the same shared memory', async () => {
    const whole = buildInventory(region, uploads, 'USD');
    const probes = probesOf(whole);
    const thread = startThread(new URL('./shared-inventory-thread.ts', import.meta.url), { base, uploads, probes });
    const reply = await new Promise<{ shared: boolean; answers: string }>((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
    });
    await thread.terminate();
    expect(reply.shared).toBe(true);
    expect(JSON.parse(reply.answers)).toStrictEqual(JSON.parse(JSON.stringify(answerProbes(whole, probes))));
  }, 120_000);
});
