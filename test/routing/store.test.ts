import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMigrations } from '../../src/app/migrations.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { IncidentStore } from '../../src/traffic/incidents.js';
import { RouteStore } from '../../src/routing/route-store.js';
import { NO_CRITERIA } from '../../src/routing/engine.js';
import { openTestPostgres } from '../helpers/context.js';

const NOW_S = Date.UTC(2026, 10, 23, 12) / 1000;

/** The same suite on every backend. */
function storeSuite(name: string, open: () => Promise<{ db: Db; close: () => Promise<void> } | undefined>) {
  describe(`routing stores on ${name}`, () => {
    let handle: { db: Db; close: () => Promise<void> } | undefined;
    beforeAll(async () => {
      handle = await open();
      if (handle) await runMigrations(handle.db, allMigrations());
    });
    afterAll(async () => handle?.close());

    it('stores, lists, finds and deletes incidents with their time window and edges', async (ctx) => {
      if (!handle) return ctx.skip();
      const s = new IncidentStore(handle.db);
      const a = await s.create({
        type: 4,
        severity: 3,
        eventCode: 201,
        lat: 39.29,
        lon: -76.61,
        edges: [5, 6],
        startS: NOW_S,
        endS: NOW_S + 3600,
        delayImpactMinutes: 7.5,
        closure: true,
        shortDescription: 'Crash',
        fullDescription: 'Crash on Main St',
      });
      const b = await s.create({
        type: 1,
        severity: 1,
        eventCode: 701,
        lat: 39.3,
        lon: -76.6,
        edges: [9],
        startS: NOW_S - 7200,
        endS: NOW_S - 3600,
        delayImpactMinutes: 0,
        closure: false,
        shortDescription: 'Works',
        fullDescription: '',
      });
      expect(a).toMatchObject({
        type: 4,
        severity: 3,
        edges: [5, 6],
        startS: NOW_S,
        endS: NOW_S + 3600,
        closure: true,
        delayImpactMinutes: 7.5,
        version: 1,
      });
      const current = await s.listCurrent(NOW_S);
      expect(current.map((i) => i.id)).toContain(a.id);
      expect(current.map((i) => i.id)).not.toContain(b.id);
      expect((await s.listAll()).map((i) => i.id)).toEqual(expect.arrayContaining([a.id, b.id]));
      expect(await s.find(a.id)).toEqual(a);
      expect(await s.delete(a.id)).toBe(true);
      expect(await s.delete(a.id)).toBe(false);
      expect(await s.find(a.id)).toBeUndefined();
    });

    it('keeps routes until they expire', async (ctx) => {
      if (!handle) return ctx.skip();
      const s = new RouteStore(handle.db);
      const legs = [{ edges: [1, 2, 3], startFraction: 0.25, endFraction: 0.5, offsetS: 0 }];
      await s.save(
        [
          {
            id: `r-${name}`,
            tripId: 't1',
            mapVersion: 'm1',
            legs,
            waypoints: [
              { lat: 1, lon: 2, description: 'home' },
              { lat: 3, lon: 4 },
            ],
            shortest: false,
            useTraffic: true,
            criteria: NO_CRITERIA,
          },
        ],
        NOW_S,
        2,
      );
      const r = await s.find(`r-${name}`, NOW_S + 3600);
      expect(r).toEqual({
        id: `r-${name}`,
        tripId: 't1',
        mapVersion: 'm1',
        legs,
        waypoints: [
          { lat: 1, lon: 2, description: 'home' },
          { lat: 3, lon: 4 },
        ],
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
      });
      expect(await s.find(`r-${name}`, NOW_S + 2 * 3600 + 1)).toBeUndefined();
      expect(await s.find('missing', NOW_S)).toBeUndefined();
    });

    it('writes routes behind: readable at once in this process, by another process after the background INSERT', async (ctx) => {
      if (!handle) return ctx.skip();
      const mine = new RouteStore(handle.db);
      const other = new RouteStore(handle.db);
      const legs = [{ edges: [4, 5], startFraction: 0.2, endFraction: 0.9, offsetS: 0 }];
      const route = {
        id: `b-${name}`,
        tripId: 't4',
        mapVersion: 'm1',
        legs,
        waypoints: [
          { lat: 1, lon: 2 },
          { lat: 3, lon: 4 },
        ],
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
      };
      mine.saveBehind([route, { ...route, id: `c-${name}` }], NOW_S, 1);
      expect((await mine.find(`b-${name}`, NOW_S))?.legs).toEqual(legs);
      await mine.flushed();
      expect(mine.lastError).toBeNull();
      expect((await other.find(`b-${name}`, NOW_S))?.legs).toEqual(legs);
      expect((await other.find(`c-${name}`, NOW_S))?.tripId).toBe('t4');
      // expiry holds for the in-memory copy too
      expect(await mine.find(`b-${name}`, NOW_S + 3601)).toBeUndefined();
    });

    it('puts the routes answered within the write delay into one INSERT', async (ctx) => {
      if (!handle) return ctx.skip();
      const db = handle.db;
      let inserts = 0;
      const counting = {
        query: (sql: string, params?: unknown[]) => {
          if (sql.startsWith('INSERT INTO routes')) inserts++;
          return db.query(sql, params);
        },
      };
      const mine = new RouteStore(counting as typeof db, 30);
      const other = new RouteStore(db);
      const legs = [{ edges: [8], startFraction: 0, endFraction: 1, offsetS: 0 }];
      const route = {
        id: `d-${name}`,
        tripId: 't5',
        mapVersion: 'm1',
        legs,
        waypoints: [
          { lat: 1, lon: 2 },
          { lat: 3, lon: 4 },
        ],
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
      };
      mine.saveBehind([route], NOW_S, 1);
      await new Promise((r) => setImmediate(r));
      mine.saveBehind([{ ...route, id: `e-${name}` }], NOW_S, 1);
      expect(inserts).toBe(0);
      await mine.flushed();
      expect(inserts).toBe(1);
      expect(mine.lastError).toBeNull();
      expect((await other.find(`d-${name}`, NOW_S))?.legs).toEqual(legs);
      expect((await other.find(`e-${name}`, NOW_S))?.legs).toEqual(legs);
    });

    it('round-trips multi-leg edge lists in the compact encoding and reads rows written before it', async (ctx) => {
      if (!handle) return ctx.skip();
      const s = new RouteStore(handle.db);
      const legs = [
        { edges: [7, 4_000_000_000, 0], startFraction: 0.1, endFraction: 1, offsetS: 0 },
        { edges: [], startFraction: 0.3, endFraction: 0.6, offsetS: 0 },
        { edges: [9, 10], startFraction: 0, endFraction: 0.75, offsetS: 60 },
      ];
      await s.save(
        [
          {
            id: `m-${name}`,
            tripId: 't2',
            mapVersion: 'm1',
            legs,
            waypoints: [
              { lat: 1, lon: 2 },
              { lat: 3, lon: 4 },
              { lat: 5, lon: 6 },
            ],
            shortest: true,
            useTraffic: false,
            criteria: NO_CRITERIA,
          },
        ],
        NOW_S,
        2,
      );
      expect((await s.find(`m-${name}`, NOW_S))?.legs).toEqual(legs);
      const old = {
        legs: [{ edges: [3, 2, 1], startFraction: 0, endFraction: 1, offsetS: 0 }],
        waypoints: [
          { lat: 1, lon: 2 },
          { lat: 3, lon: 4 },
        ],
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
      };
      await handle.db.query(
        `INSERT INTO routes (id, trip_id, map_version, path, expires_at) VALUES ($1, 't3', 'm1', $2, to_timestamp($3))`,
        [`o-${name}`, JSON.stringify(old), NOW_S + 3600],
      );
      expect((await s.find(`o-${name}`, NOW_S))?.legs).toEqual(old.legs);
    });
  });
}

storeSuite('PGlite', async () => {
  const db = await openPglite();
  return { db, close: () => db.close() };
});
storeSuite('PostgreSQL', async () => {
  const pg = await openTestPostgres();
  return pg ? { db: pg.db, close: pg.drop } : undefined;
});
