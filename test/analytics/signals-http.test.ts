/**
 * Signal controller logs over HTTP on the fixture's signalized intersection C: the channel/phase
 * map, a log upload (idempotent), split failures, the coordination diagram and the errors.
 * Phase 2 (movement W → E through C): green 08:00:00–08:00:30 and 08:01:30–08:02:00 local time,
 * yellow 3 s, stop bar (channel 5) occupied 08:01:28–08:02:10, advance detector (channel 9, 100 m
 * at 36 km/h: 10 s) on at 08:00:40 and 08:01:30.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogOf, storeTrajectoryFacts } from '../../src/analytics/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { buildFixture, makeTrajectory, N, nyS } from './fixture.js';

const fx = buildFixture();
const KEY = '39.29000_-76.61000';
let t: TestContext;
const catalog = catalogOf(fx.region);
const through = catalog.byKey
  .get(KEY)!
  .movements.find((m) => m.movement.inEdge === fx.edge(N.W, N.C) && m.movement.outEdge === fx.edge(N.C, N.E))!;
const CSV = [
  'Timestamp,EventCode,EventParam',
  '2026-11-16 08:00:00.0,1,2',
  '2026-11-16 08:00:30.0,8,2',
  '2026-11-16 08:00:33.0,9,2',
  '2026-11-16 08:00:40.0,82,9',
  '2026-11-16 08:00:40.5,81,9',
  '2026-11-16 08:01:28.0,82,5',
  '2026-11-16 08:01:30.0,1,2',
  '2026-11-16 08:01:30.0,82,9',
  '2026-11-16 08:01:30.5,81,9',
  '2026-11-16 08:02:00.0,8,2',
  '2026-11-16 08:02:03.0,9,2',
  '2026-11-16 08:02:10.0,81,5',
  '2026-11-16 08:03:00.0,1,2',
].join('\n');

beforeAll(async () => {
  t = await makeTestContext({ region: fx.region });
});
afterAll(async () => t?.close());

const auth = () => ({ authorization: `Bearer ${t.token}` });
const base = `/v1/signals/intersections/${KEY}`;

describe('signal logs over HTTP', () => {
  it('stores a channel/phase map naming the intersection’s movements', async () => {
    const r = await t.app.inject({
      method: 'PUT',
      url: `${base}/map`,
      headers: auth(),
      payload: {
        intersectionId: KEY,
        phases: [{ phase: 2, movements: [through.id] }],
        detectors: [
          { channel: 5, phase: 2, kind: 'stopbar' },
          { channel: 9, phase: 2, kind: 'advance', distanceM: 100, speedKph: 36 },
        ],
      },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().result.phases).toEqual([{ phase: 2, movements: [through.id] }]);
  });

  it('stores an uploaded log once', async () => {
    const up = () =>
      t.app.inject({
        method: 'POST',
        url: `${base}/events`,
        headers: { ...auth(), 'content-type': 'text/csv' },
        payload: CSV,
      });
    const first = await up();
    expect(first.statusCode).toBe(201);
    expect(first.json().result).toMatchObject({
      intersectionId: KEY,
      events: 13,
      inserted: 13,
      from: '2026-11-16T08:00:00.000-05:00',
      to: '2026-11-16T08:03:00.000-05:00',
    });
    expect((await up()).json().result.inserted).toBe(0);
  });

  it('answers the split failures of a phase and day', async () => {
    const r = await t.app.inject({
      method: 'GET',
      url: `${base}/split-failures?day=2026-11-16&phase=2`,
      headers: auth(),
    });
    expect(r.statusCode).toBe(200);
    const { cycles, splitFailures } = r.json().result;
    expect(splitFailures).toBe(1);
    expect(cycles.map((c: { gor: number; ror5: number }) => [c.gor, c.ror5])).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('answers the coordination diagram with detector arrivals in their cycles', async () => {
    const r = await t.app.inject({
      method: 'GET',
      url: `${base}/coordination-diagram?day=2026-11-16&phase=2`,
      headers: auth(),
    });
    expect(r.statusCode).toBe(200);
    const pcd = r.json().result;
    expect(pcd.cycles).toHaveLength(1); // red from 08:00:33, green 08:01:30, yellow 08:02:00–08:02:03
    expect(pcd.arrivals.map((a: { inCycleS: number; onGreen: boolean }) => [a.inCycleS, a.onGreen])).toEqual([
      [17, false],
      [67, true],
    ]);
    expect(pcd.percentOnGreen).toBe(50);
  });

  it('gives POG as arrivals on green where the log covers a crossing, else the share not stopped', async () => {
    // three vehicles through C at 10 m/s, none stopping; each reaches C's stop line at free flow
    // 39.275 s after leaving W (zone entry at 24.275 s, then 150 m): at 08:00:34.3 (red),
    // 08:01:34.3 (green), and 09:00:39.3 (after the log: did not stop, counts on green)
    const trajs = ['07:59:55', '08:00:55', '09:00:00'].map((hms, i) =>
      makeTrajectory(fx, `v${i}`, [N.W, N.C, N.E], nyS(`2026-11-16T${hms}`), [{ distanceM: 520, speedMps: 10 }]),
    );
    await t.ctx.db.transaction((tx) => storeTrajectoryFacts(tx, fx.region, trajs));
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/metrics/intersections',
      headers: auth(),
      payload: {
        dateRanges: [{ startDate: '2026-11-16', endDate: '2026-11-16' }],
        dimensions: [{ name: 'intersectionId' }],
        metrics: [{ name: 'totalVehicleCount' }, { name: 'POG' }],
        dimensionFilters: [{ name: 'intersectionId', operator: 'EQUALS', expressions: [KEY] }],
      },
    });
    expect(r.statusCode).toBe(201);
    expect(r.json().data.rows).toEqual([[KEY, '3', '66.67']]);
  });

  it('rejects a bad log line, an unknown intersection and a missing map', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: `${base}/events`,
      headers: { ...auth(), 'content-type': 'text/csv' },
      payload: '2026-11-16 08:00:00.0,1,2\n2026-11-16 08:00:01.0,one,2\n',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'ANALYTICS_INVALID_PARAMETER' });
    expect(bad.json().message).toMatch(/line 2/);
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/v1/signals/intersections/1.00000_1.00000/split-failures?day=2026-11-16&phase=2',
      headers: auth(),
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('ANALYTICS_INTERSECTION_NOT_FOUND');
    const otherKey = catalog.list.find((c) => c.key !== KEY)!.key;
    const noMap = await t.app.inject({
      method: 'GET',
      url: `/v1/signals/intersections/${otherKey}/coordination-diagram?day=2026-11-16&phase=2`,
      headers: auth(),
    });
    expect(noMap.statusCode).toBe(404);
    expect(noMap.json().code).toBe('ANALYTICS_SIGNAL_MAP_NOT_FOUND');
    const badPhase = await t.app.inject({
      method: 'GET',
      url: `${base}/split-failures?day=2026-11-16&phase=x`,
      headers: auth(),
    });
    expect(badPhase.statusCode).toBe(400);
  });
});
