/**
 * The search's potential: a lower bound (seconds, or metres in shortest mode) on the cost from
 * the head of an edge to the nearest target. One interface over three sources of bounds:
 * - CCH potentials: exact distances in a lower-bound metric (free flow, or a time window's, in
 *   seconds or in a time warp's work units converted per label from the label's own time);
 * - ALT landmarks: the best triangle bounds of the few landmarks chosen for the trip;
 * - great-circle distance (shortest mode).
 * Bounds are scaled by the discount factor (preferred edges cost less than their time) and by a
 * search's weight (≥ 1: weighted A*, which the alternatives' penalised rounds use), and
 * shaved by 1e-4 so Float32 tables never overestimate. Landmark bounds are cached per node for
 * the current search (`prepare` invalidates the cache).
 */
import type { Graph } from '../../network/graph.js';
import { haversineM } from '../../geo/spherical.js';
import type { Landmarks } from './landmarks.js';
import type { CchMetric } from './cch/customize.js';
import { CchPotential } from './cch/potential.js';
import { boundNodesAt } from './cch/bound-graph.js';
import type { TimeWarp } from './time-warp.js';
import type { SearchLayout } from './layout.js';
import type { CchBounds } from './search-types.js';

/** Lower bounds of one search at a time, by the search's internal edge ids. */
export class LowerBound {
  /** per-node cache of the landmark and straight-line bounds, made on the first pass that uses them (CCH passes do not) */
  private hNode = new Float64Array(0);
  private hGen = new Uint32Array(0);
  /** stamp of the per-node landmark bound cache (hGen) */
  private hStamp = 0;
  /** landmark tables of the running search's active landmarks, and their values at the targets */
  private hFrom: Float32Array[] = [];
  private hTo: Float32Array[] = [];
  private hFromT = new Float64Array(0);
  private hToT = new Float64Array(0);
  private active: number[] = [];
  private targetNodes: number[] = [];
  private scale = 1;
  private shortest = false;
  /** landmark table of the running search */
  private table: Landmarks;
  /** CCH potentials (exact distances in a lower-bound metric), or null: landmarks only */
  private readonly potential: CchPotential | null;
  /** metric of the running search's CCH potentials, or null (landmarks) */
  private metric: CchMetric | null = null;
  /** time warp of a warped metric (potentials are work, converted per label), or null (seconds) */
  private warp: TimeWarp | null = null;
  /** unix second where the warp starts */
  private warpOriginS = 0;
  /** CCH rank of the bound node at the head of each (internal) edge (CCH mode) */
  private readonly headRank: Int32Array | null;
  private readonly boundTargets: number[] = [];
  /** the running search has the previous one's targets (`begin`) */
  private keepPotential = false;
  /** free-flow lower bound between the sources and targets of the last landmark choice, seconds */
  chosenBound = 0;

  constructor(
    private readonly g: Graph,
    private readonly layout: SearchLayout,
    /** the free-flow landmark tables */
    private readonly landmarks: Landmarks,
    /** landmarks used per query (the best for that origin/destination) */
    private readonly activeLandmarks: number,
    /** CCH lower bounds, or null */
    private readonly cch: CchBounds | null,
    /** the CCH rank of every internal edge's head when computed once for the graph, or null */
    headRank: Int32Array | null = null,
  ) {
    this.table = landmarks;
    this.potential = cch === null ? null : new CchPotential(cch.topo);
    if (cch === null) this.headRank = null;
    else if (headRank !== null) this.headRank = headRank;
    else {
      const { bound, rankOf } = cch.topo;
      this.headRank = new Int32Array(g.edgeCount);
      for (let f = 0; f < this.headRank.length; f++) this.headRank[f] = rankOf[bound.headNode[layout.extEdge[f]]];
    }
  }

  /** True when the search has bounds for fastest routes (landmarks or a CCH). */
  get hasBounds(): boolean {
    return this.landmarks.nodes.length > 0 || this.cch !== null;
  }

  /**
   * Starts a search towards `targetNodes` (graph ids): shortest mode, the discount `scale` (≤ 1)
   * and the weight (≥ 1; above 1 the bounds are inflated and the search finds a path within that
   * factor of the optimum). `sameTargets`: the previous search had the same targets, so CCH
   * potentials it evaluated in a metric this one uses again are kept.
   */
  begin(targetNodes: number[], shortest: boolean, scale: number, weight = 1, sameTargets = false): void {
    this.keepPotential = sameTargets;
    this.targetNodes = targetNodes;
    this.shortest = shortest;
    this.scale = scale * weight;
    this.warp = null;
  }

  /** Great-circle bounds (shortest mode) or zero (no landmarks and no CCH): the free-flow landmark tables. */
  useNone(): void {
    this.table = this.landmarks;
    this.metric = null;
  }

  /** Free-flow bounds: the CCH's free-flow metric, or the free-flow landmark tables. */
  useFreeFlow(): void {
    this.table = this.landmarks;
    this.metric = this.cch === null ? null : this.cch.freeFlow;
    this.warp = null;
  }

  /** A time window's bounds: its CCH metric (warp from `warpOriginS`), or its landmark tables. */
  useWindow(table: Landmarks, metric: CchMetric | null, warp: TimeWarp | null, warpOriginS: number): void {
    this.table = table;
    this.metric = metric;
    this.warp = metric === null ? null : warp;
    this.warpOriginS = warpOriginS;
  }

  /** Picks the active landmarks of the current table: the best bounds between the source and target nodes. */
  chooseLandmarks(sourceNodes: number[]): void {
    const lm = this.table;
    const targetNodes = this.targetNodes;
    const scored: Array<[number, number]> = [];
    for (let k = 0; k < lm.nodes.length; k++) {
      let s = 0;
      for (const v of sourceNodes)
        for (const t of targetNodes) {
          const a = lm.fromL[k][t] - lm.fromL[k][v];
          const b = lm.toL[k][v] - lm.toL[k][t];
          const x = Math.max(a === a ? a : 0, b === b ? b : 0);
          if (x > s && x !== Infinity) s = x;
        }
      scored.push([s, k]);
    }
    scored.sort((x, y) => y[0] - x[0]);
    this.chosenBound = scored.length > 0 ? scored[0][0] : 0;
    this.active = scored.slice(0, this.activeLandmarks).map((x) => x[1]);
  }

  /** Readies the bounds now set for a pass: clears the per-node cache, caches the targets' values. */
  prepare(): void {
    if (++this.hStamp === 0xffffffff) {
      this.hGen.fill(0);
      this.hStamp = 1;
    }
    if (this.metric === null && this.hNode.length === 0) {
      this.hNode = new Float64Array(this.g.nodeCount);
      this.hGen = new Uint32Array(this.g.nodeCount);
    }
    if (this.shortest) return;
    if (this.metric !== null) {
      const bt = this.boundTargets;
      bt.length = 0;
      for (const u of this.targetNodes) boundNodesAt(this.g, this.cch!.topo.bound, u, bt);
      this.potential!.reset(this.metric, bt, this.keepPotential);
      return;
    }
    const lm = this.table;
    const act = this.active;
    const tn = this.targetNodes;
    this.hFrom = act.map((k) => lm.fromL[k]);
    this.hTo = act.map((k) => lm.toL[k]);
    const n = tn.length * act.length;
    if (this.hFromT.length < n) {
      this.hFromT = new Float64Array(n);
      this.hToT = new Float64Array(n);
    }
    for (let i = 0, j = 0; i < tn.length; i++) {
      for (let l = 0; l < act.length; l++, j++) {
        this.hFromT[j] = this.hFrom[l][tn[i]];
        this.hToT[j] = this.hTo[l][tn[i]];
      }
    }
  }

  /** Lower bound from the head of internal edge e, reached at `timeS` (unix seconds), to the nearest target. */
  at(e: number, timeS: number): number {
    if (this.metric !== null) {
      const h = this.potential!.atRank(this.headRank![e]);
      if (h === Infinity) return h;
      const warp = this.warp;
      if (warp === null) return h * this.scale * 0.9999;
      // work still to do from the label's own arrival time, converted to seconds
      return warp.remainingS(timeS - this.warpOriginS, h * 0.9999) * this.scale;
    }
    const v = this.layout.edgeTarget[e];
    if (this.hGen[v] === this.hStamp) return this.hNode[v];
    // landmark tables and coordinates are by graph node
    const x = this.layout.extNode[v];
    const best = this.shortest ? this.greatCircleM(x) : this.landmarkS(x);
    // Float32 tables: shave a hair so rounding never overestimates
    const h = best === Infinity ? Infinity : best * this.scale * 0.9999;
    this.hNode[v] = h;
    this.hGen[v] = this.hStamp;
    return h;
  }

  /** Great-circle distance from graph node x to the nearest target node, metres. */
  private greatCircleM(x: number): number {
    const g = this.g;
    const tn = this.targetNodes;
    const lat1 = g.nodeLatE7[x] / 1e7,
      lon1 = g.nodeLonE7[x] / 1e7;
    let best = Infinity;
    for (let i = 0; i < tn.length; i++) {
      const d = haversineM(lat1, lon1, g.nodeLatE7[tn[i]] / 1e7, g.nodeLonE7[tn[i]] / 1e7);
      if (d < best) best = d;
    }
    return best;
  }

  /** Max over the active landmarks of both triangle bounds, min over the target nodes, seconds. */
  private landmarkS(x: number): number {
    const tn = this.targetNodes;
    const hFrom = this.hFrom,
      hTo = this.hTo,
      fromT = this.hFromT,
      toT = this.hToT;
    const k = hFrom.length;
    let best = Infinity;
    for (let i = 0, j = 0; i < tn.length; i++) {
      let lb = 0;
      for (let l = 0; l < k; l++, j++) {
        const a = fromT[j] - hFrom[l][x];
        if (a > lb) lb = a;
        const b = hTo[l][x] - toT[j];
        if (b > lb) lb = b;
      }
      if (lb < best) best = lb;
    }
    return best;
  }
}
