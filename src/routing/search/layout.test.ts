import { describe, expect, it } from 'vitest';
import { encodeTurnDelays, hilbertIndex, hilbertNodeOrder, type SearchLayout, TARGET, UNUSABLE } from './layout.js';
import { RoutingEngine } from '../engine.js';
import { SpeedFeeds } from '../../traffic/feeds.js';
import { RestrictionKind, TurnRestrictions, type Graph } from '../../network/graph.js';
import { E, signalizedGrid, twoRoutes } from '../../../test/routing/fixtures.js';

describe('hilbertIndex', () => {
  it('numbers every cell of a 2^k square once, consecutive indexes on neighbouring cells', () => {
    const order = 5,
      n = 2 ** order;
    const cellOf = new Map<number, [number, number]>();
    for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) cellOf.set(hilbertIndex(order, x, y), [x, y]);
    expect(cellOf.size).toBe(n * n);
    for (let d = 0; d < n * n; d++) expect(cellOf.has(d)).toBe(true);
    for (let d = 1; d < n * n; d++) {
      const [x0, y0] = cellOf.get(d - 1)!,
        [x1, y1] = cellOf.get(d)!;
      expect(Math.abs(x1 - x0) + Math.abs(y1 - y0)).toBe(1);
    }
  });
});

describe('SearchLayout', () => {
  /** the layout must be the graph renumbered: same edges, same heads, same constants, same turns */
  function expectSameGraph(g: Graph, L: SearchLayout, eng: RoutingEngine): void {
    const model = eng.model;
    const usable = (eng as unknown as { usable: Uint8Array }).usable;
    const restrictions = new TurnRestrictions(g);
    expect(new Set(L.extNode).size).toBe(g.nodeCount);
    expect(new Set(L.extEdge).size).toBe(g.edgeCount);
    for (let v = 0; v < L.nodeCount; v++) {
      expect(L.intNode[L.extNode[v]]).toBe(v);
      const x = L.extNode[v];
      // the same out edges, in the graph's order within the node
      const out = [];
      for (let f = L.firstOut[v]; f < L.firstOut[v + 1]; f++) out.push(L.extEdge[f]);
      const expected = [];
      for (let e = g.firstOut[x]; e < g.firstOut[x + 1]; e++) expected.push(e);
      expect(out).toEqual(expected);
      for (let f = L.firstOut[v]; f < L.firstOut[v + 1]; f++) {
        const e = L.extEdge[f];
        expect(L.intEdge[e]).toBe(f);
        expect(L.extNode[L.edgeTarget[f]]).toBe(g.edgeTarget[e]);
        expect(L.edgeFlags[f] & ~(UNUSABLE | TARGET)).toBe(g.edgeFlags[e]);
        expect((L.edgeFlags[f] & UNUSABLE) !== 0).toBe(usable[e] === 0);
        expect(L.minTT[f]).toBe(model.minTravelTimeS(e));
        expect(L.freeFlowKph[f]).toBe(model.freeFlowKph[e]);
        expect(L.upperKph[f]).toBe(model.upperKph[e]);
        expect(L.profileGroup[f]).toBe(model.profileGroup[e]);
        // every movement onto the head's out edges: the model's delay, or -1 where forbidden
        const w = L.edgeTarget[f];
        for (let h = L.firstOut[w], k = L.turnOff[f]; h < L.firstOut[w + 1]; h++, k++) {
          const x2 = L.extEdge[h];
          const delay = restrictions.isTurnAllowed(e, x2) ? model.turns.costS(e, x2) : -1;
          expect(L.turnDelay[L.turnCode[k]]).toBe(Math.fround(delay));
        }
      }
    }
  }

  it('renumbers a signalized grid without changing an edge, a constant or a turn', () => {
    const g = signalizedGrid(21, 5).graph;
    const eng = new RoutingEngine(g, new SpeedFeeds(), null, 'America/New_York', { landmarkCount: 2 });
    const L = (eng as unknown as { astar: { layout: SearchLayout } }).astar.layout;
    expectSameGraph(g, L, eng);
    // and it is a real renumbering: most map neighbours sit within a few ids of each other (row
    // by row, every vertical neighbour is a row away: 21 ids)
    const near = (id: (v: number) => number): number => {
      let k = 0;
      for (let e = 0; e < g.edgeCount; e++) if (Math.abs(id(g.edgeSource[e]) - id(g.edgeTarget[e])) <= 8) k++;
      return k / g.edgeCount;
    };
    expect(near((v) => v)).toBeCloseTo(0.5, 2);
    expect(near((v) => L.intNode[v])).toBeGreaterThan(0.75);
  });

  it('keeps forbidden turns forbidden', () => {
    const f = twoRoutes({
      restrictions: [{ fromEdge: E.stubIn, via: 1, toEdge: E.toMotorway, kind: RestrictionKind.no }],
    });
    const g = f.region.graph;
    const eng = new RoutingEngine(g, f.feeds, null, 'UTC', { landmarkCount: 2 });
    const L = (eng as unknown as { astar: { layout: SearchLayout } }).astar.layout;
    expectSameGraph(g, L, eng);
    const from = L.intEdge[f.edgeIdOf[E.stubIn]];
    const w = L.edgeTarget[from];
    let forbidden = 0;
    for (let h = L.firstOut[w], k = L.turnOff[from]; h < L.firstOut[w + 1]; h++, k++) {
      if (L.turnDelay[L.turnCode[k]] < 0) {
        forbidden++;
        expect(L.extEdge[h]).toBe(f.edgeIdOf[E.toMotorway]);
      }
    }
    expect(forbidden).toBe(1);
  });

  it('orders nodes along the curve: a graph with one node, or all nodes at one point, still works', () => {
    const g = signalizedGrid(2, 5).graph;
    expect([...hilbertNodeOrder(g)].sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('encodeTurnDelays', () => {
  it('one-byte codes for few distinct delays, decoded exactly (forbidden turns stay -1)', () => {
    const delays = Float32Array.from([0, 2, 5, 60, -1, 15, 10, 25, 0, 2.5, -1, 8]);
    const { codes, values } = encodeTurnDelays(delays);
    expect(codes).toBeInstanceOf(Uint8Array);
    for (let i = 0; i < delays.length; i++) expect(values[codes[i]]).toBe(delays[i]);
  });

  it('two-byte codes beyond 256 distinct delays, still exact', () => {
    const delays = new Float32Array(1000);
    for (let i = 0; i < delays.length; i++) delays[i] = (i % 300) * 0.37 - (i % 7 === 0 ? 1 : 0);
    const { codes, values } = encodeTurnDelays(delays);
    expect(codes).toBeInstanceOf(Uint16Array);
    for (let i = 0; i < delays.length; i++) expect(values[codes[i]]).toBe(delays[i]);
  });
});
