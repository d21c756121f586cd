import { describe, expect, it } from 'vitest';
import { buildFixture, makeTrajectory, N, nyS } from '../../../test/analytics/fixture.js';
import { buildFacts } from './build-facts.js';
import { allMigrations } from '../../app/migrations.js';
import { replaceTraversals } from '../../probes/traversal-store.js';
import { openPglite, runMigrations } from '../../store/index.js';
import {
  FREE_FLOW_MIN_SAMPLES,
  freeFlowKphOf,
  observedFreeFlow,
  refreshFreeFlow,
  storedFreeFlow,
} from './free-flow.js';

// Fixture: W --400-- C --120-- E ; C signalized, every road 36 km/h with no maxspeed tag.
// A crossing W → C → E has a 214.5 m zone (150 m + 7.25 m + 7.25 m + 50 m).
const fx = buildFixture();
const t0 = nyS('2026-11-16T08:00:00');

describe('free flow from observed speeds', () => {
  // three vehicles drive through unimpeded at 12 m/s (43.2 km/h), pinging every second with speed;
  // a fourth crawls at 5 m/s and stands 20 s: its 18 km/h and 0 km/h pings are impeded
  const free = [0, 1, 2].map((i) =>
    makeTrajectory(fx, `f${i}`, [N.W, N.C, N.E], t0 + 60 * i, [{ distanceM: 520, speedMps: 12 }], { withSpeed: true }),
  );
  const queued = makeTrajectory(
    fx,
    'q',
    [N.W, N.C, N.E],
    t0,
    [{ distanceM: 390, speedMps: 5 }, { stopS: 20 }, { distanceM: 130, speedMps: 5 }],
    { withSpeed: true },
  );
  const observed = observedFreeFlow(fx.graph, [...free, queued]);
  const stopped = makeTrajectory(fx, 's', [N.W, N.C, N.E], t0 + 600, [
    { distanceM: 400, speedMps: 10 },
    { stopS: 40 },
    { distanceM: 120, speedMps: 10 },
  ]);

  it('is the median of the unimpeded pings of each edge', () => {
    expect(observed.observedKph[fx.edge(N.W, N.C)]).toBeCloseTo(43.2, 4);
    expect(observed.observedKph[fx.edge(N.C, N.E)]).toBeCloseTo(43.2, 4);
    expect(observed.samples[fx.edge(N.W, N.C)]).toBeGreaterThanOrEqual(FREE_FLOW_MIN_SAMPLES);
    // no pings the other way: the legal default (no maxspeed tag) stays
    expect(Number.isNaN(observed.observedKph[fx.edge(N.C, N.W)])).toBe(true);
    expect(freeFlowKphOf(fx.graph, fx.edge(N.C, N.W), observed)).toEqual([36, 'default']);
  });

  it('sets the zone free-flow time, and with it the delay', () => {
    const [limit] = buildFacts(fx.region, [stopped]);
    expect(limit.freeFlowS).toBeCloseTo(21.45, 5);
    expect(limit.freeFlowSource).toBe('default');
    const [obs] = buildFacts(fx.region, [stopped], { freeFlow: observed });
    expect(obs.freeFlowS).toBeCloseTo(214.5 / 12, 4);
    expect(obs.controlDelayS).toBeCloseTo(61.45 - 214.5 / 12, 4);
    expect(obs.freeFlowSource).toBe('observed');
  });

  it('does not lower free flow below the limit', () => {
    // the same vehicles at 8 m/s (28.8 km/h), below the 36 km/h limit
    const slow = [0, 1, 2].map((i) =>
      makeTrajectory(fx, `s${i}`, [N.W, N.C, N.E], t0 + 60 * i, [{ distanceM: 520, speedMps: 8 }], { withSpeed: true }),
    );
    const o = observedFreeFlow(fx.graph, slow);
    expect(o.observedKph[fx.edge(N.W, N.C)]).toBeCloseTo(28.8, 4);
    expect(freeFlowKphOf(fx.graph, fx.edge(N.W, N.C), o)).toEqual([36, 'default']);
  });

  it('needs enough unimpeded pings', () => {
    const few = observedFreeFlow(fx.graph, free.slice(0, 1), 40);
    expect(Number.isNaN(few.observedKph[fx.edge(N.W, N.C)])).toBe(true);
  });

  it('is computed in SQL from the stored traversals exactly as in memory', async () => {
    const db = await openPglite();
    try {
      await runMigrations(db, allMigrations());
      const all = [...free, queued];
      const ctx = { mapVersion: fx.region.meta.mapVersion, timeZone: 'America/New_York' };
      await replaceTraversals(
        db,
        fx.graph,
        ctx,
        all.map((t) => t.traceId),
        all,
      );
      expect(await refreshFreeFlow(db, fx.region)).toBe(2);
      const stored = await storedFreeFlow(db, fx.region);
      for (const e of [fx.edge(N.W, N.C), fx.edge(N.C, N.E)]) {
        expect(stored.observedKph[e]).toBeCloseTo(observed.observedKph[e], 3);
        expect(stored.samples[e]).toBe(observed.samples[e]);
      }
      expect(Number.isNaN(stored.observedKph[fx.edge(N.C, N.W)])).toBe(true);
    } finally {
      await db.close();
    }
  });
});
