/**
 * Trip use: how much trip time each edge and the turns carry, the weights time-warped metrics
 * choose their reference rate by (`time-warp.ts`).
 */
import type { TrafficModel } from '../../traffic/model.js';
import { dijkstra } from './landmarks.js';
import { MinHeap } from '../../search/heap.js';

/** How much trip time each edge and the turns carry (weights for choosing the reference rate). */
export interface TripUse {
  /** per edge: free-flow seconds on it summed over the trips of a shortest-path tree */
  edge: Float64Array;
  /** turn delay seconds summed over the same trips */
  turns: number;
}

/**
 * Trip use from one free-flow shortest-path tree rooted near the centre of the graph: each tree
 * edge counts its free-flow time once per destination below it, so an edge's weight is the time
 * trips from the centre to everywhere spend on it. Roads that carry long trips weigh in by how
 * much they carry, not by how many of them there are.
 */
export function tripUse(model: TrafficModel, usable: Uint8Array, minTurnInS: Float32Array): TripUse {
  const g = model.graph;
  const n = g.nodeCount,
    m = g.edgeCount;
  const edge = new Float64Array(m);
  if (n === 0) return { edge, turns: 0 };
  // root: the node nearest the mean position of the usable edges' tails
  let sLat = 0,
    sLon = 0,
    cnt = 0;
  for (let e = 0; e < m; e++) {
    if (!usable[e]) continue;
    sLat += g.nodeLatE7[g.edgeSource[e]];
    sLon += g.nodeLonE7[g.edgeSource[e]];
    cnt++;
  }
  if (cnt === 0) return { edge, turns: 0 };
  sLat /= cnt;
  sLon /= cnt;
  let root = -1,
    bestD = Infinity;
  for (let e = 0; e < m; e++) {
    if (!usable[e]) continue;
    const v = g.edgeSource[e];
    const d = (g.nodeLatE7[v] - sLat) ** 2 + (g.nodeLonE7[v] - sLon) ** 2;
    if (d < bestD) {
      bestD = d;
      root = v;
    }
  }
  const weight = new Float32Array(m);
  for (let e = 0; e < m; e++) weight[e] = model.freeFlowTimeS(e) + minTurnInS[e];
  const dist = dijkstra(g, weight, usable, root, false, new MinHeap(1 << 14));
  // parent edge of every reached node, then subtree sizes from the farthest nodes inwards
  const parent = new Int32Array(n).fill(-1);
  const order: number[] = [];
  for (let v = 0; v < n; v++) {
    if (dist[v] === Infinity || v === root) continue;
    let best = Infinity;
    for (let i = g.firstIn[v]; i < g.firstIn[v + 1]; i++) {
      const e = g.inEdges[i];
      if (!usable[e]) continue;
      const d = dist[g.edgeSource[e]] + weight[e];
      if (d < best) {
        best = d;
        parent[v] = e;
      }
    }
    if (parent[v] >= 0) order.push(v);
  }
  order.sort((a, b) => dist[b] - dist[a]);
  const below = new Float64Array(n).fill(1);
  let turns = 0;
  for (const v of order) {
    const e = parent[v];
    // a parent is strictly closer (positive weights), so it comes later in this order
    below[g.edgeSource[e]] += below[v];
    edge[e] += model.freeFlowTimeS(e) * below[v];
    turns += minTurnInS[e] * below[v];
  }
  return { edge, turns };
}
