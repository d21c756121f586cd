import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { allMigrations } from '../../src/app/migrations.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import {
  InventoryService,
  deleteLotUpload,
  inventoryVersion,
  readObservations,
  readUploads,
  recordOccupancyObservations,
  storeUploads,
} from '../../src/parking/index.js';
import { openTestPostgres, withoutPostgres } from '../helpers/context.js';
import { tinyRegion } from '../helpers/tiny-region.js';

/** The same suite on PGlite and, when TEST_DATABASE_URL is set, on PostgreSQL. */
const backends: Array<{
  name: string;
  skip: boolean;
  open: () => Promise<{ db: Db; done: () => Promise<void> } | undefined>;
}> = [
  {
    name: 'PGlite',
    skip: false,
    open: async () => {
      const db = await openPglite();
      return { db, done: () => db.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: withoutPostgres,
    open: async () => {
      const pg = await openTestPostgres();
      return pg && { db: pg.db, done: pg.drop };
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`inventory uploads and observations on ${backend.name}`, () => {
    let h: { db: Db; done: () => Promise<void> } | undefined;
    beforeAll(async () => {
      h = await backend.open();
      if (h) await runMigrations(h.db, allMigrations());
    });
    afterAll(async () => {
      await h?.done();
    });

    it('stores uploads, merges later partial uploads of the same lot, and bumps the version', async () => {
      if (!h) throw new Error(`${backend.name} did not open`);
      const db = h.db;
      const v0 = await inventoryVersion(db);
      await storeUploads(
        db,
        'tiny',
        [
          { alias: 'acme|1', name: 'One', point: { type: 'Point', coordinates: [-76.6, 39.29] } },
          { id: 42, name: 'Forty-two', spacesTotal: 9 },
        ],
        [{ blockID: 7, name: 'Pier Rd' }],
      );
      await storeUploads(db, 'tiny', [{ alias: 'acme|1', spacesTotal: 12 }], []);
      expect(await inventoryVersion(db)).toBe(v0 + 2);
      const up = await readUploads(db, 'tiny');
      const one = up.lots.find((l) => l.key === 'alias:acme|1')!;
      expect(one.data).toMatchObject({ name: 'One', spacesTotal: 12 });
      expect(up.lots.find((l) => l.key === 'id:42')?.id).toBe(42);
      expect(up.blocks).toEqual([{ key: 'block:7', blockID: 7, data: { name: 'Pier Rd' }, ignored: [] }]);
      expect(await deleteLotUpload(db, 'tiny', 'id:42')).toBe(true);
      expect(await deleteLotUpload(db, 'tiny', 'id:42')).toBe(false);
      expect((await readUploads(db, 'tiny')).lots.map((l) => l.key)).toEqual(['alias:acme|1']);
    });

    it('an inventory service sees an upload committed by this process at once, despite its version-check interval', async () => {
      if (!h) throw new Error(`${backend.name} did not open`);
      // the block upload of the first test needs the imported block 7 to land on
      const region = {
        ...tinyRegion(),
        blocks: [
          {
            id: 7,
            name: 'Pier Rd',
            fromNode: 0,
            toNode: 1,
            edges: [],
            geometry: [
              [39.29, -76.61],
              [39.29, -76.608],
            ] as Array<[number, number]>,
            lengthM: 172,
            curb: [],
          },
        ],
      };
      const service = new InventoryService(h.db, region, { versionCheckMs: 3_600_000 });
      const before = await service.current();
      expect(before.lotById.has(4242)).toBe(false);
      await storeUploads(
        h.db,
        'tiny',
        [{ id: 4242, name: 'Late Lot', point: { type: 'Point', coordinates: [-76.6, 39.29] } }],
        [],
      );
      expect((await service.current()).lotById.get(4242)?.fields.name).toBe('Late Lot');
      expect(await deleteLotUpload(h.db, 'tiny', 'id:4242')).toBe(true);
      expect((await service.current()).lotById.has(4242)).toBe(false);
    });

    it('writes nothing when one item of an upload is invalid', async () => {
      if (!h) throw new Error(`${backend.name} did not open`);
      const before = await inventoryVersion(h.db);
      await expect(
        storeUploads(
          h.db,
          'tiny',
          [
            { id: 50, name: 'fine' },
            { id: 51, costIndex: 9 },
          ],
          [],
        ),
      ).rejects.toThrow(/lots\[1\]\.costIndex/);
      expect(await inventoryVersion(h.db)).toBe(before);
      expect((await readUploads(h.db, 'tiny')).lots.some((l) => l.id === 50)).toBe(false);
    });

    it('records and reads occupancy observations by target and time window', async () => {
      if (!h) throw new Error(`${backend.name} did not open`);
      const t = Date.UTC(2026, 10, 23, 15) / 1000;
      await recordOccupancyObservations(h.db, [
        { kind: 'lot', targetId: '11', observedAtS: t - 600, occupied: 150, capacity: 200, source: 'operator' },
        { kind: 'lot', targetId: '11', observedAtS: t - 7 * 86_400, occupied: 10, source: 'feed' },
        { kind: 'segment', targetId: '1-R1', observedAtS: t, occupied: 3, source: 'park_events' },
      ]);
      const lots = await readObservations(h.db, 'lot', ['11', '12'], t - 3600, t);
      expect(lots.get('11')).toEqual([{ observedAtS: t - 600, occupied: 150, capacity: 200, source: 'operator' }]);
      expect(lots.has('12')).toBe(false);
      expect((await readObservations(h.db, 'segment', ['1-R1'], t, t)).get('1-R1')?.[0].occupied).toBe(3);
      await expect(
        recordOccupancyObservations(h.db, [
          { kind: 'lot', targetId: '11', observedAtS: t, occupied: -1, source: 'operator' },
        ]),
      ).rejects.toThrow(/occupied/);
    });
  });
}
