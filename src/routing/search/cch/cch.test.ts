import { describe, expect, it } from 'vitest';
import { buildGraph, EdgeFlag, RoadClass, type EdgeInput, type Graph } from '../../../network/graph.js';
import { buildBoundGraph, boundNodesAt } from './bound-graph.js';
import { buildCchTopology } from './topology.js';
import { CchCustomization, customize } from './customize.js';
import { CchPotential } from './potential.js';
import { boundDistances } from '../../../../test/helpers/bound-distances.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** A k × k street grid with jittered positions, missing streets and one-ways. */
function randomGrid(k: number, rnd: () => number): Graph {
  const nodes = [];
  for (let r = 0; r < k; r++)
    for (let c = 0; c < k; c++)
      nodes.push({ lat: 39 + r * 0.001 + rnd() * 0.0003, lon: -77 + c * 0.0013 + rnd() * 0.0003, flags: 0 });
  const edges: EdgeInput[] = [];
  const base = { speedKph: 30, roadClass: RoadClass.residential, flags: EdgeFlag.routable };
  const add = (a: number, b: number) => {
    const x = rnd();
    if (x < 0.12) return; // no street
    const len = 80 + rnd() * 80;
    if (x < 0.3) {
      edges.push({ ...base, source: a, target: b, twin: -1, lengthM: len });
      return;
    }
    const i = edges.length;
    edges.push({ ...base, source: a, target: b, twin: i + 1, lengthM: len });
    edges.push({ ...base, source: b, target: a, twin: i, lengthM: len });
  };
  for (let r = 0; r < k; r++)
    for (let c = 0; c < k; c++) {
      const v = r * k + c;
      if (c + 1 < k) add(v, v + 1);
      if (r + 1 < k) add(v, v + k);
    }
  return buildGraph({ nodes, edges }).graph;
}

interface Case {
  g: Graph;
  usable: Uint8Array;
  edgeTimeS: Float32Array;
  turnS: (p: number, f: number) => number;
  minTurnInS: Float32Array;
}

/** `ties`: edge times drawn from a few whole seconds, so equal-cost paths are everywhere. */
function randomCase(seed: number, k: number, ties = false): Case {
  const rnd = lcg(seed);
  const g = randomGrid(k, rnd);
  const usable = new Uint8Array(g.edgeCount).fill(1);
  const edgeTimeS = new Float32Array(g.edgeCount);
  for (let e = 0; e < g.edgeCount; e++)
    edgeTimeS[e] = ties ? [6, 8, 10][Math.floor(rnd() * 3)] : g.edgeLengthM[e] / (5 + rnd() * 15);
  // turn delays: a few "signal" nodes with 10/15/25 s, forbidden turns at some nodes, else 0–5 s
  const signal = new Uint8Array(g.nodeCount);
  for (let v = 0; v < g.nodeCount; v++) signal[v] = rnd() < 0.15 ? 1 : rnd() < 0.1 ? 2 : 0;
  const table = new Map<number, number>();
  for (let p = 0; p < g.edgeCount; p++) {
    const v = g.edgeTarget[p];
    for (let f = g.firstOut[v]; f < g.firstOut[v + 1]; f++) {
      const uturn = g.edgeTwin[p] === f;
      let c = uturn ? 60 : signal[v] === 1 ? [10, 15, 25][Math.floor(rnd() * 3)] : Math.floor(rnd() * 6);
      if (signal[v] === 2 && !uturn && rnd() < 0.4) c = -1;
      table.set(p * g.edgeCount + f, c);
    }
  }
  const turnS = (p: number, f: number) => table.get(p * g.edgeCount + f)!;
  const minTurnInS = new Float32Array(g.edgeCount);
  for (let f = 0; f < g.edgeCount; f++) {
    let m = Infinity;
    const u = g.edgeSource[f];
    for (let i = g.firstIn[u]; i < g.firstIn[u + 1]; i++) {
      const c = turnS(g.inEdges[i], f);
      if (c >= 0 && c < m) m = c;
    }
    minTurnInS[f] = m === Infinity ? 0 : m;
  }
  return { g, usable, edgeTimeS, turnS, minTurnInS };
}

/** Exact edge-based cost (turns included) from the head of edge `e0` to graph node `u`. */
function exactEdgeBased(c: Case, e0: number, u: number): number {
  const { g } = c;
  const d = new Float64Array(g.edgeCount).fill(Infinity);
  const done = new Uint8Array(g.edgeCount);
  d[e0] = 0;
  let best = Infinity;
  for (;;) {
    let e = -1;
    for (let i = 0; i < g.edgeCount; i++) if (!done[i] && d[i] < Infinity && (e < 0 || d[i] < d[e])) e = i;
    if (e < 0) break;
    done[e] = 1;
    if (g.edgeTarget[e] === u && d[e] < best) best = d[e];
    const v = g.edgeTarget[e];
    for (let f = g.firstOut[v]; f < g.firstOut[v + 1]; f++) {
      const t = c.turnS(e, f);
      if (t < 0) continue;
      const nd = d[e] + t + c.edgeTimeS[f];
      if (nd < d[f]) d[f] = nd;
    }
  }
  return best;
}

describe('CCH potentials', () => {
  it.each([
    ['real-valued edge times', false],
    ['edge times of 6, 8 or 10 s (ties everywhere: pruning drops tied arcs)', true],
  ])(
    'equal exact bound-graph distances for every node and several target sets (seeded random graphs, %s)',
    (_, ties) => {
      for (let seed = 1; seed <= 6; seed++) {
        const c = randomCase(seed, 9, ties);
        const bg = buildBoundGraph(c.g, c.usable, c.turnS, c.minTurnInS, 5);
        expect(bg.expandedCount, `seed ${seed}`).toBeGreaterThan(0);
        const topo = buildCchTopology(bg);
        const metric = customize(topo, c.edgeTimeS);
        // perfect customization dropped the arcs no shortest path needs
        expect(metric.head.length, `seed ${seed}`).toBeLessThan(topo.upHead.length);
        const pot = new CchPotential(topo);
        const rnd = lcg(seed * 31);
        for (let q = 0; q < 4; q++) {
          const targets: number[] = [];
          for (let i = 0; i < 1 + (q % 3); i++) boundNodesAt(c.g, bg, Math.floor(rnd() * c.g.nodeCount), targets);
          const want = boundDistances(bg, c.edgeTimeS, targets);
          pot.reset(metric, targets);
          for (let v = 0; v < bg.nodeCount; v++) {
            const got = pot.at(v);
            if (want[v] === Infinity) expect(got, `seed ${seed} q ${q} node ${v}`).toBe(Infinity);
            else
              expect(Math.abs(got - want[v]), `seed ${seed} q ${q} node ${v}`).toBeLessThan(
                1e-4 * Math.max(1, want[v]),
              );
          }
        }
      }
    },
  );

  it('keep what a query to the same targets in the same metric evaluated, and start over in another metric', () => {
    const c = randomCase(3, 9, false);
    const bg = buildBoundGraph(c.g, c.usable, c.turnS, c.minTurnInS, 5);
    const topo = buildCchTopology(bg);
    const slow = Float32Array.from(c.edgeTimeS, (t) => t * 2);
    const metrics = [customize(topo, c.edgeTimeS), customize(topo, slow)];
    const targets: number[] = [];
    boundNodesAt(c.g, bg, 5, targets);
    const half = Math.floor(bg.nodeCount / 2);
    const pot = new CchPotential(topo);
    pot.reset(metrics[0], targets);
    for (let v = 0; v < half; v++) pot.at(v);
    const evaluatedFirst = pot.evaluated;
    // the same targets and metric: the nodes evaluated before are not evaluated again
    pot.reset(metrics[0], targets, true);
    for (let v = 0; v < half; v++) pot.at(v);
    expect(pot.evaluated).toBe(0);
    expect(evaluatedFirst).toBeGreaterThan(0);
    // another metric: every value is computed again, from that metric
    for (const [m, times] of [
      [metrics[1], slow],
      [metrics[0], c.edgeTimeS],
    ] as const) {
      pot.reset(m, targets, true);
      const want = boundDistances(bg, times, targets);
      for (let v = 0; v < bg.nodeCount; v++) {
        if (want[v] === Infinity) expect(pot.at(v)).toBe(Infinity);
        else expect(Math.abs(pot.at(v) - want[v])).toBeLessThan(1e-4 * Math.max(1, want[v]));
      }
    }
  });

  it('stay exact on a grid of equal blocks, where shortest paths tie everywhere (pruning drops tied arcs, keeping one of each tie)', () => {
    const k = 12;
    const nodes = [];
    for (let r = 0; r < k; r++)
      for (let c = 0; c < k; c++) nodes.push({ lat: 39 + r * 0.001, lon: -77 + c * 0.0013, flags: 0 });
    const edges: EdgeInput[] = [];
    const base = { speedKph: 36, roadClass: RoadClass.residential, flags: EdgeFlag.routable, lengthM: 100 };
    for (let r = 0; r < k; r++)
      for (let c = 0; c < k; c++) {
        const v = r * k + c;
        for (const w of [c + 1 < k ? v + 1 : -1, r + 1 < k ? v + k : -1]) {
          if (w < 0) continue;
          const i = edges.length;
          edges.push({ ...base, source: v, target: w, twin: i + 1 });
          edges.push({ ...base, source: w, target: v, twin: i });
        }
      }
    const g = buildGraph({ nodes, edges }).graph;
    const usable = new Uint8Array(g.edgeCount).fill(1);
    const edgeTimeS = new Float32Array(g.edgeCount).fill(10);
    const bg = buildBoundGraph(g, usable, (p, f) => (g.edgeTwin[p] === f ? 60 : 0), new Float32Array(g.edgeCount), 5);
    const topo = buildCchTopology(bg);
    const metric = customize(topo, edgeTimeS);
    const keepTies = customize(topo, edgeTimeS, 1, { dropTies: false });
    expect(keepTies.head.length).toBeLessThan(topo.upHead.length);
    // equal blocks: equal-cost paths everywhere, so many arcs tie with a path through another upper neighbour
    expect(metric.head.length).toBeLessThan(keepTies.head.length * 0.8);
    // a zero-length edge: tied directions are kept (the proof that dropping them is exact needs positive weights)
    const withZero = Float32Array.from(edgeTimeS);
    withZero[7] = 0;
    const zeroMetric = customize(topo, withZero);
    expect(zeroMetric.head.length).toBe(customize(topo, withZero, 1, { dropTies: false }).head.length);
    const pot = new CchPotential(topo);
    for (const [m, times] of [
      [metric, edgeTimeS],
      [keepTies, edgeTimeS],
      [zeroMetric, withZero],
    ] as const) {
      for (const t of [0, 5, 77, k * k - 1]) {
        const targets: number[] = [];
        boundNodesAt(g, bg, t, targets);
        const want = boundDistances(bg, times, targets);
        pot.reset(m, targets);
        for (let v = 0; v < bg.nodeCount; v++) expect(pot.at(v), `target ${t} node ${v}`).toBeCloseTo(want[v], 3);
      }
    }
  });

  it('never exceed the exact edge-based cost with turn delays and restrictions, and equal it when every node is expanded', () => {
    for (let seed = 11; seed <= 14; seed++) {
      const c = randomCase(seed, 7);
      for (const expandOverS of [5, -1]) {
        const bg = buildBoundGraph(c.g, c.usable, c.turnS, c.minTurnInS, expandOverS);
        const topo = buildCchTopology(bg);
        const metric = customize(topo, c.edgeTimeS);
        const pot = new CchPotential(topo);
        const rnd = lcg(seed);
        for (let q = 0; q < 12; q++) {
          const e0 = Math.floor(rnd() * c.g.edgeCount);
          const u = Math.floor(rnd() * c.g.nodeCount);
          const targets: number[] = [];
          boundNodesAt(c.g, bg, u, targets);
          pot.reset(metric, targets);
          const lb = pot.at(bg.headNode[e0]);
          const exact = exactEdgeBased(c, e0, u);
          if (exact === Infinity) continue;
          expect(lb, `seed ${seed} expand ${expandOverS} edge ${e0} → node ${u}`).toBeLessThanOrEqual(
            exact * (1 + 1e-6) + 1e-6,
          );
          if (expandOverS < 0)
            expect(Math.abs(lb - exact), `seed ${seed} full expansion edge ${e0} → node ${u}`).toBeLessThan(1e-3);
        }
      }
    }
  });

  it('customizes the same metric in slices as at once', () => {
    const c = randomCase(99, 12);
    const bg = buildBoundGraph(c.g, c.usable, c.turnS, c.minTurnInS, 5);
    const topo = buildCchTopology(bg);
    const whole = customize(topo, c.edgeTimeS);
    const sliced = new CchCustomization(topo, c.edgeTimeS);
    let steps = 0;
    while (!sliced.advance(50)) steps++;
    expect(steps).toBeGreaterThan(3);
    expect(Array.from(sliced.metric.first)).toEqual(Array.from(whole.first));
    expect(Array.from(sliced.metric.head)).toEqual(Array.from(whole.head));
    expect(Array.from(sliced.metric.up)).toEqual(Array.from(whole.up));
    expect(Array.from(sliced.metric.down)).toEqual(Array.from(whole.down));
  });

  it('give exact distances over the interim metric at every slice from the end of the basic phase on', () => {
    for (let seed = 1; seed <= 3; seed++) {
      const c = randomCase(seed, 9);
      const bg = buildBoundGraph(c.g, c.usable, c.turnS, c.minTurnInS, 5);
      const topo = buildCchTopology(bg);
      const cust = new CchCustomization(topo, c.edgeTimeS);
      const pot = new CchPotential(topo);
      const rnd = lcg(seed * 17);
      const targets: number[] = [];
      boundNodesAt(c.g, bg, Math.floor(rnd() * c.g.nodeCount), targets);
      const want = boundDistances(bg, c.edgeTimeS, targets);
      let checked = 0;
      for (let done = false; !done; ) {
        done = cust.advance(40);
        const m = cust.interim;
        if (m === null) continue;
        pot.reset(m, targets);
        for (let v = 0; v < bg.nodeCount; v++) {
          const got = pot.at(v);
          if (want[v] === Infinity) expect(got, `seed ${seed} node ${v}`).toBe(Infinity);
          else expect(Math.abs(got - want[v]), `seed ${seed} node ${v}`).toBeLessThan(1e-4 * Math.max(1, want[v]));
        }
        checked++;
      }
      // interim metrics before, during and after the perfect phase
      expect(checked, `seed ${seed}`).toBeGreaterThan(3);
    }
  });
});
