import { describe, it, expect } from 'vitest';
import { EdgeFlag } from '../../network/graph.js';
import { planGraph, pingAt } from '../../../test/probes/plan-graph.js';
import { MapMatcher } from './matcher.js';

const edgesOf = (plan: ReturnType<typeof planGraph>, t: { traversals: { edge: number }[] }) =>
  plan.names(t.traversals.map((x) => x.edge));

describe('MapMatcher on hand-built graphs', () => {
  it('interpolates entry and exit times by distance between pings', () => {
    // a --100 m-- b --100 m-- c
    const plan = planGraph({ a: [0, 0], b: [100, 0], c: [200, 0] }, [{ path: 'abc' }]);
    const m = new MapMatcher(plan.graph);
    const [t] = m.match('v', [pingAt(10, 0, 0), pingAt(60, 0, 10), pingAt(110, 0, 20), pingAt(160, 0, 30)]);
    expect(edgesOf(plan, t)).toEqual(['ab', 'bc']);
    const [ab, bc] = t.traversals;
    expect(ab.enterS - 1_767_600_000).toBe(0);
    expect(ab.exitS - 1_767_600_000).toBeCloseTo(18, 1);
    expect(ab.coveredFraction).toBeCloseTo(0.9, 2);
    expect(bc.enterS).toBeCloseTo(ab.exitS, 6);
    expect(bc.exitS - 1_767_600_000).toBe(30);
    expect(bc.coveredFraction).toBeCloseTo(0.6, 2);
    expect(ab.pings.map((p) => p.index)).toEqual([0, 1]);
    expect(bc.pings.map((p) => p.index)).toEqual([2, 3]);
    expect(bc.pings[0].offsetM).toBeCloseTo(10, 0);
  });

  it('times a node from the reported speeds: braking, standing and pulling away', () => {
    // a --100 m-- b --100 m-- c: 10 m/s at 50 m, braking at 5/3 m/s² to stand at 80 m from 6 s to
    // 9 s, then pulling away at 5/3 m/s² up to 10 m/s. Positions and speeds agree, so the fused
    // positions are the pings'; between 87.5 m (12 s, 5 m/s) and 110 m (15 s, 10 m/s) the Hermite
    // curve is the true 87.5 + 5τ + 5τ²/6, which reaches b (100 m) at τ = √24 − 3 (linear: 1.667 s).
    const plan = planGraph({ a: [0, 0], b: [100, 0], c: [200, 0] }, [{ path: 'abc' }]);
    const drive: Array<[number, number, number]> = [
      [50, 0, 10],
      [72.5, 3, 5],
      [80, 6, 0],
      [80, 9, 0],
      [87.5, 12, 5],
      [110, 15, 10],
      [140, 18, 10],
    ];
    const pings = drive.map(([x, t, v]) => ({ ...pingAt(x, 0, t), speedKph: v * 3.6 }));
    const [t] = new MapMatcher(plan.graph).match('v', pings);
    expect(edgesOf(plan, t)).toEqual(['ab', 'bc']);
    const [ab, bc] = t.traversals;
    // (to 5 ms: the plan maps metres to degrees and back, and edge lengths are 32-bit floats)
    expect(ab.exitS - 1_767_600_000).toBeCloseTo(12 + Math.sqrt(24) - 3, 2);
    expect(bc.enterS).toBe(ab.exitS);
  });

  it('keeps a trace on its street when one noisy ping lies closer to a parallel street', () => {
    // d ------------ e ------------ f      (y = 40, parallel street)
    // |                             |
    // a ------------ b ------------ c      (y = 0, driven west → east)
    const plan = planGraph({ a: [0, 0], b: [300, 0], c: [600, 0], d: [0, 40], e: [300, 40], f: [600, 40] }, [
      { path: 'abc' },
      { path: 'def' },
      { path: 'ad' },
      { path: 'cf' },
    ]);
    const pings = [pingAt(50, 4, 0), pingAt(150, -6, 10), pingAt(250, 28, 20), pingAt(350, 3, 30), pingAt(450, -2, 40)];
    const [t] = new MapMatcher(plan.graph).match('v', pings);
    expect(edgesOf(plan, t)).toEqual(['ab', 'bc']);
  });

  it('follows a U-turn at a dead end', () => {
    // a ---- b ---- c (dead end): driven a → c and back to a
    const plan = planGraph({ a: [0, 0], b: [150, 0], c: [300, 0] }, [{ path: 'abc' }]);
    const xs = [20, 120, 220, 280, 200, 100, 30];
    const pings = xs.map((x, i) => pingAt(x, i % 2 ? 3 : -3, i * 10));
    const [t] = new MapMatcher(plan.graph).match('v', pings);
    expect(edgesOf(plan, t)).toEqual(['ab', 'bc', 'cb', 'ba']);
    expect(t.traversals[1].coveredFraction).toBeCloseTo(1, 3);
    expect(t.traversals[2].coveredFraction).toBeCloseTo(1, 3);
  });

  it('does not jump onto an overpass that has no connection to the road below', () => {
    //            n
    //            |  (bridge, no junction with the road below)
    // w --- x ---+--- y --- e
    //            |
    //            s
    const plan = planGraph({ w: [-300, 0], x: [-100, 0], y: [100, 0], e: [300, 0], n: [0, 300], s: [0, -300] }, [
      { path: 'wxye' },
      { path: 'ns', flags: EdgeFlag.bridge },
    ]);
    const pings = [
      pingAt(-250, 2, 0),
      pingAt(-150, -3, 8),
      pingAt(-60, 4, 16),
      pingAt(3, 8, 22),
      pingAt(60, -2, 28),
      pingAt(160, 3, 36),
      pingAt(260, 1, 44),
    ];
    const [t] = new MapMatcher(plan.graph).match('v', pings);
    expect(edgesOf(plan, t)).toEqual(['wx', 'xy', 'ye']);
    expect(t.traversals[1].pings.map((p) => p.index)).toEqual([2, 3, 4]);
  });

  it('respects one-ways: a trace driven against a one-way is matched to the parallel two-way street', () => {
    // d ----------- e   (two-way, y = 30)
    // |             |
    // a -----→----- b   (one-way a → b, y = 0)
    const plan = planGraph({ a: [0, 0], b: [400, 0], d: [0, 30], e: [400, 30] }, [
      { path: 'ab', oneway: true },
      { path: 'de' },
      { path: 'ad' },
      { path: 'be' },
    ]);
    const pings = [pingAt(350, 8, 0), pingAt(250, 10, 10), pingAt(150, 9, 20), pingAt(50, 8, 30)];
    const [t] = new MapMatcher(plan.graph).match('v', pings);
    expect(edgesOf(plan, t)).toEqual(['ed']);
  });

  it('splits a trace at a long gap into two parts', () => {
    // a ---- b ---- c ---- d
    const plan = planGraph({ a: [0, 0], b: [200, 0], c: [400, 0], d: [600, 0] }, [{ path: 'abcd' }]);
    const pings = [pingAt(20, 1, 0), pingAt(120, -1, 10), pingAt(180, 0, 16), pingAt(420, 2, 600), pingAt(520, 0, 610)];
    const parts = new MapMatcher(plan.graph).match('v', pings);
    expect(parts.map((p) => p.part)).toEqual([0, 1]);
    expect(edgesOf(plan, parts[0])).toEqual(['ab']);
    expect(edgesOf(plan, parts[1])).toEqual(['cd']);
  });

  it('splits at a physically impossible jump', () => {
    const plan = planGraph({ a: [0, 0], b: [3000, 0] }, [{ path: 'ab' }]);
    const parts = new MapMatcher(plan.graph).match('v', [
      pingAt(10, 0, 0),
      pingAt(40, 0, 2),
      pingAt(2900, 0, 4),
      pingAt(2950, 0, 6),
    ]);
    expect(parts).toHaveLength(2);
  });

  it('uses a reported heading to pick the direction of a two-way street when positions cannot tell', () => {
    // a ---- b   (two-way; one moving ping in the middle)
    const plan = planGraph({ a: [0, 0], b: [200, 0] }, [{ path: 'ab' }]);
    const west = { ...pingAt(100, 2, 0), headingDeg: 268, speedKph: 30 };
    const east = { ...pingAt(100, 2, 0), headingDeg: 91, speedKph: 30 };
    const m = new MapMatcher(plan.graph);
    expect(plan.names(m.match('w', [west])[0].traversals.map((t) => t.edge))).toEqual(['ba']);
    expect(plan.names(m.match('e', [east])[0].traversals.map((t) => t.edge))).toEqual(['ab']);
  });
});
