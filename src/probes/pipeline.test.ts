import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Readable } from 'node:stream';
import type { Db } from '../store/db.js';
import { SpeedFeeds } from '../traffic/feeds.js';
import { loadSpeedFeeds, predictedPrior } from '../traffic/learned-speeds.js';
import { openProbeTestDb } from '../../test/probes/db.js';
import { openTestPostgres } from '../../test/helpers/context.js';
import { runMigrations } from '../store/index.js';
import { migrations } from './migrations.js';
import { planGraph, toLatLon } from '../../test/probes/plan-graph.js';
import { ingestAndProcess, processTracesMarked, type ProbePipelineDeps } from './pipeline.js';
import { ingestRecords } from './ingest/ingest.js';
import { readTrajectories } from './traversal-store.js';
import type { Trajectory } from './trajectory.js';
import { MapMatcher, matchTraces, type TraceMatcher } from './match/matcher.js';

// a --100 m-- b --100 m-- c   (residential, two-way)
const plan = planGraph({ a: [0, 0], b: [100, 0], c: [200, 0] }, [{ path: 'abc' }]);
const T0 = 1_767_600_000; // Monday 2026-01-05 08:00 UTC → bin 32 of the week in UTC

/** A CSV trace at 10 m/s from x = 10 to x = 190 with a ping every 2 s. */
function csvTrace(id: string, t0: number): string {
  const rows: string[] = [];
  for (let k = 0; k <= 9; k++) {
    const [lat, lon] = toLatLon(10 + 20 * k, 0);
    rows.push(`${id},${t0 + 2 * k},${lat},${lon}`);
  }
  return `${rows.join('\n')}\n`;
}

describe('probe pipeline: ingest → match → traversals → learned and live speeds', () => {
  let db: Db;
  let deps: ProbePipelineDeps & { feeds: SpeedFeeds };
  beforeAll(async () => {
    db = await openProbeTestDb();
    deps = { db, graph: plan.graph, mapVersion: 'plan-1', timeZone: 'UTC', feeds: new SpeedFeeds(), nowS: T0 + 60 };
  });
  afterAll(async () => {
    await db.close();
  });

  it('stores traversals, learns a shrunk profile, sets live speeds, and stays idempotent on re-ingest', async () => {
    const { ingest, process } = await ingestAndProcess(deps, Readable.from([csvTrace('car-1', T0)]), { format: 'csv' });
    expect(ingest.inserted).toBe(10);
    expect(process).toMatchObject({ traces: 1, trajectories: 1, traversals: 2, unmatchedPings: 0 });

    const trajs = [];
    for await (const t of readTrajectories(db, { mapVersion: 'plan-1' })) trajs.push(t);
    expect(trajs).toHaveLength(1);
    expect(plan.names(trajs[0].traversals.map((t) => t.edge))).toEqual(['ab', 'bc']);
    expect(trajs[0].traversals[1].enterS).toBeCloseTo(T0 + 9, 3);
    expect(trajs[0].traversals[0].pings.map((p) => p.index)).toEqual([0, 1, 2, 3, 4]);

    // 90 m in 9 s = 36 km/h, one sample, shrunk toward the class prediction with k = 5.
    const ab = plan.edge('ab');
    const expected = (36 + 5 * predictedPrior(plan.graph).speedKph(ab, 32)) / 6;
    expect(deps.feeds.learnedSpeedKph(ab, 32)).toBeCloseTo(expected, 3);
    expect(deps.feeds.learnedSpeedKph(ab, 33)).toBeNaN();
    expect(deps.feeds.liveSpeed(ab)?.speedKph).toBeCloseTo(36, 2);

    const again = await ingestAndProcess(deps, Readable.from([csvTrace('car-1', T0)]), { format: 'csv' });
    expect(again.ingest.inserted).toBe(0);
    expect(again.process.traces).toBe(0);
    const n = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_traversals')).rows[0].n;
    expect(n).toBe(2);
  });

  it('accumulates samples across traces and reloads the same profile at start-up', async () => {
    // four more cars in the same bin, twice as fast (20 m/s → 72 km/h)
    const fast = [1, 2, 3, 4]
      .map((i) => {
        const rows: string[] = [];
        for (let k = 0; k <= 9; k++) {
          const [lat, lon] = toLatLon(10 + 20 * k, 0);
          rows.push(`fast-${i},${T0 + 100 * i + k},${lat},${lon}`);
        }
        return rows.join('\n');
      })
      .join('\n');
    await ingestAndProcess(deps, Readable.from([fast]), { format: 'csv' });
    const ab = plan.edge('ab');
    // Σ length / Σ duration: 90 m / 9 s once and 90 m / 4.5 s four times → 450 m / 27 s = 60 km/h
    const expected = (5 * 60 + 5 * predictedPrior(plan.graph).speedKph(ab, 32)) / 10;
    expect(deps.feeds.learnedSpeedKph(ab, 32)).toBeCloseTo(expected, 2);

    const fresh = new SpeedFeeds();
    const loaded = await loadSpeedFeeds(db, plan.graph, fresh, { mapVersion: 'plan-1', nowS: T0 + 600 });
    expect(loaded.learnedEdges).toBe(2);
    expect(fresh.learnedSpeedKph(ab, 32)).toBeCloseTo(expected, 2);
    expect(loaded.liveEdges).toBe(2);
    const stale = new SpeedFeeds();
    expect((await loadSpeedFeeds(db, plan.graph, stale, { mapVersion: 'plan-1', nowS: T0 + 7200 })).liveEdges).toBe(0);
  });

  it('re-matches only the tail after the last time gap when a trace gets later pings', async () => {
    const at = (x: number, t: number): string => {
      const [lat, lon] = toLatLon(x, 0);
      return `car-9,${t},${lat},${lon}`;
    };
    const trip1 = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18].map((k) => at(10 + 10 * k, T0 + 1000 + k)).join('\n');
    await ingestAndProcess(deps, Readable.from([trip1]), { format: 'csv' });
    // 10 minutes later the same vehicle drives back: a new part, and only it is matched
    const trip2 = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18].map((k) => at(190 - 10 * k, T0 + 1600 + k)).join('\n');
    const second = await ingestAndProcess(deps, Readable.from([trip2]), { format: 'csv' });
    expect(second.process.trajectories).toBe(1);
    expect(second.process.traversals).toBe(2);
    const parts = [];
    for await (const t of readTrajectories(db, { sinceS: T0 + 900 })) if (t.traceId === 'car-9') parts.push(t);
    expect(parts.map((t) => [t.part, plan.names(t.traversals.map((x) => x.edge))])).toEqual([
      [0, ['ab', 'bc']],
      [1, ['cb', 'ba']],
    ]);
    expect(parts[1].traversals[0].pings[0].index).toBe(10);
    // a late ping inside the first trip has no gap before it: the whole trace is re-matched
    const late = await ingestAndProcess(deps, Readable.from([at(15, T0 + 1000.5)]), { format: 'csv' });
    expect(late.process.traversals).toBe(4);
    const again = [];
    for await (const t of readTrajectories(db, { sinceS: T0 + 900 })) if (t.traceId === 'car-9') again.push(t.part);
    expect(again).toEqual([0, 1]);
  });

  it('reports the same without in-memory feeds (the ingestion thread), counting live edges in the database', async () => {
    const other = await openProbeTestDb();
    try {
      const bare: ProbePipelineDeps = {
        db: other,
        graph: plan.graph,
        mapVersion: 'plan-1',
        timeZone: 'UTC',
        nowS: T0 + 60,
      };
      const withFeeds = { ...bare, feeds: new SpeedFeeds() };
      const body = (): Readable => Readable.from([csvTrace('car-20', T0), csvTrace('car-21', T0 + 30)]);
      const a = await ingestAndProcess(withFeeds, body(), { format: 'csv' });
      await other.exec('DELETE FROM probe_traversals; DELETE FROM probe_pings; DELETE FROM learned_speed_bins');
      const b = await ingestAndProcess(bare, body(), { format: 'csv' });
      expect(b.process).toEqual(a.process);
      expect(a.process.liveEdges).toBe(2);
      // a live window that has moved on: nothing live, counted the same way
      await other.exec('DELETE FROM probe_traversals; DELETE FROM probe_pings; DELETE FROM learned_speed_bins');
      const c = await ingestAndProcess({ ...bare, nowS: T0 + 7200 }, body(), { format: 'csv' });
      expect(c.process.liveEdges).toBe(0);
    } finally {
      await other.close();
    }
  });

  // PostgreSQL: the next chunk's read and the previous chunk's write use connections of their own
  // (the embedded database runs one statement at a time, so there the stages only interleave)
  it("sends a chunk's write while the next chunk is matched (matching yields between traces; PostgreSQL)", async () => {
    const pg = await openTestPostgres();
    if (pg === undefined) return;
    const other = pg.db;
    await runMigrations(other, migrations);
    try {
      // 240 traces: a first chunk of 200, then 40 matched while the first chunk's write goes on
      const ids = Array.from({ length: 240 }, (_, i) => `y${String(i).padStart(3, '0')}`);
      await ingestRecords(
        other,
        ids.flatMap((id, i) =>
          [10, 90].map((x, k) => {
            const [lat, lon] = toLatLon(x, 0);
            return { traceId: id, ping: { tS: T0 + i + 8 * k, lat, lon } };
          }),
        ),
        {},
      );
      const events: string[] = [];
      // each statement of a write answers 20 ms later, as a busy database over a network connection would
      const spy = {
        ...other,
        transaction: <T>(fn: (tx: Db) => Promise<T>) =>
          other.transaction((tx) =>
            fn({
              query: async (sql: string, params?: unknown[]) => {
                await new Promise((r) => setTimeout(r, 20));
                if (sql.includes('jsonb_to_recordset')) events.push('write');
                return tx.query(sql, params);
              },
            } as Db),
          ),
      } as Db;
      let traces = 0;
      const pace = (): undefined => {
        events.push(`match ${traces}`);
        // the second chunk's traces take 8 ms each to match
        if (traces++ >= 200) for (const t0 = performance.now(); performance.now() - t0 < 8; );
        return undefined;
      };
      const r = await processTracesMarked(
        { db: spy, graph: plan.graph, mapVersion: 'plan-1', timeZone: 'UTC', nowS: T0 + 60, pace },
        ids,
      );
      expect(r.report.traces).toBe(240);
      // the first chunk's traversals were written before the last trace of the second chunk was matched
      expect(events.indexOf('write')).toBeGreaterThan(events.indexOf('match 199'));
      expect(events.indexOf('write')).toBeLessThan(events.indexOf('match 239'));
    } finally {
      await pg.drop();
    }
  });

  it("derives from each chunk's trajectories in order, a chunk behind at most, and ends only when the last is done", async () => {
    const other = await openProbeTestDb();
    try {
      const ids = Array.from({ length: 7 }, (_, i) => `z${i}`);
      await ingestRecords(
        other,
        ids.flatMap((id, i) =>
          [10, 90].map((x, k) => {
            const [lat, lon] = toLatLon(x, 0);
            return { traceId: id, ping: { tS: T0 + i + 8 * k, lat, lon } };
          }),
        ),
        {},
      );
      const events: string[] = [];
      const spy = {
        ...other,
        transaction: <T>(fn: (tx: Db) => Promise<T>) =>
          other.transaction(async (tx) => {
            const r = await fn(tx as Db);
            events.push('traversals');
            return r;
          }),
      } as Db;
      const onStored = async (trajectories: readonly Trajectory[]): Promise<void> => {
        const chunk = trajectories.map((t) => t.traceId).join(' ');
        events.push(`derive ${chunk}`);
        // slower than writing the traversals
        await new Promise((r) => setTimeout(r, 30));
        events.push(`derived ${chunk}`);
      };
      const r = await processTracesMarked(
        { db: spy, graph: plan.graph, mapVersion: 'plan-1', timeZone: 'UTC', nowS: T0 + 60, onStored, traceChunk: 2 },
        ids,
      );
      events.push('processed');
      expect(r.report.traces).toBe(7);
      const derived = events.filter((e) => e.startsWith('derived'));
      expect(derived).toEqual(['derived z0 z1', 'derived z2 z3', 'derived z4 z5', 'derived z6']);
      expect(events[events.length - 1]).toBe('processed');
      // one derivation at a time, and never more than one chunk behind the traversals
      let open = 0;
      let written = 0;
      let derivedCount = 0;
      for (const e of events) {
        if (e.startsWith('derive ')) open++;
        if (e.startsWith('derived')) {
          open--;
          derivedCount++;
        }
        if (e === 'traversals') written++;
        expect(open).toBeLessThanOrEqual(1);
        expect(written - derivedCount).toBeLessThanOrEqual(2);
      }
    } finally {
      await other.close();
    }
  });

  it('matches new traces on the helper, a chunk ahead, with the same result; never with options of its own', async () => {
    const ids = Array.from({ length: 5 }, (_, i) => `h${i}`);
    const run = async (matchHelper: TraceMatcher | undefined, match?: ProbePipelineDeps['match']) => {
      const own = await openProbeTestDb();
      try {
        await ingestRecords(
          own,
          ids.flatMap((id, i) =>
            [10, 50, 90, 130, 170].map((x, k) => {
              const [lat, lon] = toLatLon(x, 0);
              return { traceId: id, ping: { tS: T0 + i + 4 * k, lat, lon } };
            }),
          ),
          {},
        );
        const r = await processTracesMarked(
          {
            db: own,
            graph: plan.graph,
            mapVersion: 'plan-1',
            timeZone: 'UTC',
            nowS: T0 + 60,
            traceChunk: 2,
            matchHelper,
            match,
          },
          ids,
        );
        const trajectories: Trajectory[] = [];
        for await (const t of readTrajectories(own, { mapVersion: 'plan-1' })) trajectories.push(t);
        return { report: r.report, trajectories };
      } finally {
        await own.close();
      }
    };
    const local = new MapMatcher(plan.graph);
    const sent: string[][] = [];
    const helper: TraceMatcher = {
      match: async (t) => {
        sent.push(t.map((x) => x.traceId));
        return matchTraces(local, t);
      },
    };
    const here = await run(undefined);
    const helped = await run(helper);
    expect(sent).toEqual([['h0', 'h1'], ['h2', 'h3'], ['h4']]);
    expect(helped).toEqual(here);
    expect(here.trajectories).toHaveLength(5);
    sent.length = 0;
    await run(helper, { searchRadiusM: 40 });
    expect(sent).toEqual([]);
  });
});
