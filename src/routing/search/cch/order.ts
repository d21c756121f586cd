/**
 * Nested-dissection node order for the customizable contraction hierarchy (Dibbelt, Strasser &
 * Wagner, "Customizable Contraction Hierarchies", 2016). The order depends only on the graph's
 * shape, never on speeds: speeds enter later, in customization.
 *
 * Separators come from recursive geometric bisection (inertial-style): a part is split at the
 * median of its longer extent (x = longitude scaled by cos(latitude), y = latitude); the edges
 * crossing the cut are covered by the endpoints on one side (the side with fewer of them), and
 * those nodes form the separator. A separator is ranked above both halves, so the halves contract
 * independently. Road networks are near-planar, so such line separators stay small (a grid of
 * side k gets separators of ≤ k nodes). Parts of ≤ `LEAF` nodes are ordered by coordinate.
 */
import type { BoundGraph } from './bound-graph.js';

/** Parts at most this large are not split further. */
const LEAF = 2;

/** rank[node] of every bound node (0 = contracted first); isolated nodes get the lowest ranks. */
export function nestedDissectionOrder(g: BoundGraph): Int32Array {
  const n = g.nodeCount;
  const rank = new Int32Array(n).fill(-1);
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  let latSum = 0;
  for (let v = 0; v < n; v++) latSum += g.latE7[v];
  const cosLat = Math.cos(((n > 0 ? latSum / n : 0) / 1e7) * (Math.PI / 180));
  for (let v = 0; v < n; v++) {
    x[v] = g.lonE7[v] * cosLat;
    y[v] = g.latE7[v];
  }
  // undirected adjacency over the arcs (both directions, duplicates harmless)
  const adjFirst = new Uint32Array(n + 1);
  const m = g.arcTail.length;
  for (let e = 0; e < m; e++) {
    const a = g.arcTail[e], b = g.arcHead[e];
    if (a === b) continue;
    adjFirst[a + 1]++;
    adjFirst[b + 1]++;
  }
  for (let v = 0; v < n; v++) adjFirst[v + 1] += adjFirst[v];
  const adj = new Int32Array(adjFirst[n]);
  const fill = adjFirst.slice(0, n);
  for (let e = 0; e < m; e++) {
    const a = g.arcTail[e], b = g.arcHead[e];
    if (a === b) continue;
    adj[fill[a]++] = b;
    adj[fill[b]++] = a;
  }

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
  const stack: Array<{ nodes: Int32Array; id: number }> = [{ nodes: Int32Array.from(all), id: partIds }];
  while (stack.length > 0) {
    const { nodes, id } = stack.pop()!;
    if (nodes.length <= LEAF) {
      for (let i = nodes.length - 1; i >= 0; i--) {
        rank[nodes[i]] = next--;
        part[nodes[i]] = 0;
      }
      continue;
    }
    // split at the median of the longer extent
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (let i = 0; i < nodes.length; i++) {
      const v = nodes[i];
      if (x[v] < minX) minX = x[v];
      if (x[v] > maxX) maxX = x[v];
      if (y[v] < minY) minY = y[v];
      if (y[v] > maxY) maxY = y[v];
    }
    const key = maxX - minX >= maxY - minY ? x : y;
    const keys = new Float64Array(nodes.length);
    for (let i = 0; i < nodes.length; i++) keys[i] = key[nodes[i]];
    keys.sort();
    const half = nodes.length >> 1;
    const median = keys[half];
    let ties = half;
    for (let i = 0; i < half; i++) if (keys[i] < median) ties--;
    // below the median → side 1, above → side 2, ties fill side 1 up to half (in id order)
    const sorted = nodes;
    for (let i = 0; i < sorted.length; i++) {
      const v = sorted[i];
      const k = key[v];
      side[v] = k < median || (k === median && ties-- > 0) ? 1 : 2;
    }
    // cut edges covered by the side with fewer endpoints on the cut
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
    const sep = coverA.length <= coverB.length ? coverA : coverB;
    for (let i = sep.length - 1; i >= 0; i--) {
      const v = sep[i];
      rank[v] = next--;
      part[v] = 0;
    }
    const a: number[] = [];
    const b: number[] = [];
    for (const v of sorted) {
      if (part[v] === 0) continue;
      (side[v] === 1 ? a : b).push(v);
    }
    // a part is handed out only after its sibling's subtree (stack order), so parts keep
    // contiguous rank ranges
    for (const sub of [a, b]) {
      if (sub.length === 0) continue;
      const sid = ++partIds;
      for (const v of sub) part[v] = sid;
      stack.push({ nodes: Int32Array.from(sub), id: sid });
    }
  }
  for (const v of isolated) rank[v] = next--;
  return rank;
}
