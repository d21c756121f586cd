/**
 * The search's own memory layout of a graph: nodes renumbered along a Hilbert curve of their
 * coordinates, edges grouped by their (renumbered) source node, and every per-edge constant the
 * search reads per label copied into that order (turn table, flags, free-flow speeds, bounds).
 *
 * An A* expands a wavefront: the labels it touches one after another are close on the map. In
 * the graph's own order (import order = OSM node ids; a generated grid row by row) map neighbours
 * can lie far apart in memory, so nearly every label touch is a cache miss in each of a dozen
 * per-edge arrays. Along a Hilbert curve, nodes close on the map are mostly close in memory too
 * (on the 1M-edge grid, which row-major order already favours: −11 % time per query at the AM
 * peak, the same labels). The layout is private to the search: edge ids in and out of
 * `TdAstar.search` are the graph's, so nothing stored (routes, learned profiles, analytics) sees it.
 */
import type { Graph, TurnRestrictions } from '../../network/graph.js';
import type { TrafficModel } from '../../traffic/model.js';

/** Hilbert-curve index (d2xy's inverse) of cell (x, y) in a 2^order × 2^order square. */
export function hilbertIndex(order: number, x: number, y: number): number {
  let d = 0;
  for (let s = 2 ** (order - 1); s >= 1; s /= 2) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      const t = x;
      x = y;
      y = t;
    }
  }
  return d;
}

/** Node ids of `g` in Hilbert-curve order of their coordinates (ties by id): position → node. */
export function hilbertNodeOrder(g: Graph, order = 16): Uint32Array {
  const n = g.nodeCount;
  let minLat = Infinity,
    maxLat = -Infinity,
    minLon = Infinity,
    maxLon = -Infinity;
  for (let v = 0; v < n; v++) {
    const la = g.nodeLatE7[v],
      lo = g.nodeLonE7[v];
    if (la < minLat) minLat = la;
    if (la > maxLat) maxLat = la;
    if (lo < minLon) minLon = lo;
    if (lo > maxLon) maxLon = lo;
  }
  const cells = 2 ** order;
  const sLat = (cells - 1) / Math.max(1, maxLat - minLat);
  const sLon = (cells - 1) / Math.max(1, maxLon - minLon);
  const key = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    key[v] = hilbertIndex(
      order,
      Math.floor((g.nodeLonE7[v] - minLon) * sLon),
      Math.floor((g.nodeLatE7[v] - minLat) * sLat),
    );
  }
  const ids = new Uint32Array(n);
  for (let v = 0; v < n; v++) ids[v] = v;
  return ids.sort((a, b) => key[a] - key[b] || a - b);
}

/** `SearchLayout.edgeFlags` bit: the edge is not usable at all (not routable, or reversible) */
export const UNUSABLE = 1 << 15;
/** `SearchLayout.edgeFlags` bit: a target edge of the running search (set and cleared by the search) */
export const TARGET = 1 << 14;

/** Per-edge and per-node tables of the search, in its own order (see the module comment). */
export class SearchLayout {
  readonly nodeCount: number;
  readonly edgeCount: number;
  /** internal node → graph node, and back */
  readonly extNode: Uint32Array;
  readonly intNode: Uint32Array;
  /** internal edge → graph edge, and back */
  readonly extEdge: Uint32Array;
  readonly intEdge: Uint32Array;
  /** CSR over internal ids: out edges of internal node v are firstOut[v] … firstOut[v+1]-1 */
  readonly firstOut: Uint32Array;
  /** internal head node of each internal edge */
  readonly edgeTarget: Uint32Array;
  /**
   * the graph's EdgeFlag bits, plus UNUSABLE and the running search's TARGET mark: one array
   * read per relaxation answers "usable?", "excluded?", "penalised?" and "a target?"
   */
  readonly edgeFlags: Uint16Array;
  /** fastest traversal (upper speed bound), seconds */
  readonly minTT: Float64Array;
  /** length × 3.6 (metres → seconds at km/h), as the traffic model computes it */
  readonly lenX36: Float64Array;
  /** the traffic model's predicted-layer constants (same Float32 values: bit-identical times) */
  readonly profileGroup: Uint8Array;
  readonly freeFlowKph: Float32Array;
  readonly upperKph: Float32Array;
  /**
   * turnDelay[turnCode[turnOff[e] + k]] = delay (s) from edge e onto the k-th out edge of its
   * head; -1 = forbidden turn. Turn delays take few distinct values (signal, stop, give-way and
   * plain delays by turn kind), so a movement stores a one-byte code (two when a graph has more
   * than 255 values): a quarter of the memory of Float32 delays, fewer cache misses per label.
   */
  readonly turnOff: Uint32Array;
  readonly turnCode: Uint8Array | Uint16Array;
  readonly turnDelay: Float32Array;

  constructor(
    model: TrafficModel,
    restrictions: TurnRestrictions,
    usable: Uint8Array,
    nodeOrder: Uint32Array = hilbertNodeOrder(model.graph),
  ) {
    const g = model.graph;
    const n = (this.nodeCount = g.nodeCount);
    const m = (this.edgeCount = g.edgeCount);
    this.extNode = nodeOrder;
    this.intNode = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.intNode[nodeOrder[i]] = i;
    this.firstOut = new Uint32Array(n + 1);
    this.extEdge = new Uint32Array(m);
    this.intEdge = new Uint32Array(m);
    let k = 0;
    for (let i = 0; i < n; i++) {
      const v = nodeOrder[i];
      for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++, k++) {
        this.extEdge[k] = e;
        this.intEdge[e] = k;
      }
      this.firstOut[i + 1] = k;
    }
    this.edgeTarget = new Uint32Array(m);
    this.edgeFlags = new Uint16Array(m);
    this.minTT = new Float64Array(m);
    this.lenX36 = new Float64Array(m);
    this.profileGroup = new Uint8Array(m);
    this.freeFlowKph = new Float32Array(m);
    this.upperKph = new Float32Array(m);
    for (let f = 0; f < m; f++) {
      const e = this.extEdge[f];
      this.edgeTarget[f] = this.intNode[g.edgeTarget[e]];
      if (g.edgeFlags[e] & (UNUSABLE | TARGET)) throw new Error("EdgeFlag bits 14 and 15 are the search layout's own");
      this.edgeFlags[f] = g.edgeFlags[e] | (usable[e] === 0 ? UNUSABLE : 0);
      this.minTT[f] = model.minTravelTimeS(e);
      this.lenX36[f] = g.edgeLengthM[e] * 3.6;
      this.profileGroup[f] = model.profileGroup[e];
      this.freeFlowKph[f] = model.freeFlowKph[e];
      this.upperKph[f] = model.upperKph[e];
    }
    // Turn table: every (edge, next edge) movement costed once at load; restrictions folded in.
    this.turnOff = new Uint32Array(m + 1);
    for (let f = 0; f < m; f++) {
      const w = this.edgeTarget[f];
      this.turnOff[f + 1] = this.turnOff[f] + (this.firstOut[w + 1] - this.firstOut[w]);
    }
    const delays = new Float32Array(this.turnOff[m]);
    const restricted = new Uint8Array(m);
    for (let i = 0; i < g.restrictionFrom.length; i++) restricted[g.restrictionFrom[i]] = 1;
    const turns = model.turns;
    for (let f = 0; f < m; f++) {
      const e = this.extEdge[f];
      const w = this.edgeTarget[f];
      let j = this.turnOff[f];
      for (let h = this.firstOut[w]; h < this.firstOut[w + 1]; h++, j++) {
        const x = this.extEdge[h];
        delays[j] = restricted[e] && !restrictions.isTurnAllowed(e, x) ? -1 : turns.costS(e, x);
      }
    }
    ({ codes: this.turnCode, values: this.turnDelay } = encodeTurnDelays(delays));
  }
}

/** Codes of the distinct values of `delays` (exact: values are Float32 either way) and the values by code. */
export function encodeTurnDelays(delays: Float32Array): { codes: Uint8Array | Uint16Array; values: Float32Array } {
  const codeOf = new Map<number, number>();
  for (let i = 0; i < delays.length; i++) if (!codeOf.has(delays[i])) codeOf.set(delays[i], codeOf.size);
  if (codeOf.size > 65_536) throw new Error(`${codeOf.size} distinct turn delays: more than a two-byte code holds`);
  const codes = codeOf.size <= 256 ? new Uint8Array(delays.length) : new Uint16Array(delays.length);
  for (let i = 0; i < delays.length; i++) codes[i] = codeOf.get(delays[i])!;
  const values = new Float32Array(Math.max(1, codeOf.size));
  for (const [x, c] of codeOf) values[c] = x;
  return { codes, values };
}
