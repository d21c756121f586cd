import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  METRIC_NAMES,
  metricSourceFor,
  migrations,
  parseMetricRequest,
  queryMetrics,
  rebuildRollups,
  storeFacts,
  type Fact,
  type IntersectionCatalog,
  type MetricSource,
} from '../../src/analytics/index.js';
import { splitByMonths, wholeMonths } from '../../src/analytics/metrics/metric-source.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { openTestPostgres, testDatabaseUrl } from '../helpers/context.js';
import { createRng } from '../../src/sim/prng.js';

// Rollups (15-minute, hour, month) against a direct GROUP BY over the facts, on seeded random facts
// stored in several transactions, with replaced and overwritten trace parts.

/** Seeded uniform numbers in [0, 1) (mulberry32, the simulator's generator). */
const mulberry32 = (seed: number): (() => number) => createRng(seed).next;

const INTERSECTIONS = ['39.00001_-76.00001', '39.00002_-76.00002', '39.00003_-76.00003'];
/** A catalog that knows the three intersections (queries see only the served region's). */
const CATALOG = {
  list: INTERSECTIONS.map((key) => ({ key })),
  byKey: new Map(INTERSECTIONS.map((key) => [key, { key }])),
  byNode: new Map(),
  movementById: new Map(),
  mapVersion: '20261101',
} as unknown as IntersectionCatalog;
const FIRST_DAY_MS = Date.UTC(2026, 9, 27); // 2026-10-27 … 2026-12-04: October's end, all November, December's start

/** Values on a 1/8 grid: float4-exact, so float8 sums do not depend on the summation order. */
const q8 = (x: number): number => Math.round(x * 8) / 8;

function randomFact(rnd: () => number, traceId: string, part: number, ix: number): Fact {
  const mv = Math.floor(rnd() * 4);
  const dayMs = FIRST_DAY_MS + Math.floor(rnd() * 39) * 86_400_000;
  const d = new Date(dayMs);
  const free = q8(10 + rnd() * 20);
  const delay = rnd() < 0.3 ? 0 : q8(rnd() < 0.15 ? 180 + rnd() * 100 : rnd() * 90);
  const stopped = delay > 15 || rnd() < 0.1;
  return {
    traceId,
    part,
    intersectionKey: INTERSECTIONS[ix],
    occurrence: 0,
    intersectionId: 1000 + ix,
    movementId: ix * 10 + mv,
    inEdge: ix * 10 + (mv % 2),
    outEdge: ix * 10 + 5 + mv,
    entryS: dayMs / 1000,
    exitS: dayMs / 1000 + free + delay,
    localDay: d.toISOString().slice(0, 10),
    localMinute: Math.floor(rnd() * 1440),
    localDow: ((d.getUTCDay() + 6) % 7) + 1,
    zoneLengthM: 200,
    travelTimeS: free + delay,
    freeFlowS: free,
    controlDelayS: delay,
    stopped,
    stopDurationS: stopped ? delay / 2 : 0,
    approachSpeedKph: rnd() < 0.15 ? null : q8(5 + rnd() * 55),
    zoneStart: [39, -76],
    zoneEnd: [39, -76],
  };
}

/** Facts of one trace part: 0–3 crossings of distinct intersections. */
function randomPart(rnd: () => number, traceId: string, part: number): Fact[] {
  const n = Math.floor(rnd() * 4);
  const ixs = [0, 1, 2].sort(() => rnd() - 0.5).slice(0, n);
  return ixs.map((ix) => randomFact(rnd, traceId, part, ix));
}

const RANGE_SETS: Array<Array<{ startDate: string; endDate: string }>> = [
  [{ startDate: '2026-11-01', endDate: '2026-11-30' }],
  [{ startDate: '2026-10-27', endDate: '2026-12-04' }],
  [
    { startDate: '2026-10-30', endDate: '2026-11-15' },
    { startDate: '2026-11-16', endDate: '2026-12-01' },
  ],
  [{ startDate: '2026-11-03', endDate: '2026-11-20' }],
];

const HOURLY_RANGES = [
  { name: 'night', startTime: '20:00', endTime: '06:00' },
  { name: 'am', startTime: '06:00', endTime: '10:00' },
  { name: 'day', startTime: '10:00', endTime: '20:00' },
];
const QUARTER_RANGES = [
  { name: 'a', startTime: '00:00', endTime: '07:15' },
  { name: 'b', startTime: '07:15', endTime: '16:45' },
  { name: 'c', startTime: '16:45', endTime: '24:00' },
];

interface Case {
  dims: Array<Record<string, unknown>>;
  filters?: Array<Record<string, unknown>>;
}
const CASES: Case[] = [
  { dims: [] },
  { dims: [{ name: 'intersectionId' }] },
  { dims: [{ name: 'movementId' }] },
  { dims: [{ name: 'intersectionId' }, { name: 'hourOfDay' }] },
  {
    dims: [{ name: 'movementId' }, { name: '15MinBin' }],
    filters: [{ name: 'intersectionId', operator: 'EQUALS', expressions: [INTERSECTIONS[1]] }],
  },
  { dims: [{ name: 'day' }] },
  { dims: [{ name: 'week' }, { name: 'wkPart' }] },
  { dims: [{ name: 'month' }, { name: 'dayOfWeek' }] },
  { dims: [{ name: 'quarter' }, { name: '30MinBin' }] },
  { dims: [{ name: 'customTimeRange', ranges: HOURLY_RANGES }, { name: 'intersectionId' }] },
  { dims: [{ name: 'customTimeRange', ranges: QUARTER_RANGES }] },
  {
    dims: [{ name: 'hourOfDay' }],
    filters: [
      { name: 'dayOfWeek', operator: 'LESS_THAN_OR_EQUAL', expressions: ['5'] },
      { name: 'hourOfDay', operator: 'GREATER_THAN', expressions: ['6'] },
    ],
  },
  {
    dims: [{ name: 'wkPart' }],
    filters: [{ name: '15MinBin', operator: 'GREATER_THAN_OR_EQUAL', expressions: ['07:30'] }],
  },
  { dims: [{ name: 'month' }], filters: [{ name: 'day', operator: 'LESS_THAN', expressions: ['2026-11-20'] }] },
  {
    dims: [{ name: 'intersectionId' }, { name: 'movementId' }],
    filters: [{ name: 'movementId', operator: 'IN_LIST', expressions: ['0', '11', '23'], not: true }],
  },
];

const pgUrl = testDatabaseUrl();

for (const backend of ['pglite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && !pgUrl && process.env.CI !== 'true')(`rollups on ${backend}`, () => {
    let db: Db;
    let drop: (() => Promise<void>) | undefined;
    const parts = new Map<string, Fact[]>();

    beforeAll(async () => {
      if (backend === 'pglite') db = await openPglite();
      else {
        const pg = (await openTestPostgres())!;
        db = pg.db;
        drop = pg.drop;
      }
      await runMigrations(db, migrations);
      const rnd = mulberry32(20261121);
      // 300 trace parts in three transactions
      for (let batch = 0; batch < 3; batch++) {
        const facts: Fact[] = [];
        for (let t = 0; t < 100; t++) {
          const id = `t${batch * 100 + t}`;
          const f = randomPart(rnd, id, t % 2);
          parts.set(`${id}/${t % 2}`, f);
          facts.push(...f);
        }
        await storeFacts(db, facts, { mapVersion: '20261101' });
      }
      // 40 parts replaced by new random crossings (some by none)
      const replaced = [...parts.keys()].filter(() => rnd() < 0.15).slice(0, 40);
      const fresh: Fact[] = [];
      for (const k of replaced) {
        const [traceId, part] = k.split('/');
        const f = randomPart(rnd, traceId, Number(part));
        parts.set(k, f);
        fresh.push(...f);
      }
      await storeFacts(db, fresh, {
        mapVersion: '20261101',
        replace: replaced.map((k) => ({ traceId: k.split('/')[0], part: Number(k.split('/')[1]) })),
      });
      // a fact overwritten in place (same key, its part not in `replace`): moved to another day and bin
      const victim = [...parts.values()].find((f) => f.length > 0)![0];
      const moved: Fact = {
        ...victim,
        localDay: '2026-11-29',
        localMinute: 1439,
        localDow: 7,
        controlDelayS: 250,
        travelTimeS: victim.freeFlowS + 250,
        stopped: true,
      };
      await storeFacts(db, [moved], { mapVersion: '20261101', replace: [] });
      parts.set(
        `${victim.traceId}/${victim.part}`,
        parts.get(`${victim.traceId}/${victim.part}`)!.map((f) => (f === victim ? moved : f)),
      );
    }, 120_000);
    afterAll(async () => {
      if (drop) await drop();
      else await db?.close();
    });

    it('keeps the stored facts equal to the last version of every trace part', async () => {
      const expected = [...parts.values()].reduce((n, f) => n + f.length, 0);
      const r = await db.query<{ n: number; v: number }>(
        'SELECT count(*)::int AS n, (SELECT sum(vehicle_count)::int FROM analytics_rollup_15m) AS v FROM analytics_fact',
      );
      expect(r.rows[0]).toEqual({ n: expected, v: expected });
    });

    for (const [ci, c] of CASES.entries()) {
      it(`agrees with the facts for every metric: case ${ci} (${c.dims.map((d) => d.name).join(' × ') || 'no dimension'})`, async () => {
        const withMovement = c.dims.some((d) => d.name === 'movementId');
        const metrics = METRIC_NAMES.filter((m) => m !== 'turnPct' || withMovement).map((name) => ({ name }));
        for (const dateRanges of RANGE_SETS) {
          for (const units of ['imperial', 'metric']) {
            const req = parseMetricRequest({
              dateRanges,
              dimensions: c.dims,
              metrics,
              dimensionFilters: c.filters,
              metadata: [{ key: 'units', value: units }],
              noPaging: true,
            });
            const truth = (await queryMetrics(db, CATALOG, req, { source: 'facts' })).rows;
            expect(truth.length).toBeGreaterThan(0);
            const best = metricSourceFor(req);
            const sources: MetricSource[] = ['rollup15m'];
            if (best !== 'rollup15m') sources.push('rollupHour');
            if (best === 'rollupMonth') sources.push('rollupMonth');
            for (const source of sources) {
              expect(
                (await queryMetrics(db, CATALOG, req, { source })).rows,
                `${source} ${JSON.stringify(dateRanges)} ${units}`,
              ).toEqual(truth);
            }
            expect((await queryMetrics(db, CATALOG, req)).rows).toEqual(truth);
          }
        }
      });
    }

    it('maintains at insert time exactly what a full rebuild from the facts gives (after the comparisons, which read the maintained rollups)', async () => {
      const snapshot = async () => {
        const out: unknown[] = [];
        for (const t of ['analytics_rollup_15m', 'analytics_rollup_hour', 'analytics_rollup_month']) {
          out.push(
            (await db.query(`SELECT * FROM ${t} ORDER BY 1, 2, 3, 4, 5`)).rows.map((r) => JSON.stringify(r)).sort(),
          );
        }
        return out;
      };
      const incremental = await snapshot();
      await rebuildRollups(db);
      expect(await snapshot()).toEqual(incremental);
    });

    it('replaces a trace part in the rollups without double counting (runs last: it adds facts)', async () => {
      const key = '39.00009_-76.00009';
      const base: Fact = {
        ...randomFact(mulberry32(7), 'replace-me', 0, 0),
        intersectionKey: key,
        localDay: '2026-11-10',
        localMinute: 8 * 60 + 5,
        localDow: 2,
        controlDelayS: 40,
        travelTimeS: 60,
        stopped: true,
      };
      const rollupRows = async () =>
        (
          await db.query<{ t: string; day: string; m: number; n: number; dmax: number }>(
            `SELECT 'q' AS t, to_char(local_day, 'YYYY-MM-DD') AS day, local_minute::int AS m, vehicle_count AS n, delay_max_s::float8 AS dmax FROM analytics_rollup_15m WHERE intersection_key = $1
         UNION ALL SELECT 'h', to_char(local_day, 'YYYY-MM-DD'), local_minute::int, vehicle_count, delay_max_s::float8 FROM analytics_rollup_hour WHERE intersection_key = $1
         UNION ALL SELECT 'm', to_char(local_day, 'YYYY-MM-DD'), local_minute::int, vehicle_count, delay_max_s::float8 FROM analytics_rollup_month WHERE intersection_key = $1
         ORDER BY 1, 2, 3`,
            [key],
          )
        ).rows;
      const second: Fact = {
        ...base,
        occurrence: 1,
        localMinute: 8 * 60 + 10,
        controlDelayS: 10,
        travelTimeS: 30,
        stopped: false,
      };
      await storeFacts(db, [base, second]);
      await storeFacts(db, [base, second]); // again: idempotent
      expect(await rollupRows()).toEqual([
        { t: 'h', day: '2026-11-10', m: 480, n: 2, dmax: 40 },
        { t: 'm', day: '2026-11-01', m: 480, n: 2, dmax: 40 },
        { t: 'q', day: '2026-11-10', m: 480, n: 2, dmax: 40 },
      ]);
      // the part is re-matched: the 40 s crossing is gone (the maximum falls back to 10 s), the other moved to 09:20
      await storeFacts(db, [{ ...second, occurrence: 0, localMinute: 9 * 60 + 20 }], {
        replace: [{ traceId: 'replace-me', part: 0 }],
      });
      expect(await rollupRows()).toEqual([
        { t: 'h', day: '2026-11-10', m: 540, n: 1, dmax: 10 },
        { t: 'm', day: '2026-11-01', m: 540, n: 1, dmax: 10 },
        { t: 'q', day: '2026-11-10', m: 555, n: 1, dmax: 10 },
      ]);
      // the part no longer crosses anything
      await storeFacts(db, [], { replace: [{ traceId: 'replace-me', part: 0 }] });
      expect(await rollupRows()).toEqual([]);
    });

    it('routes requests to the coarsest exact rollup', () => {
      const nov = RANGE_SETS[0];
      const src = (body: Record<string, unknown>) =>
        metricSourceFor(parseMetricRequest({ dateRanges: nov, metrics: [{ name: 'totalVehicleCount' }], ...body }));
      expect(src({ dimensions: [{ name: 'intersectionId' }, { name: 'hourOfDay' }] })).toBe('rollupMonth');
      expect(src({ dimensions: [{ name: 'day' }] })).toBe('rollupHour');
      expect(src({ dimensions: [{ name: 'hourOfDay' }], dateRanges: RANGE_SETS[3] })).toBe('rollupHour');
      expect(src({ dimensions: [{ name: '15MinBin' }] })).toBe('rollup15m');
      expect(src({ dimensions: [{ name: 'customTimeRange', ranges: QUARTER_RANGES }] })).toBe('rollup15m');
      expect(src({ dimensions: [{ name: 'customTimeRange', ranges: HOURLY_RANGES }] })).toBe('rollupMonth');
      expect(src({ dimensions: [{ name: 'movementId' }], metrics: [{ name: 'turnPct' }] })).toBe('rollup15m');
    });
  });
}

describe('wholeMonths', () => {
  it('lists the months every day of which the ranges cover (ranges merged when adjacent)', () => {
    expect(wholeMonths([{ startDate: '2026-11-01', endDate: '2026-11-30' }])).toEqual(['2026-11-01']);
    expect(wholeMonths([{ startDate: '2026-11-02', endDate: '2026-12-31' }])).toEqual(['2026-12-01']);
    expect(
      wholeMonths([
        { startDate: '2026-01-15', endDate: '2026-03-31' },
        { startDate: '2026-01-01', endDate: '2026-01-14' },
      ]),
    ).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    expect(wholeMonths([{ startDate: '2024-02-01', endDate: '2024-02-28' }])).toEqual([]);
    expect(wholeMonths([{ startDate: '2024-02-01', endDate: '2024-02-29' }])).toEqual(['2024-02-01']);
    expect(
      wholeMonths([
        { startDate: '2026-11-01', endDate: '2026-11-10' },
        { startDate: '2026-11-12', endDate: '2026-11-30' },
      ]),
    ).toEqual([]);
  });

  it('leaves the other days as disjoint ranges', () => {
    expect(splitByMonths([{ startDate: '2026-10-27', endDate: '2026-12-04' }])).toEqual({
      months: ['2026-11-01'],
      rest: [
        { startDate: '2026-10-27', endDate: '2026-10-31' },
        { startDate: '2026-12-01', endDate: '2026-12-04' },
      ],
    });
    expect(
      splitByMonths([
        { startDate: '2026-12-01', endDate: '2027-01-31' },
        { startDate: '2027-03-05', endDate: '2027-03-05' },
      ]),
    ).toEqual({
      months: ['2026-12-01', '2027-01-01'],
      rest: [{ startDate: '2027-03-05', endDate: '2027-03-05' }],
    });
    expect(
      splitByMonths([
        { startDate: '2026-11-03', endDate: '2026-11-20' },
        { startDate: '2026-11-10', endDate: '2026-11-25' },
      ]),
    ).toEqual({
      months: [],
      rest: [{ startDate: '2026-11-03', endDate: '2026-11-25' }],
    });
  });
});
