import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import type { Db } from '../store/db.js';
import { openProbeTestDb } from '../../test/probes/db.js';
import { openPglite, runMigrations } from '../store/index.js';
import { migrations } from './migrations.js';
import { planGraph } from '../../test/probes/plan-graph.js';
import { readTrajectories } from './traversal-read.js';
import { asStored, replaceTraversals } from './traversal-store.js';
import type { EdgeTraversal, Trajectory } from './trajectory.js';
import { BINS_PER_WEEK, SpeedFeeds } from '../traffic/feeds.js';
import { learnedBinKey, loadLearnedBins, loadLearnedProfiles } from '../traffic/learned-speeds.js';

// a straight street of 6 edges (both directions: 12 edge ids)
const plan = planGraph({ a: [0, 0], b: [100, 0], c: [200, 0], d: [300, 0], e: [400, 0], f: [500, 0], g: [600, 0] }, [
  { path: 'abcdefg' },
]);
const g = plan.graph;
const CTX = { mapVersion: 'm1', timeZone: 'UTC' };
const T0 = 1_767_600_000;

function trav(edge: number, enterS: number, exitS: number, covered = 1): EdgeTraversal {
  return {
    edge,
    enterS,
    exitS,
    coveredFraction: covered,
    pings: [{ index: 0, tS: enterS, lat: 0, lon: 0, edge, offsetM: 1 }],
  };
}

type Row = Record<string, unknown>;

/** The plain way: delete every stored row of the replaced parts, insert the new ones. */
async function replaceByDeleteAndInsert(
  db: Db,
  trajectories: Trajectory[],
  fromPart: Map<string, number>,
): Promise<void> {
  for (const [trace, from] of fromPart)
    await db.query('DELETE FROM probe_traversals WHERE trace_id = $1 AND part >= $2', [trace, from]);
  for (const t of trajectories) {
    for (const [seq, x] of t.traversals.entries()) {
      const durationS = x.exitS - x.enterS;
      const kph =
        x.coveredFraction >= 0.5 && durationS >= 1
          ? ((x.coveredFraction * g.edgeLengthM[x.edge]) / durationS) * 3.6
          : null;
      await db.query(
        `INSERT INTO probe_traversals (map_version, trace_id, part, seq, edge_id, enter_s, exit_s, covered, bin_of_week, speed_kph, pings)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)`,
        [
          'm1',
          t.traceId,
          t.part,
          seq,
          x.edge,
          x.enterS,
          x.exitS,
          x.coveredFraction,
          Math.floor((((((x.enterS + x.exitS) / 2 - 1_767_571_200) % 604800) + 604800) % 604800) / 900),
          kph,
          JSON.stringify(
            x.pings.map((p) => ({ index: p.index, tS: p.tS, lat: p.lat, lon: p.lon, offsetM: p.offsetM })),
          ),
        ],
      );
    }
  }
}
/** The learned bins as stored, and as a plain aggregate over every stored traversal with a speed. */
async function learnedBins(db: Db): Promise<{ stored: Row[]; fromScratch: Row[] }> {
  const stored = (
    await db.query<Row>(`SELECT edge_id, bin_of_week, samples, sum_length_mm, sum_duration_ms FROM learned_speed_bins
    WHERE map_version = 'm1' ORDER BY edge_id, bin_of_week`)
  ).rows;
  const fromScratch = (
    await db.query<Row>(`SELECT edge_id, bin_of_week, count(*)::int AS samples,
      sum(round(speed_kph::float8 / 3.6 * (exit_s - enter_s) * 1000))::bigint AS sum_length_mm,
      sum(round((exit_s - enter_s) * 1000))::bigint AS sum_duration_ms
    FROM probe_traversals WHERE map_version = 'm1' AND speed_kph IS NOT NULL GROUP BY edge_id, bin_of_week ORDER BY edge_id, bin_of_week`)
  ).rows;
  return { stored, fromScratch };
}
async function table(db: Db): Promise<Row[]> {
  return (
    await db.query<Row>(`SELECT trace_id, part, seq, map_version, edge_id, enter_s, exit_s, covered, bin_of_week, speed_kph, pings::text AS pings
    FROM probe_traversals ORDER BY trace_id, part, seq`)
  ).rows;
}

describe('replaceTraversals', () => {
  let db: Db;
  let ref: Db;
  beforeAll(async () => {
    db = await openProbeTestDb();
    ref = await openProbeTestDb();
  });
  afterAll(async () => {
    await db.close();
    await ref.close();
  });

  it('rewrites only rows that differ and reports exactly the edges whose traversals changed', async () => {
    const first: Trajectory[] = [
      { traceId: 'A', part: 0, traversals: [trav(0, T0, T0 + 10), trav(1, T0 + 10, T0 + 20)] },
      { traceId: 'A', part: 1, traversals: [trav(2, T0 + 100, T0 + 110), trav(3, T0 + 110, T0 + 120, 0.4)] },
      { traceId: 'B', part: 0, traversals: [trav(4, T0, T0 + 9), trav(5, T0 + 9, T0 + 18), trav(6, T0 + 18, T0 + 30)] },
    ];
    const r1 = await replaceTraversals(db, g, CTX, ['A', 'B'], first);
    expect([...r1.changed].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // A grows: part 1 re-matched from part 1 on (its last traversal now longer, one more edge);
    // B re-matched whole with its last edge different and one traversal fewer
    const second: Trajectory[] = [
      {
        traceId: 'A',
        part: 1,
        traversals: [trav(2, T0 + 100, T0 + 110), trav(3, T0 + 110, T0 + 125), trav(4, T0 + 125, T0 + 131, 0.3)],
      },
      { traceId: 'B', part: 0, traversals: [trav(4, T0, T0 + 9), trav(7, T0 + 9, T0 + 18)] },
    ];
    const r2 = await replaceTraversals(
      db,
      g,
      CTX,
      ['A', 'B'],
      second,
      new Map([
        ['A', 1],
        ['B', 0],
      ]),
    );
    // unchanged: A/1 seq 0 (edge 2), B seq 0 (edge 4); changed: edge 3 (longer), 4 (new on A),
    // 5 (B seq 1 was edge 5, now 7), 7, 6 (B seq 2 removed)
    expect([...r2.changed].sort((x, y) => x - y)).toEqual([3, 4, 5, 6, 7]);
    expect([...r2.edges].sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7]);
    const rows = await table(db);
    expect(rows.map((r) => `${r.trace_id}/${r.part}/${r.seq}:${r.edge_id}`)).toEqual([
      'A/0/0:0',
      'A/0/1:1',
      'A/1/0:2',
      'A/1/1:3',
      'A/1/2:4',
      'B/0/0:4',
      'B/0/1:7',
    ]);
    expect(rows[3].exit_s).toBe(T0 + 125);
  });

  it('does not send rows the caller knows to be stored', async () => {
    await db.exec('DELETE FROM probe_traversals');
    const traj: Trajectory[] = [
      { traceId: 'K', part: 0, traversals: [trav(0, T0, T0 + 10), trav(1, T0 + 10, T0 + 20)] },
    ];
    const r1 = await replaceTraversals(db, g, CTX, ['K'], traj);
    const sent: string[] = [];
    const spy = {
      query: (sql: string, params?: unknown[]) => {
        if (sql.includes('jsonb_to_recordset')) sent.push(String(params?.[1]));
        return db.query(sql, params);
      },
    } as unknown as Db;
    // the same content again: nothing to send; one traversal longer: only that row
    const r2 = await replaceTraversals(spy, g, CTX, ['K'], traj, undefined, r1.rows);
    expect(sent).toEqual([]);
    expect(r2.changed.size).toBe(0);
    const grown: Trajectory[] = [
      { traceId: 'K', part: 0, traversals: [trav(0, T0, T0 + 10), trav(1, T0 + 10, T0 + 25)] },
    ];
    const r3 = await replaceTraversals(spy, g, CTX, ['K'], grown, undefined, r2.rows);
    expect(sent.length).toBe(1);
    expect((JSON.parse(sent[0]) as Array<{ seq: number }>).map((x) => x.seq)).toEqual([1]);
    expect([...r3.changed]).toEqual([1]);
    expect((await table(db)).map((r) => r.exit_s)).toEqual([T0 + 10, T0 + 25]);
  });

  it('property: asStored gives exactly what reading the stored trajectory back gives', async () => {
    const pingArb = fc.record({
      offsetM: fc.double({ min: -1, max: 120, noNaN: true }),
      speed: fc.option(fc.double({ min: 0, max: 130, noNaN: true }), { nil: undefined }),
      dt: fc.double({ min: 0, max: 5, noNaN: true }),
    });
    const travArb = fc.record({
      edge: fc.integer({ min: 0, max: 11 }),
      covered: fc.double({ min: 0, max: 1, noNaN: true }).map((c) => (c < 1e-30 ? 0 : c)),
      pings: fc.array(pingArb, { minLength: 1, maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(travArb, { minLength: 1, maxLength: 6 }), async (xs) => {
        await db.exec('DELETE FROM probe_traversals');
        let t = T0 + 0.125;
        let index = 0;
        const traj: Trajectory = {
          traceId: 'S',
          part: 0,
          traversals: xs.map((x) => {
            const pings = x.pings.map((p) => {
              t += p.dt;
              return {
                index: index++,
                tS: t,
                lat: 39.2 + p.dt / 1e4,
                lon: -76.6 - p.offsetM / 1e6,
                edge: x.edge,
                offsetM: p.offsetM,
                ...(p.speed !== undefined ? { speedKph: p.speed } : {}),
              };
            });
            return { edge: x.edge, enterS: pings[0].tS, exitS: t + 0.5, coveredFraction: x.covered, pings };
          }),
        };
        await replaceTraversals(db, g, CTX, ['S'], [traj]);
        const back: Trajectory[] = [];
        for await (const r of readTrajectories(db, { traceIds: ['S'] })) back.push(r);
        expect(back).toEqual([asStored(traj)]);
      }),
      { numRuns: 80 },
    );
  });

  it('property: the table equals deleting the replaced parts and inserting the new rows; learned bins follow bin by bin', async () => {
    const trajArb = (trace: string, part: number) =>
      fc
        .array(fc.tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 1, max: 3 }), fc.boolean()), {
          maxLength: 5,
        })
        .map((xs): Trajectory => {
          let t = T0 + part * 1000;
          return {
            traceId: trace,
            part,
            traversals: xs.map(([edge, d, half]) => {
              const tr = trav(edge, t, t + d * 5, half ? 0.5 : 1);
              t += d * 5;
              return tr;
            }),
          };
        });
    const roundArb = fc.record({
      from: fc.integer({ min: 0, max: 2 }),
      parts: fc.tuple(trajArb('A', 0), trajArb('A', 1), trajArb('A', 2), trajArb('B', 0)),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(roundArb, { minLength: 1, maxLength: 4 }), async (rounds) => {
        await db.exec('DELETE FROM probe_traversals');
        await db.exec('DELETE FROM learned_speed_bins');
        await ref.exec('DELETE FROM probe_traversals');
        // profiles kept current bin by bin, as the serving threads keep theirs
        const feeds = new SpeedFeeds();
        const key = (x: Row) => `${x.trace_id}/${x.part}/${x.seq}`;
        // the rows each call reports as stored, passed back as `known` (as the ingestion thread does)
        let known = new Map<string, Map<string, string>>();
        for (const { from, parts } of rounds) {
          const trajectories = [parts[0], parts[1], parts[2], parts[3]].filter(
            (t) => t.part >= from || t.traceId === 'B',
          );
          const fromPart = new Map([
            ['A', from],
            ['B', 0],
          ]);
          const before = await table(db);
          const r = await replaceTraversals(db, g, CTX, ['A', 'B'], trajectories, fromPart, known);
          known = r.rows;
          await replaceByDeleteAndInsert(ref, trajectories, fromPart);
          const after = await table(db);
          expect(after).toEqual(await table(ref));
          // every edge whose rows differ between before and after is reported as changed, and only those
          const b = new Map(before.map((x) => [key(x), JSON.stringify(x)]));
          const a = new Map(after.map((x) => [key(x), JSON.stringify(x)]));
          const expected = new Set<number>();
          for (const x of before) if (a.get(key(x)) !== JSON.stringify(x)) expected.add(Number(x.edge_id));
          for (const x of after) if (b.get(key(x)) !== JSON.stringify(x)) expected.add(Number(x.edge_id));
          expect([...r.changed].sort((p, q) => p - q)).toEqual([...expected].sort((p, q) => p - q));
          // the learned bins reported are exactly those of the rows with a speed that changed; their sums,
          // updated by what the changed rows add and take, are what a plain aggregate over the whole table
          // gives exactly, and reloading only them leaves the profiles a full reload gives
          const bins = new Set<number>();
          for (const x of before)
            if (x.speed_kph !== null && a.get(key(x)) !== JSON.stringify(x))
              bins.add(learnedBinKey(Number(x.edge_id), Number(x.bin_of_week)));
          for (const x of after)
            if (x.speed_kph !== null && b.get(key(x)) !== JSON.stringify(x))
              bins.add(learnedBinKey(Number(x.edge_id), Number(x.bin_of_week)));
          expect([...r.learnedBins].sort((p, q) => p - q)).toEqual([...bins].sort((p, q) => p - q));
          const { stored, fromScratch } = await learnedBins(db);
          expect(stored).toEqual(fromScratch);
          await loadLearnedBins(db, g, feeds, 'm1', r.learnedBins);
          const full = new SpeedFeeds();
          await loadLearnedProfiles(db, g, full, 'm1');
          const profiles = (f: SpeedFeeds) =>
            Array.from({ length: g.edgeCount }, (_, e) =>
              f.hasLearned(e) ? Array.from({ length: BINS_PER_WEEK }, (_, bin) => f.learnedSpeedKph(e, bin)) : null,
            );
          expect(profiles(feeds)).toEqual(profiles(full));
          // rows: the kept parts of A as before, then exactly the new rows
          const kept = before.filter((x) => x.trace_id === 'A' && Number(x.part) < from);
          const written = trajectories.flatMap((t) =>
            t.traversals.map((x, seq) => `${t.traceId}/${t.part}/${seq}:${x.edge}:${x.exitS}`),
          );
          expect(after.map((x) => `${key(x)}:${x.edge_id}:${x.exit_s}`).sort()).toEqual(
            [...kept.map((x) => `${key(x)}:${x.edge_id}:${x.exit_s}`), ...written].sort(),
          );
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('migration 310', () => {
  it('rebuilds the learned bins as exact sums of the stored traversals', async () => {
    const db = await openPglite();
    try {
      await runMigrations(
        db,
        migrations.filter((m) => m.version <= 303),
      );
      await db.exec(`INSERT INTO probe_traversals (trace_id, part, seq, map_version, edge_id, enter_s, exit_s, covered, bin_of_week, speed_kph)
        VALUES ('M', 0, 0, 'm1', 0, ${T0}, ${T0 + 10}, 1, 4, 36.5), ('M', 0, 1, 'm1', 1, ${T0 + 10}, ${T0 + 20.25}, 1, 4, 12.25),
               ('M', 0, 2, 'm1', 2, ${T0 + 20.25}, ${T0 + 25}, 0.3, 4, NULL)`);
      // bins left behind by a process that stopped before it recomputed them
      await db.exec(`DELETE FROM learned_speed_bins; INSERT INTO learned_speed_bins VALUES ('m1', 5, 1, 3, 1, 1)`);
      await runMigrations(db, migrations);
      const { stored, fromScratch } = await learnedBins(db);
      expect(stored).toEqual(fromScratch);
      expect(stored.map((x) => [x.edge_id, x.samples, x.sum_length_mm, x.sum_duration_ms])).toEqual([
        [0, 1, 101389, 10000],
        [1, 1, 34878, 10250],
      ]);
    } finally {
      await db.close();
    }
  });
});
