import type { BoundGraph } from '../../src/routing/search/cch/bound-graph.js';

/** Distances of every bound node to `targets` (Dijkstra backwards over the bound graph's arcs). */
export function boundDistances(bg: BoundGraph, edgeTimeS: Float32Array, targets: number[]): Float64Array {
  const n = bg.nodeCount;
  const firstIn = new Int32Array(n + 1);
  for (let a = 0; a < bg.arcHead.length; a++) firstIn[bg.arcHead[a] + 1]++;
  for (let v = 0; v < n; v++) firstIn[v + 1] += firstIn[v];
  const pos = firstIn.slice(0, n);
  const inArc = new Int32Array(bg.arcHead.length);
  for (let a = 0; a < bg.arcHead.length; a++) inArc[pos[bg.arcHead[a]]++] = a;
  const d = new Float64Array(n).fill(Infinity);
  const done = new Uint8Array(n);
  const open: number[] = [];
  for (const t of targets) {
    d[t] = 0;
    open.push(t);
  }
  while (open.length > 0) {
    let bi = 0;
    for (let i = 1; i < open.length; i++) if (d[open[i]] < d[open[bi]]) bi = i;
    const x = open[bi];
    open[bi] = open[open.length - 1];
    open.pop();
    if (done[x]) continue;
    done[x] = 1;
    for (let i = firstIn[x]; i < firstIn[x + 1]; i++) {
      const a = inArc[i];
      const u = bg.arcTail[a];
      const nd = d[x] + edgeTimeS[bg.arcEdge[a]] + bg.arcTurnS[a];
      if (nd < d[u]) {
        d[u] = nd;
        open.push(u);
      }
    }
  }
  return d;
}
