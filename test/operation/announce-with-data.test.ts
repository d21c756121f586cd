/**
 * Changes are announced with the data: a processing round that fails part-way (its second chunk's
 * transaction fails after writing traversals and facts) leaves the first chunk committed together
 * with its `speeds` announcement, which another process's change feed applies from the commit's
 * notification alone (its periodic re-read is off); the failed chunk's traces stay pending and a
 * retry processes them. Run on PGlite and, when TEST_DATABASE_URL is set, on PostgreSQL.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/index.js';
import type { Region } from '../../src/network/region.js';
import { simulate } from '../../src/sim/simulator.js';
import type { ProbeRecord } from '../../src/probes/ingest/records.js';
import { ingestRecords } from '../../src/probes/ingest/ingest.js';
import { pendingBacklog } from '../../src/probes/ingest/pending.js';
import { openPglite, runMigrations, type Db, type Queryable } from '../../src/store/index.js';
import { ChangeFeed, latestChangeSeq } from '../../src/store/changes.js';
import { allMigrations } from '../../src/app/migrations.js';
import { IngestionWorker } from '../../src/app/ingestion/worker.js';
import { soloLeases } from '../../src/store/partition-leases.js';
import { PARTITIONS } from '../../src/probes/partition.js';
import { SpeedFeeds, BINS_PER_WEEK } from '../../src/traffic/feeds.js';
import { loadLearnedProfiles } from '../../src/traffic/learned-speeds.js';
import { changedEdges } from '../../src/app/follow-changes.js';
import { loadLearnedBins } from '../../src/traffic/learned-speeds.js';
import { openTestPostgres, withoutPostgres } from '../helpers/context.js';

/** A database whose `failOn`-th transaction fails at its change announcement (after its writes). */
function failingOnce(db: Db, failOn: number): Db {
  let n = 0;
  return {
    ...db,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const mine = ++n;
      return db.transaction((tx) =>
        fn({
          query: async (sql, params) => {
            if (mine === failOn && sql.includes('INSERT INTO change_log')) throw new Error('lost the connection');
            return tx.query(sql, params);
          },
        }),
      );
    },
  };
}

/** Every learned profile of `feeds`, as plain arrays. */
function profiles(feeds: SpeedFeeds, region: Region): Array<number[] | null> {
  return Array.from({ length: region.graph.edgeCount }, (_, e) =>
    feeds.hasLearned(e) ? Array.from({ length: BINS_PER_WEEK }, (_, bin) => feeds.learnedSpeedKph(e, bin)) : null,
  );
}

const backends: Array<[string, boolean, () => Promise<{ db: Db; drop: () => Promise<void> } | undefined>]> = [
  [
    'pglite',
    false,
    async () => {
      const db = await openPglite();
      return { db, drop: () => db.close() };
    },
  ],
  ['postgres', withoutPostgres, openTestPostgres],
];

describe.each(backends)('a round that fails part-way (%s)', (name, skip, open) => {
  const dir = mkdtempSync(join(tmpdir(), 'streetwise-announce-'));
  let region: Region;
  const records: ProbeRecord[] = [];
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    await createDemoRegion(dir);
    region = loadRegion(join(dir, 'regions', 'demo'));
    for await (const b of simulate(region, {
      startS: Date.UTC(2026, 0, 7, 12, 30) / 1000,
      durationS: 600,
      penetration: 0.3,
      tripsPerDay: 20_000,
      intervalS: 3,
      seed: 3,
      tracePrefix: 'ann',
      stopAtEnd: true,
    }))
      records.push(...b);
  }, 120_000);

  it.skipIf(skip)(
    'commits the first chunk with its announcement, which another process applies; a retry does the rest',
    async () => {
      const opened = await open();
      if (opened === undefined) throw new Error(`${name} did not open`);
      const { db, drop } = opened;
      const follower = new SpeedFeeds();
      let feed: ChangeFeed | undefined;
      try {
        await runMigrations(db, allMigrations());
        await ingestRecords(db, records, { region: region.meta.name });
        const traces = (await pendingBacklog(db, region.meta.name)).traces;
        expect(traces).toBeGreaterThan(20);
        // another process: follows the change log from now on, by notifications only
        feed = new ChangeFeed(db, await latestChangeSeq(db), { pollMs: 3_600_000 });
        feed.on('speeds', async (changes) => {
          const { learnedBins } = changedEdges(changes, region.meta.mapVersion);
          await loadLearnedBins(db, region.graph, follower, region.meta.mapVersion, learnedBins);
        });
        await feed.start();

        const session = failingOnce(db, 2);
        const worker = new IngestionWorker({
          db,
          region,
          leases: async () => soloLeases(session, PARTITIONS),
          chunkTraces: 10,
        });
        await expect(worker.drain()).rejects.toThrow('lost the connection');
        await worker.stop();
        const announced = await db.query<{ seq: number }>("SELECT seq FROM change_log WHERE topic = 'speeds'");
        expect(announced.rows).toHaveLength(1);
        const t0 = Date.now();
        await feed.catchUp(Number(announced.rows[0].seq));
        console.log(
          `the committed chunk's speeds applied by the follower from its notification (${Date.now() - t0} ms after the round failed)`,
        );
        const stored = new SpeedFeeds();
        await loadLearnedProfiles(db, region.graph, stored, region.meta.mapVersion);
        expect(stored.learnedEdgeCount).toBeGreaterThan(0);
        expect(profiles(follower, region)).toEqual(profiles(stored, region));
        // the first chunk is processed, the failed one is not
        expect((await pendingBacklog(db, region.meta.name)).traces).toBe(traces - 10);

        const retry = new IngestionWorker({
          db,
          region,
          leases: async () => soloLeases(db, PARTITIONS),
          chunkTraces: 10,
        });
        await retry.drain();
        await retry.stop();
        expect((await pendingBacklog(db, region.meta.name)).traces).toBe(0);
        await feed.catchUp(await latestChangeSeq(db));
        const all = new SpeedFeeds();
        await loadLearnedProfiles(db, region.graph, all, region.meta.mapVersion);
        expect(all.learnedEdgeCount).toBeGreaterThan(stored.learnedEdgeCount);
        expect(profiles(follower, region)).toEqual(profiles(all, region));
      } finally {
        await feed?.stop();
        await drop();
      }
    },
    180_000,
  );
});
