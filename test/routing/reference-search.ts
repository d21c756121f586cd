/**
 * The tests' reference route search: plain time-dependent Dijkstra on an edge-based state (a
 * label per directed edge), in exact key order (a binary-heap queue), by the graph's own edge
 * ids, asking the traffic model for every edge time and turn delay. No lower bounds, no search
 * layout, no inline cost copy and no pruning: what the production search (`TdAstar`) must equal.
 */
import type { Graph, TurnRestrictions } from '../../src/network/graph.js';
import type { TrafficModel } from '../../src/traffic/model.js';
import { MinHeap } from '../../src/search/heap.js';
import {
  costFactor,
  SHORTEST_UTURN_M,
  type BoundsUsed,
  type RouteSearch,
  type SearchOptions,
  type SearchPath,
  type SearchSource,
  type SearchTarget,
} from '../../src/routing/search/search-types.js';

/** Plain time-dependent Dijkstra over one graph and traffic model. */
export class ReferenceSearch implements RouteSearch {
  private readonly g: Graph;
  lastSettled = 0;
  lastExhausted = false;
  readonly lastBounds: BoundsUsed = 'none';

  constructor(
    private readonly model: TrafficModel,
    private readonly restrictions: TurnRestrictions,
    private readonly usable: Uint8Array,
  ) {
    this.g = model.graph;
  }

  search(sources: SearchSource[], targets: SearchTarget[], depS: number, o: SearchOptions): SearchPath | null {
    const { g, model } = this;
    const cost = new Float64Array(g.edgeCount).fill(Infinity);
    const time = new Float64Array(g.edgeCount);
    const parent = new Int32Array(g.edgeCount).fill(-1);
    const source = new Int32Array(g.edgeCount).fill(-1);
    const done = new Uint8Array(g.edgeCount);
    const heap = new MinHeap();
    const factor = (e: number) => (this.usable[e] === 0 ? 0 : costFactor(g.edgeFlags[e], e, o));
    let best = { cost: Infinity, prev: -1, target: -1, source: -1, arrivalS: 0 };
    for (const [si, s] of sources.entries()) {
      const fac = factor(s.edge);
      const t0 = depS + s.offsetS;
      const tt = model.travelTimeS(o.q, s.edge, t0);
      if (fac === 0 || tt === Infinity) continue;
      const base = o.shortest ? g.edgeLengthM[s.edge] : tt;
      const offsetCost = o.shortest ? (s.offsetS > 0 ? SHORTEST_UTURN_M : 0) : s.offsetS;
      for (const [ti, t] of targets.entries()) {
        const c = offsetCost + (t.fraction - s.fraction) * base * fac;
        if (t.edge === s.edge && t.fraction >= s.fraction && c < best.cost)
          best = { cost: c, prev: -1, target: ti, source: si, arrivalS: t0 + (t.fraction - s.fraction) * tt };
      }
      const c = offsetCost + (1 - s.fraction) * base * fac;
      if (c < cost[s.edge]) {
        cost[s.edge] = c;
        time[s.edge] = t0 + (1 - s.fraction) * tt;
        source[s.edge] = si;
        heap.push(s.edge, c);
      }
    }
    let settled = 0;
    this.lastExhausted = false;
    while (heap.length > 0) {
      const e = heap.pop();
      if (heap.lastKey >= best.cost) break;
      if (done[e] === 1 || heap.lastKey > cost[e]) continue;
      done[e] = 1;
      if (++settled > o.maxSettled) {
        this.lastExhausted = true;
        break;
      }
      for (let x = g.firstOut[g.edgeTarget[e]]; x < g.firstOut[g.edgeTarget[e] + 1]; x++) {
        const fac = factor(x);
        if (fac === 0 || !this.restrictions.isTurnAllowed(e, x)) continue;
        const turnS = model.turns.costS(e, x);
        const tEnter = time[e] + turnS;
        const tt = model.travelTimeS(o.q, x, tEnter);
        if (tt === Infinity) continue;
        const uturn = g.edgeTwin[e] === x || g.edgeSource[e] === g.edgeTarget[x];
        const step = o.shortest ? (uturn ? SHORTEST_UTURN_M : 0) : turnS;
        const base = o.shortest ? g.edgeLengthM[x] : tt;
        for (const [ti, t] of targets.entries()) {
          const c = cost[e] + step + t.fraction * base * fac;
          if (t.edge === x && c < best.cost)
            best = { cost: c, prev: e, target: ti, source: -1, arrivalS: tEnter + t.fraction * tt };
        }
        const c = cost[e] + step + base * fac;
        if (c < cost[x]) {
          cost[x] = c;
          time[x] = tEnter + tt;
          parent[x] = e;
          heap.push(x, c);
        }
      }
    }
    this.lastSettled = settled;
    if (best.cost === Infinity) return null;
    const edges: number[] = [];
    for (let e = best.prev; e >= 0; e = parent[e]) edges.push(e);
    edges.reverse();
    const sourceIndex = best.prev < 0 ? best.source : source[edges[0]];
    edges.push(targets[best.target].edge);
    return {
      edges,
      startFraction: sources[sourceIndex].fraction,
      endFraction: targets[best.target].fraction,
      cost: best.cost,
      arrivalS: best.arrivalS,
      sourceIndex,
      settled,
    };
  }
}
