/**
 * Metric-independent part of the customizable contraction hierarchy: contracting the nodes in
 * nested-dissection order without witness searches yields a chordal supergraph of the road graph
 * (every pair of higher neighbours of a node is joined). It is stored in rank space as upward arcs
 * (lower rank → higher rank, sorted by head) in CSR form, with the elimination tree (parent =
 * lowest higher neighbour): the upward search space of a node is exactly its elimination-tree
 * ancestors. Built once per graph; speeds are applied by `customize`.
 */
import type { BoundGraph } from './bound-graph.js';
import { nestedDissectionOrder } from './order.js';

/** The contraction's shape: upward arcs in rank space plus the input-arc → arc map. */
export interface CchTopology {
  /** the bound graph it contracts */
  bound: BoundGraph;
  nodeCount: number;
  /** rank of each bound node */
  rankOf: Int32Array;
  /** arcs of rank r: upHead[upFirst[r] .. upFirst[r+1]-1] (ranks, ascending) */
  upFirst: Uint32Array;
  upHead: Int32Array;
  /** elimination-tree parent of each rank, -1 at a root */
  parent: Int32Array;
  /** per bound-graph arc: its CCH arc, or -1 (a loop) */
  inputArc: Int32Array;
  /** per bound-graph arc: 1 when it runs from the CCH arc's lower end to its higher end */
  inputUpward: Uint8Array;
}

/** Orders the bound graph by nested dissection and builds the chordal upward graph. */
export function buildCchTopology(g: BoundGraph): CchTopology {
  const n = g.nodeCount;
  const rankOf = nestedDissectionOrder(g);
  const up: number[][] = new Array(n);
  for (let r = 0; r < n; r++) up[r] = [];
  const m = g.arcTail.length;
  for (let e = 0; e < m; e++) {
    const a = rankOf[g.arcTail[e]],
      b = rankOf[g.arcHead[e]];
    if (a === b) continue;
    if (a < b) up[a].push(b);
    else up[b].push(a);
  }
  // elimination: the higher neighbours of r become a clique; adding them to r's lowest higher
  // neighbour (its elimination-tree parent) is enough, since the parent is eliminated next among them
  const parent = new Int32Array(n).fill(-1);
  let arcCount = 0;
  for (let r = 0; r < n; r++) {
    const list = up[r];
    if (list.length === 0) continue;
    list.sort((a, b) => a - b);
    let k = 0;
    for (let i = 0; i < list.length; i++) if (i === 0 || list[i] !== list[i - 1]) list[k++] = list[i];
    list.length = k;
    arcCount += k;
    const p = list[0];
    parent[r] = p;
    const pl = up[p];
    for (let i = 1; i < k; i++) pl.push(list[i]);
  }
  const upFirst = new Uint32Array(n + 1);
  const upHead = new Int32Array(arcCount);
  for (let r = 0, a = 0; r < n; r++) {
    upFirst[r] = a;
    const list = up[r];
    for (let i = 0; i < list.length; i++) upHead[a++] = list[i];
    up[r] = [];
  }
  upFirst[n] = arcCount;
  const inputArc = new Int32Array(m).fill(-1);
  const inputUpward = new Uint8Array(m);
  for (let e = 0; e < m; e++) {
    const a = rankOf[g.arcTail[e]],
      b = rankOf[g.arcHead[e]];
    if (a === b) continue;
    const lo = a < b ? a : b,
      hi = a < b ? b : a;
    inputArc[e] = findArc(upFirst, upHead, lo, hi);
    inputUpward[e] = a < b ? 1 : 0;
  }
  return { bound: g, nodeCount: n, rankOf, upFirst, upHead, parent, inputArc, inputUpward };
}

/** Index of the arc lo → hi (binary search in lo's sorted heads); -1 when absent. */
export function findArc(upFirst: Uint32Array, upHead: Int32Array, lo: number, hi: number): number {
  let a = upFirst[lo],
    b = upFirst[lo + 1] - 1;
  while (a <= b) {
    const m = (a + b) >> 1;
    const h = upHead[m];
    if (h === hi) return m;
    if (h < hi) a = m + 1;
    else b = m - 1;
  }
  return -1;
}
