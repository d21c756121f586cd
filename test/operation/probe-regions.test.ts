/**
 * Probe identity includes the region: the same trace id and timestamps stored for two regions are
 * two traces — both stored, both matched, neither's traversals or pending marks touching the
 * other's. Pings stored before regions were recorded are adopted by the region that processes them.
 */
import { describe, it, expect } from 'vitest';
import { edgeGeometry } from '../../src/network/graph.js';
import type { Region } from '../../src/network/region.js';
import { openPglite, runMigrations } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';
import { ingestHere } from '../../src/app/ingestion/intake.js';
import { readPending } from '../../src/probes/ingest/pending.js';
import type { ProbeRecord } from '../../src/probes/ingest/records.js';
import { tinyRegion } from '../helpers/tiny-region.js';

/** Eight pings 2 s apart along the first edge of the tiny region longer than 60 m. */
function drive(region: Region, traceId: string, t0: number): ProbeRecord[] {
  const g = region.graph;
  let e = 0;
  while (e < g.edgeCount && g.edgeLengthM[e] < 60) e++;
  const geom = edgeGeometry(g, e);
  const [a, b] = [geom[0], geom[geom.length - 1]];
  return Array.from({ length: 8 }, (_, i) => {
    const f = 0.05 + (0.9 * i) / 7;
    return { traceId, ping: { tS: t0 + i * 2, lat: a[0] + (b[0] - a[0]) * f, lon: a[1] + (b[1] - a[1]) * f } };
  });
}

const count = async (db: Awaited<ReturnType<typeof openPglite>>, sql: string, params: unknown[] = []) =>
  Number((await db.query<{ n: number }>(sql, params)).rows[0].n);

describe('probe identity by region', () => {
  it('keeps the same trace id in two regions apart: two sets of pings, traversals and pending marks', async () => {
    const db = await openPglite();
    try {
      await runMigrations(db, allMigrations());
      const a = tinyRegion();
      const b: Region = { ...tinyRegion(), meta: { ...a.meta, name: 'tiny-b', mapVersion: 'tiny-b-1' } };
      const t0 = Date.UTC(2026, 0, 5, 13, 0) / 1000;
      const first = await ingestHere(db, a, drive(a, 'car-1', t0));
      const second = await ingestHere(db, b, drive(b, 'car-1', t0));
      expect(first.ingest.inserted).toBe(8);
      expect(second.ingest.inserted).toBe(8);
      expect(second.ingest.duplicates).toBe(0);
      expect(await count(db, 'SELECT count(*)::int AS n FROM probe_pings')).toBe(16);
      expect(await count(db, "SELECT count(*)::int AS n FROM probe_pings WHERE region = 'tiny-b'")).toBe(8);
      const traversalsOf = (mv: string) =>
        count(db, 'SELECT count(*)::int AS n FROM probe_traversals WHERE map_version = $1', [mv]);
      const inA = await traversalsOf('tiny-1');
      expect(inA).toBeGreaterThan(0);
      expect(await traversalsOf('tiny-b-1')).toBe(inA);
      // a late ping for region A re-matches A's trace only
      await ingestHere(db, a, [{ traceId: 'car-1', ping: { ...drive(a, 'car-1', t0)[7].ping, tS: t0 + 16 } }]);
      expect(await count(db, "SELECT count(*)::int AS n FROM probe_pings WHERE region = 'tiny'")).toBe(9);
      expect(await traversalsOf('tiny-b-1')).toBe(inA);
      expect(await readPending(db, 'tiny', ['car-1'])).toEqual([]);
      expect(await readPending(db, 'tiny-b', ['car-1'])).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('adopts pings and pending marks stored before regions were recorded (migration 310)', async () => {
    const db = await openPglite();
    try {
      const all = allMigrations();
      await runMigrations(
        db,
        all.filter((m) => m.version < 310),
      );
      const region = tinyRegion();
      const pings = drive(region, 'old-1', Date.UTC(2026, 0, 5, 13, 0) / 1000);
      for (const p of pings)
        await db.query('INSERT INTO probe_pings (trace_id, t_s, lat, lon) VALUES ($1, $2, $3, $4)', [
          p.traceId,
          p.ping.tS,
          p.ping.lat,
          p.ping.lon,
        ]);
      await db.query("INSERT INTO probe_pending (trace_id, from_s, map_version) VALUES ('old-1', $1, '')", [
        pings[0].ping.tS,
      ]);
      await runMigrations(db, all);
      expect(await count(db, "SELECT count(*)::int AS n FROM probe_pings WHERE region = ''")).toBe(8);
      // the region's first processing adopts them, with the trace's partition, and processes them
      await ingestHere(db, region, []);
      expect(await count(db, "SELECT count(*)::int AS n FROM probe_pings WHERE region = 'tiny'")).toBe(8);
      expect(await count(db, 'SELECT count(*)::int AS n FROM probe_pending')).toBe(0);
      expect(
        await count(db, "SELECT count(*)::int AS n FROM probe_traversals WHERE trace_id = 'old-1'"),
      ).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });
});
