import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/index.js';
import { simulate } from '../../src/sim/simulator.js';
import type { ProbeRecord } from '../../src/probes/ingest/records.js';
import type { Db } from '../../src/store/db.js';
import type { Region } from '../../src/network/region.js';
import { openPglite, runMigrations } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';
import { ingestRecords } from '../../src/probes/ingest/ingest.js';
import { IngestionWorker } from '../../src/app/ingestion/worker.js';
import { soloLeases } from '../../src/store/partition-leases.js';
import { PARTITIONS } from '../../src/probes/partition.js';
import { rebuildFacts } from '../../src/analytics/index.js';

// A feed arrives in time order, a few seconds of every vehicle per request. A worker keeps each
// trace's matching state and stored traversal rows between rounds, reads only the pings after
// what a state consumed and sends only rows that changed; a worker that processes every request
// from the stored pings alone (a new owner after a takeover), and one that processes the whole
// feed at once, must leave exactly the same tables.

async function dump(db: Db): Promise<unknown[][]> {
  const q = async (sql: string): Promise<unknown[]> => (await db.query(sql)).rows;
  return [
    await q(
      'SELECT trace_id, part, seq, map_version, edge_id, enter_s, exit_s, covered, bin_of_week, speed_kph, pings::text AS pings FROM probe_traversals ORDER BY trace_id, part, seq',
    ),
    await q('SELECT * FROM learned_speed_bins ORDER BY map_version, edge_id, bin_of_week'),
    await q('SELECT * FROM analytics_fact ORDER BY trace_id, part, intersection_key, occurrence'),
  ];
}

async function openDb(): Promise<Db> {
  const db = await openPglite();
  await runMigrations(db, allMigrations());
  return db;
}

function workerOn(db: Db, region: Region): IngestionWorker {
  return new IngestionWorker({ db, region, leases: async () => soloLeases(db, PARTITIONS) });
}

describe('processing a time-ordered feed request by request', () => {
  const dir = mkdtempSync(join(tmpdir(), 'streetwise-resume-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The demo region and the feed's requests (built once). */
  const feed = (async () => {
    const { regionDir } = await createDemoRegion(dir);
    const region = loadRegion(regionDir);
    const startS = Date.UTC(2026, 0, 7, 12, 30) / 1000;
    const records: ProbeRecord[] = [];
    for await (const b of simulate(region, {
      startS,
      durationS: 1800,
      penetration: 1,
      intervalS: 3,
      seed: 5,
      tracePrefix: 'rs',
      stopAtEnd: true,
    }))
      records.push(...b);
    // one vehicle drives a second trip after a pause longer than the matcher's gap (120 s): the
    // trace of a later vehicle is renamed to an earlier one's
    const span = new Map<string, { first: number; last: number }>();
    for (const r of records) {
      const s = span.get(r.traceId) ?? { first: Infinity, last: -Infinity };
      span.set(r.traceId, { first: Math.min(s.first, r.ping.tS), last: Math.max(s.last, r.ping.tS) });
    }
    const byEnd = [...span].sort((a, b) => a[1].last - b[1].last);
    const [early, earlySpan] = byEnd[0];
    const later = byEnd.find(([, s]) => s.first > earlySpan.last + 300 && s.first < earlySpan.last + 900)![0];
    for (const r of records) if (r.traceId === later) r.traceId = early;
    records.sort((a, b) => a.ping.tS - b.ping.tS);
    // requests of 100 pings; one request also carries a late ping of an earlier minute
    const batches: ProbeRecord[][] = [];
    for (let i = 0; i < records.length; i += 100) batches.push(records.slice(i, i + 100));
    expect(batches.length).toBeGreaterThan(8);
    const late = batches[3].pop()!;
    batches[6].push(late);
    // the first ping of the second trip arrives with the last ones of the first (a buffered upload):
    // one request's pings span the pause
    const lastOfFirst = batches.findIndex((b) => b.some((r) => r.traceId === early && r.ping.tS === earlySpan.last));
    const secondTrip = batches.findIndex((b, i) => i > lastOfFirst && b.some((r) => r.traceId === early));
    const k = batches[secondTrip].findIndex((r) => r.traceId === early);
    batches[lastOfFirst].push(...batches[secondTrip].splice(k, 1));
    return { region, startS, batches };
  })();

  it('leaves the same traversals, learned bins and facts with and without kept states, and at once', async () => {
    const { region, batches } = await feed;
    const [kept, fresh, once] = [await openDb(), await openDb(), await openDb()];
    const keeper = workerOn(kept, region);
    try {
      let traversals = 0;
      for (const batch of batches) {
        await ingestRecords(kept, batch, { region: region.meta.name });
        traversals += (await keeper.drain()).traversals - traversals;
        await ingestRecords(fresh, batch, { region: region.meta.name });
        const newcomer = workerOn(fresh, region);
        await newcomer.drain();
        await newcomer.stop();
        await ingestRecords(once, batch, { region: region.meta.name });
      }
      const single = workerOn(once, region);
      await single.drain();
      await single.stop();
      expect(traversals).toBeGreaterThan(500);
      const [ta, la, fa] = await dump(kept);
      const [tb, lb, fb] = await dump(fresh);
      const [tc, lc, fc] = await dump(once);
      expect(ta.length).toBeGreaterThan(200);
      expect(fa.length).toBeGreaterThan(50);
      expect(ta).toEqual(tb);
      expect(la).toEqual(lb);
      expect(fa).toEqual(fb);
      expect(tc).toEqual(ta);
      expect(lc).toEqual(la);
      expect(fc).toEqual(fa);
    } finally {
      await keeper.stop();
      for (const db of [kept, fresh, once]) await db.close();
    }
  }, 180_000);

  it('stores the facts a full rebuild from the stored trajectories gives', async () => {
    const { region, startS, batches } = await feed;
    const db = await openDb();
    const worker = workerOn(db, region);
    try {
      for (const batch of batches) {
        await ingestRecords(db, batch, { region: region.meta.name });
        await worker.drain();
      }
      const dumpFacts = async (): Promise<unknown[]> =>
        (await db.query('SELECT * FROM analytics_fact ORDER BY trace_id, part, intersection_key, occurrence')).rows;
      const live = await dumpFacts();
      expect(worker.totals.facts).toBeGreaterThan(0);
      expect(live.length).toBeGreaterThan(50);
      // every stored trajectory read back and turned into facts again: nothing changes
      const rebuilt = await rebuildFacts(db, region, { sinceS: startS - 3600, untilS: startS + 7200 });
      expect(rebuilt.facts).toBe(live.length);
      expect(await dumpFacts()).toEqual(live);
    } finally {
      await worker.stop();
      await db.close();
    }
  }, 120_000);
});
