/**
 * ALT landmarks (Goldberg & Harrelson 2005): for a few landmark nodes L, the lower-bound travel
 * times dist(L, v) and dist(v, L) to every node, with each edge weighted by its *minimum possible*
 * travel time (length at the traffic model's upper speed bound). Every speed the model produces
 * is capped at that bound and turn costs are ≥ 0, so the triangle-inequality bound stays
 * admissible under any time-dependent, learned or live speed: nothing about speeds is baked in.
 * Landmarks are chosen by farthest-first selection; tables are computed at load.
 */
import type { Graph } from '../../network/graph.js';
import { MinHeap } from '../../search/heap.js';

/** Landmark tables: fromL[i][v] = lb time L_i → v, toL[i][v] = lb time v → L_i (seconds). */
export interface Landmarks {
  nodes: number[];
  fromL: Float32Array[];
  toL: Float32Array[];
}

/** Dijkstra over nodes with per-edge weights, forward (out edges) or backward (in edges). */
export function dijkstra(
  g: Graph,
  weight: Float32Array,
  usable: Uint8Array,
  source: number,
  backward: boolean,
  heap: MinHeap,
): Float32Array {
  const dist = new Float32Array(g.nodeCount).fill(Infinity);
  const d64 = new Float64Array(g.nodeCount).fill(Infinity);
  heap.clear();
  d64[source] = 0;
  heap.push(source, 0);
  while (heap.length > 0) {
    const v = heap.pop();
    const k = heap.lastKey;
    if (k > d64[v]) continue;
    dist[v] = k;
    if (!backward) {
      for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
        if (!usable[e]) continue;
        const w = g.edgeTarget[e];
        const nd = k + weight[e];
        if (nd < d64[w]) {
          d64[w] = nd;
          heap.push(w, nd);
        }
      }
    } else {
      for (let i = g.firstIn[v]; i < g.firstIn[v + 1]; i++) {
        const e = g.inEdges[i];
        if (!usable[e]) continue;
        const w = g.edgeSource[e];
        const nd = k + weight[e];
        if (nd < d64[w]) {
          d64[w] = nd;
          heap.push(w, nd);
        }
      }
    }
  }
  return dist;
}

/**
 * Computes `count` landmarks. `weight[e]` = lower-bound travel time of edge e (seconds);
 * `usable[e]` = 1 when the search may use edge e. Deterministic (first seed = node of the first
 * usable edge).
 */
export function computeLandmarks(g: Graph, weight: Float32Array, usable: Uint8Array, count: number): Landmarks {
  const out: Landmarks = { nodes: [], fromL: [], toL: [] };
  if (g.nodeCount === 0 || count <= 0) return out;
  let seed = -1;
  for (let e = 0; e < g.edgeCount; e++)
    if (usable[e]) {
      seed = g.edgeSource[e];
      break;
    }
  if (seed < 0) return out;
  const heap = new MinHeap(1 << 16);
  // farthest node from the seed starts the selection
  const d0 = dijkstra(g, weight, usable, seed, false, heap);
  let next = argmaxFinite(d0);
  const minSum = new Float64Array(g.nodeCount).fill(Infinity);
  for (let i = 0; i < count && next >= 0; i++) {
    const from = dijkstra(g, weight, usable, next, false, heap);
    const to = dijkstra(g, weight, usable, next, true, heap);
    out.nodes.push(next);
    out.fromL.push(from);
    out.toL.push(to);
    for (let v = 0; v < g.nodeCount; v++) {
      const s = from[v] + to[v];
      if (s < minSum[v]) minSum[v] = s;
    }
    minSum[next] = 0;
    next = argmaxFinite(minSum);
    if (next >= 0 && minSum[next] === 0) break;
  }
  return out;
}

function argmaxFinite(a: ArrayLike<number>): number {
  let best = -1;
  let bv = -1;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (x !== Infinity && x > bv) {
      bv = x;
      best = i;
    }
  }
  return best;
}
