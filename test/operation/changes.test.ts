/**
 * The change log other processes follow: every committed change reaches every feed exactly once,
 * in whatever order concurrent transactions commit, and `catchUp` waits for a given change.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { migrations } from '../../src/store/migrations.js';
import { ChangeFeed, announceChange, latestChangeSeq, type Change } from '../../src/store/changes.js';
import { openTestPostgres, withoutPostgres } from '../helpers/context.js';

async function suite(
  name: string,
  skip: boolean,
  open: () => Promise<{ db: Db; close: () => Promise<void> } | undefined>,
): Promise<void> {
  describe.skipIf(skip)(`change log on ${name}`, () => {
    let handle: { db: Db; close: () => Promise<void> } | undefined;
    beforeAll(async () => {
      handle = await open();
      if (handle) await runMigrations(handle.db, migrations);
    });
    afterAll(async () => {
      await handle?.close();
    });

    it('delivers each change once, in commit order per topic, from where the reader started', async () => {
      if (!handle) throw new Error(`${name} did not open`);
      const db = handle.db;
      await announceChange(db, 'speeds', 'm1', { edges: [0] }); // before the feed starts: not delivered
      const from = await latestChangeSeq(db);
      const seen: Change[] = [];
      const feed = new ChangeFeed(db, from, { pollMs: 60_000 });
      feed.on('speeds', (cs) => {
        seen.push(...cs);
      });
      await feed.start();
      const s1 = await announceChange(db, 'speeds', 'm1', { edges: [1, 2] });
      const s2 = await announceChange(db, 'incidents', 'm1');
      const s3 = await announceChange(db, 'speeds', 'm1', { edges: [3] });
      await feed.catchUp(s3);
      expect(feed.hasApplied(s2)).toBe(true);
      expect(seen.map((c) => [c.seq, c.payload.edges])).toEqual([
        [s1, [1, 2]],
        [s3, [3]],
      ]);
      feed.poke();
      await feed.catchUp(s3);
      expect(seen).toHaveLength(2);
      await feed.stop();
    });

    it('holds notified changes for batchMs and applies them in one batch; catchUp reads at once', async () => {
      if (!handle) throw new Error(`${name} did not open`);
      const db = handle.db;
      const from = await latestChangeSeq(db);
      const calls: number[][] = [];
      const feed = new ChangeFeed(db, from, { pollMs: 60_000, batchMs: 60_000 });
      feed.on('speeds', (cs) => {
        calls.push(cs.map((c) => c.seq));
      });
      await feed.start();
      await feed.catchUp(from); // the first read has ended: the next notified read waits a minute
      const s1 = await announceChange(db, 'speeds', 'm1', { edges: [1] });
      const s2 = await announceChange(db, 'speeds', 'm1', { edges: [2] });
      const s3 = await announceChange(db, 'speeds', 'm1', { edges: [3] });
      await new Promise((r) => setTimeout(r, 300)); // their notifications arrive meanwhile
      expect(feed.hasApplied(s1)).toBe(false);
      await feed.catchUp(s3); // would wait the minute (past the test's timeout) if it were held too
      expect(calls).toEqual([[s1, s2, s3]]);
      await feed.stop();
    });

    it('applies a change whose transaction commits after a later-numbered one (no change skipped)', async () => {
      if (!handle) throw new Error(`${name} did not open`);
      const db = handle.db;
      const from = await latestChangeSeq(db);
      const seen: number[] = [];
      const feed = new ChangeFeed(db, from, { pollMs: 60_000 });
      feed.on('t', (cs) => {
        seen.push(...cs.map((c) => c.seq));
      });
      await feed.start();
      let early = 0;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      // takes its number first, commits last
      const slow = db.transaction(async (tx) => {
        early = await announceChange(tx, 't', '', { which: 'early' });
        await gate;
      });
      if (db.kind === 'postgres') {
        while (early === 0) await new Promise((r) => setTimeout(r, 5));
        const late = await announceChange(db, 't', '', { which: 'late' });
        await feed.catchUp(late);
        expect(seen).toEqual([late]);
        expect(feed.hasApplied(early)).toBe(false);
        release();
        await slow;
        await feed.catchUp(early);
        expect(seen).toEqual([late, early]);
      } else {
        // PGlite has one connection: the later change cannot be written before the first commits
        release();
        await slow;
        await feed.catchUp(early);
        expect(seen).toEqual([early]);
      }
      await feed.stop();
    });
  });
}

await suite('PGlite', false, async () => {
  const db = await openPglite();
  return { db, close: () => db.close() };
});
await suite('PostgreSQL', withoutPostgres, async () => {
  const pg = await openTestPostgres();
  return pg ? { db: pg.db, close: pg.drop } : undefined;
});
