import { describe, expect, it } from 'vitest';
import { signalizedGrid } from '../../test/routing/fixtures.js';
import { createRng } from './prng.js';
import { NodeDistance } from '../routing/search/cch/node-distance.js';
import { SimRouter } from './router.js';

// 30 × 30 grid of 100 m blocks: 60 km/h arterials every 5th line, 30 km/h streets, signals where arterials cross
const g = signalizedGrid(30, 5).graph;

describe('the simulator router with a straight-line bound (A*)', () => {
  // congestion at departure: each link at 40–100 % of its free-flow speed (seeded)
  const rng = createRng(7);
  const share = Float64Array.from({ length: g.edgeCount }, () => 0.4 + 0.6 * rng.next());
  const timeOf = (e: number): number => (g.edgeLengthM[e] * 3.6) / (g.edgeSpeedKph[e] * share[e]);
  const delayS = (e: number): number => (g.nodeFlags[g.edgeTarget[e]] !== 0 ? 12 : 0);
  const pathS = (p: number[]): number => p.reduce((s, e, i) => s + timeOf(e) + (i > 0 ? delayS(p[i - 1]) : 0), 0);
  let top = 0;
  for (let e = 0; e < g.edgeCount; e++) top = Math.max(top, g.edgeSpeedKph[e]);

  it('finds trips as fast as Dijkstra on 200 seeded pairs, popping fewer labels', () => {
    const astar = new SimRouter(g, top);
    const dijkstra = new SimRouter(g);
    const pick = createRng(3);
    let poppedA = 0,
      poppedD = 0;
    for (let i = 0; i < 200; i++) {
      const from = Math.floor(pick.next() * g.edgeCount);
      const to = Math.floor(pick.next() * g.edgeCount);
      const a = astar.route(from, to, timeOf, delayS);
      const d = dijkstra.route(from, to, timeOf, delayS);
      expect(a === undefined, `pair ${i}`).toBe(d === undefined);
      if (a === undefined || d === undefined) continue;
      expect(a[0]).toBe(from);
      expect(a[a.length - 1]).toBe(to);
      expect(pathS(a), `pair ${i}`).toBeCloseTo(pathS(d), 9);
      poppedA += astar.lastPopped;
      poppedD += dijkstra.lastPopped;
    }
    expect(poppedA).toBeLessThan(poppedD * 0.7);
  });

  it('finds the same trip times with exact distances as the bound, popping fewer labels than straight lines', () => {
    // least costs: free-flow time (share ≤ 1) and the delay after each edge
    const minTimeS = Float64Array.from({ length: g.edgeCount }, (_, e) => (g.edgeLengthM[e] * 3.6) / g.edgeSpeedKph[e]);
    const minDelayS = Float64Array.from({ length: g.edgeCount }, (_, e) => delayS(e));
    const exact = new SimRouter(g, 0, {
      minTimeS,
      minDelayS,
      build: (usable, weightS) => NodeDistance.build(g, usable, weightS),
    });
    const astar = new SimRouter(g, top);
    const dijkstra = new SimRouter(g);
    const pick = createRng(3);
    let poppedX = 0,
      poppedA = 0;
    for (let i = 0; i < 200; i++) {
      const from = Math.floor(pick.next() * g.edgeCount);
      const to = Math.floor(pick.next() * g.edgeCount);
      const x = exact.route(from, to, timeOf, delayS);
      const d = dijkstra.route(from, to, timeOf, delayS);
      expect(x === undefined, `pair ${i}`).toBe(d === undefined);
      astar.route(from, to, timeOf, delayS);
      if (x === undefined || d === undefined) continue;
      expect(x[0]).toBe(from);
      expect(x[x.length - 1]).toBe(to);
      expect(pathS(x), `pair ${i}`).toBeCloseTo(pathS(d), 9);
      poppedX += exact.lastPopped;
      poppedA += astar.lastPopped;
    }
    expect(poppedX).toBeLessThan(poppedA * 0.7);
  });
});
