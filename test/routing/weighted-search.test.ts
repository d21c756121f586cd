/**
 * Weighted A* (`SearchOptions.boundWeight`), which the alternatives' penalised rounds use: with
 * its bounds inflated by w and settled labels never reopened, a search answers a path costing at
 * most w × the optimum and settles fewer labels; an exact search (w = 1) is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { SpeedMode } from '../../src/traffic/model.js';
import { TdAstar } from '../../src/routing/search/td-astar.js';
import type { SearchOptions } from '../../src/routing/search/search-types.js';
import { createRng } from '../../src/sim/prng.js';
import { EngineWithSearch, tdAstarOf } from './search-variants.js';
import { signalizedGrid } from './fixtures.js';

const AM = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000; // Monday 08:00 America/New_York

describe('weighted route search', () => {
  const graph = signalizedGrid(14, 3).graph;
  const eng = new EngineWithSearch(graph, new SpeedFeeds(), null, 'America/New_York', {}, (e) => tdAstarOf(e, TdAstar));
  eng.prepareWindows(AM);
  const rng = createRng(47);
  // penalties on a third of the edges, as an alternatives round puts on the routes found before
  const factor = new Float32Array(graph.edgeCount);
  for (let e = 0; e < graph.edgeCount; e++) if (rng.next() < 0.33) factor[e] = 1 + rng.next();
  const o: SearchOptions = {
    q: eng.model.query(AM, AM, SpeedMode.current),
    shortest: false,
    excludeFlags: 0,
    penaltyFlags: 0,
    penaltyFactor: 1,
    discountFlags: 0,
    discountFactor: 1,
    edgeFactor: factor,
    maxSettled: 1e9,
  };
  const pairs = Array.from({ length: 150 }, () => [
    Math.floor(rng.next() * graph.edgeCount),
    Math.floor(rng.next() * graph.edgeCount),
  ]);
  const run = (w: number) =>
    pairs.map(([s, t]) => {
      const p = eng.search.search([{ edge: s, fraction: 0.5, offsetS: 0 }], [{ edge: t, fraction: 0.5 }], AM, {
        ...o,
        boundWeight: w,
      });
      return { cost: p === null ? Infinity : p.cost, settled: eng.search.lastSettled };
    });

  it('answers within the weight of the optimum, settling fewer labels; weight 1 is the exact search', () => {
    const exact = run(1);
    const plain = pairs.map(([s, t]) => {
      const p = eng.search.search([{ edge: s, fraction: 0.5, offsetS: 0 }], [{ edge: t, fraction: 0.5 }], AM, o);
      return { cost: p === null ? Infinity : p.cost, settled: eng.search.lastSettled };
    });
    expect(exact).toEqual(plain);
    const weighted = run(1.3);
    let worse = 0;
    pairs.forEach((_, i) => {
      expect(weighted[i].cost === Infinity).toBe(exact[i].cost === Infinity);
      if (exact[i].cost === Infinity) return;
      expect(weighted[i].cost).toBeGreaterThanOrEqual(exact[i].cost - 1e-6);
      expect(weighted[i].cost).toBeLessThanOrEqual(1.3 * exact[i].cost + 1e-6);
      if (weighted[i].cost > exact[i].cost + 1e-6) worse++;
    });
    const total = (r: typeof exact) => r.reduce((s, x) => s + x.settled, 0);
    expect(total(weighted)).toBeLessThan(0.8 * total(exact));
    // the weight is used: some answers are not the optimum
    expect(worse).toBeGreaterThan(0);
  });
});
