/**
 * Nested-dissection node order for the customizable contraction hierarchy (Dibbelt, Strasser &
 * Wagner, "Customizable Contraction Hierarchies", 2016). The order depends only on the graph's
 * shape, never on speeds: speeds enter later, in customization.
 *
 * Separators come from recursive geometric bisection: a part's nodes are sorted east–west and
 * north–south (x = longitude scaled by cos(latitude), y = latitude), and of every cut along either
 * axis that leaves each side at least `CUT_BALANCE` of the nodes, the one with the smallest
 * separator wins — the edges crossing the cut are covered by the endpoints on one side (the side
 * with fewer of them), and those nodes form the separator. A separator is ranked above both halves,
 * so the halves contract independently. Road networks are near-planar, so such line separators
 * stay small (a grid of side k gets separators of ≤ k nodes). Parts of ≤ `LEAF` nodes are ordered
 * by coordinate.
 *
 * Until 2026-11-24 the cut was the median of the longer extent. Choosing the smallest balanced
 * cut avoids cutting through turn-expanded intersections and dense spots: on Baltimore it left
 * 28 % fewer chordal arcs and 18 % fewer kept by the free-flow metric, an elimination tree of
 * height 125 instead of 164, and searches 7–9 % faster (identical routes); on the 1M-edge grid it
 * changed little (see docs/routing.md, Performance). Diagonal cuts were tried as well: on the grid
 * they cut the chordal arcs by 41 % but made the peak searches 3–10 % slower, and on Baltimore
 * they did no better than the two axes.
 */
import type { BoundGraph } from './bound-graph.js';

/** Parts at most this large are not split further. */
const LEAF = 2;

/** The smaller side of a cut holds at least this share of a part's nodes. */
export const CUT_BALANCE = 0.4;

/** Per-node work arrays of `bestCut`, allocated once. */
class CutScratch {
  readonly pos: Int32Array;
  readonly coverLow: Int32Array;
  readonly coverHigh: Int32Array;
  constructor(n: number) {
    this.pos = new Int32Array(n);
    this.coverLow = new Int32Array(n + 2);
    this.coverHigh = new Int32Array(n + 2);
  }
}

/**
 * Chooses the cut of a part: for each axis, the nodes sorted along it may be split after any
 * position that leaves each side ≥ CUT_BALANCE of the part, and each such split's separator (the
 * cut edges' endpoints on the side with fewer of them) is counted for all positions at once with
 * difference arrays — a node u is an endpoint on the low side for every split between u and its
 * highest neighbour, on the high side between its lowest neighbour and u. The smallest separator
 * wins (ties: the position nearest the median, then the east–west axis). Sets `side` (1 low,
 * 2 high) for the part's nodes and returns them in the chosen axis's order.
 */
function bestCut(
  orders: Int32Array[],
  id: number,
  adj: Int32Array,
  adjFirst: Uint32Array,
  part: Int32Array,
  side: Uint8Array,
  s: CutScratch,
): Int32Array {
  const len = orders[0].length;
  const half = len >> 1;
  let lo = Math.max(1, Math.ceil(len * CUT_BALANCE));
  let hi = Math.min(len - 1, Math.floor(len * (1 - CUT_BALANCE)));
  if (hi < lo) lo = hi = Math.max(1, half);
  const pos = s.pos;
  let bestScore = Infinity,
    bestDist = Infinity,
    bestSplit = half;
  let bestOrder: Int32Array = orders[0];
  const coverLow = s.coverLow,
    coverHigh = s.coverHigh;
  for (const order of orders) {
    for (let i = 0; i < len; i++) pos[order[i]] = i;
    coverLow.fill(0, 0, len + 2);
    coverHigh.fill(0, 0, len + 2);
    for (let i = 0; i < len; i++) {
      const v = order[i];
      let minP = i,
        maxP = i;
      for (let k = adjFirst[v]; k < adjFirst[v + 1]; k++) {
        const w = adj[k];
        if (part[w] !== id) continue;
        const p = pos[w];
        if (p < minP) minP = p;
        if (p > maxP) maxP = p;
      }
      // split s = first index of the high side: v is low for s > i
      if (maxP > i) {
        coverLow[i + 1]++;
        coverLow[maxP + 1]--;
      }
      if (minP < i) {
        coverHigh[minP + 1]++;
        coverHigh[i + 1]--;
      }
    }
    let a = 0,
      b = 0;
    for (let split = 1; split <= hi; split++) {
      a += coverLow[split];
      b += coverHigh[split];
      if (split < lo) continue;
      const score = a < b ? a : b;
      const dist = Math.abs(split - half);
      if (score < bestScore || (score === bestScore && dist < bestDist)) {
        bestScore = score;
        bestDist = dist;
        bestSplit = split;
        bestOrder = order;
      }
    }
  }
  for (let i = 0; i < len; i++) side[bestOrder[i]] = i < bestSplit ? 1 : 2;
  return bestOrder;
}

/** rank[node] of every bound node (0 = contracted first); isolated nodes get the lowest ranks. */
export function nestedDissectionOrder(g: BoundGraph): Int32Array {
  const n = g.nodeCount;
  const rank = new Int32Array(n).fill(-1);
  const [x, y] = projectedXY(g);
  const { adjFirst, adj } = undirectedAdjacency(g);

  const cut = new CutScratch(n);
  let next = n - 1; // ranks are handed out from the top: separators first, then their parts
  // part[v] = id of the part v currently belongs to (0 = none / already ranked)
  const part = new Int32Array(n);
  const side = new Uint8Array(n);
  let partIds = 1;
  const isolated: number[] = [];
  const all: number[] = [];
  for (let v = 0; v < n; v++) {
    if (adjFirst[v + 1] === adjFirst[v]) isolated.push(v);
    else {
      all.push(v);
      part[v] = partIds;
    }
  }
  // every part keeps its nodes sorted along each cut direction (east and north; ties by id):
  // sorted once here, then split with the part
  const rootOrders = [x, y].map((k) => Int32Array.from(all).sort((a, b) => k[a] - k[b] || a - b));
  const stack: Array<{ orders: Int32Array[]; id: number }> = [{ orders: rootOrders, id: partIds }];
  while (stack.length > 0) {
    const { orders, id } = stack.pop()!;
    const nodes = orders[0];
    if (nodes.length <= LEAF) {
      for (let i = nodes.length - 1; i >= 0; i--) {
        rank[nodes[i]] = next--;
        part[nodes[i]] = 0;
      }
      continue;
    }
    // the smallest separator among the balanced cuts along either axis
    const sorted = bestCut(orders, id, adj, adjFirst, part, side, cut);
    const sep = separatorOf(sorted, id, adj, adjFirst, part, side);
    for (let i = sep.length - 1; i >= 0; i--) {
      const v = sep[i];
      rank[v] = next--;
      part[v] = 0;
    }
    // a part is handed out only after its sibling's subtree (stack order), so parts keep
    // contiguous rank ranges
    const sideIds = [0, ++partIds, ++partIds];
    let sizeA = 0,
      sizeB = 0;
    for (const v of nodes) {
      if (part[v] === 0) continue;
      part[v] = sideIds[side[v]];
      if (side[v] === 1) sizeA++;
      else sizeB++;
    }
    for (const [sid, size] of [
      [sideIds[1], sizeA],
      [sideIds[2], sizeB],
    ]) {
      if (size === 0) continue;
      const sub = orders.map((o) => {
        const out = new Int32Array(size);
        let k = 0;
        for (let i = 0; i < o.length; i++) if (part[o[i]] === sid) out[k++] = o[i];
        return out;
      });
      stack.push({ orders: sub, id: sid });
    }
  }
  for (const v of isolated) rank[v] = next--;
  return rank;
}

/** Node positions on a plane: longitude scaled by the cosine of the mean latitude, and latitude (both E7). */
function projectedXY(g: BoundGraph): [Float64Array, Float64Array] {
  const n = g.nodeCount;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  let latSum = 0;
  for (let v = 0; v < n; v++) latSum += g.latE7[v];
  const cosLat = Math.cos(((n > 0 ? latSum / n : 0) / 1e7) * (Math.PI / 180));
  for (let v = 0; v < n; v++) {
    x[v] = g.lonE7[v] * cosLat;
    y[v] = g.latE7[v];
  }
  return [x, y];
}

/** Undirected adjacency over the arcs (both directions, duplicates harmless), as offsets and neighbours. */
function undirectedAdjacency(g: BoundGraph): { adjFirst: Uint32Array; adj: Int32Array } {
  const n = g.nodeCount;
  const adjFirst = new Uint32Array(n + 1);
  const m = g.arcTail.length;
  for (let e = 0; e < m; e++) {
    const a = g.arcTail[e],
      b = g.arcHead[e];
    if (a === b) continue;
    adjFirst[a + 1]++;
    adjFirst[b + 1]++;
  }
  for (let v = 0; v < n; v++) adjFirst[v + 1] += adjFirst[v];
  const adj = new Int32Array(adjFirst[n]);
  const fill = adjFirst.slice(0, n);
  for (let e = 0; e < m; e++) {
    const a = g.arcTail[e],
      b = g.arcHead[e];
    if (a === b) continue;
    adj[fill[a]++] = b;
    adj[fill[b]++] = a;
  }
  return { adjFirst, adj };
}

/**
 * The separator of a cut of part `id` (nodes `sorted`, sides in `side`): the cut edges covered by
 * the side with fewer endpoints on the cut.
 */
function separatorOf(
  sorted: ArrayLike<number>,
  id: number,
  adj: Int32Array,
  adjFirst: Uint32Array,
  part: Int32Array,
  side: Uint8Array,
): number[] {
  const coverA: number[] = [];
  const coverB: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const v = sorted[i];
    for (let k = adjFirst[v]; k < adjFirst[v + 1]; k++) {
      const w = adj[k];
      if (part[w] === id && side[w] !== side[v]) {
        (side[v] === 1 ? coverA : coverB).push(v);
        break;
      }
    }
  }
  return coverA.length <= coverB.length ? coverA : coverB;
}
