/**
 * Largest strongly connected component of the road graph (iterative Tarjan), so that routing
 * never starts or ends on an island it cannot leave. Reversible edges are ignored (closed).
 */
import { EdgeFlag } from './graph.js';
import type { Graph } from './graph.js';

/**
 * Component id of every node (by Tarjan, over non-reversible edges) and the id of the largest
 * component (by node count; ties go to the component holding the lowest node id).
 */
export function stronglyConnectedComponents(g: Graph): { comp: Int32Array; largest: number; count: number } {
  const n = g.nodeCount;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const comp = new Int32Array(n).fill(-1);
  const stack = new Int32Array(n);
  let sp = 0;
  const callNode = new Int32Array(n);
  const callEdge = new Uint32Array(n);
  let counter = 0,
    compCount = 0;
  const sizes: number[] = [];
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    let depth = 0;
    callNode[0] = root;
    callEdge[0] = g.firstOut[root];
    index[root] = low[root] = counter++;
    stack[sp++] = root;
    onStack[root] = 1;
    while (depth >= 0) {
      const v = callNode[depth];
      const e = callEdge[depth];
      if (e < g.firstOut[v + 1]) {
        callEdge[depth] = e + 1;
        if ((g.edgeFlags[e] & EdgeFlag.reversible) !== 0) continue;
        const w = g.edgeTarget[e];
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack[sp++] = w;
          onStack[w] = 1;
          depth++;
          callNode[depth] = w;
          callEdge[depth] = g.firstOut[w];
        } else if (onStack[w] && index[w] < low[v]) low[v] = index[w];
        continue;
      }
      // v is finished
      if (low[v] === index[v]) {
        let size = 0,
          w: number;
        do {
          w = stack[--sp];
          onStack[w] = 0;
          comp[w] = compCount;
          size++;
        } while (w !== v);
        sizes.push(size);
        compCount++;
      }
      depth--;
      if (depth >= 0) {
        const u = callNode[depth];
        if (low[v] < low[u]) low[u] = low[v];
      }
    }
  }
  // ascending node order: on equal sizes the component holding the lowest node id wins
  let largest = -1,
    best = 0;
  for (let v = 0; v < n; v++) {
    if (sizes[comp[v]] > best) {
      best = sizes[comp[v]];
      largest = comp[v];
    }
  }
  return { comp, largest, count: compCount };
}

/** Sets EdgeFlag.routable on the edges inside the largest strongly connected component. */
export function markLargestScc(g: Graph): number {
  const { comp, largest } = stronglyConnectedComponents(g);
  const flags = g.edgeFlags as Uint16Array;
  let count = 0;
  for (let e = 0; e < g.edgeCount; e++) {
    const inside =
      comp[g.edgeSource[e]] === largest && comp[g.edgeTarget[e]] === largest && (flags[e] & EdgeFlag.reversible) === 0;
    if (inside) {
      flags[e] |= EdgeFlag.routable;
      count++;
    } else flags[e] &= ~EdgeFlag.routable;
  }
  return count;
}
