/**
 * Time-dependent A* on an edge-based state (a label per directed edge = arrival at its end), so
 * turn restrictions and turn costs are exact. FIFO evaluation: each edge is costed at the instant
 * the vehicle enters it (after the turn delay). Lower bounds: CCH potentials (exact distances in
 * a free-flow or time-window lower-bound metric) or ALT landmarks (fastest), great-circle distance
 * (shortest). Search state (labels, parents, label queue) is typed arrays reused across queries
 * with a generation counter: an instance is not reentrant (one search at a time; Node runs them
 * one after another). The label queue is a bucket queue (pops within 1/32 s of the minimum; labels
 * reopen, so answers stay exact) or, for reference runs, a heap in exact key order. Labels and
 * per-edge constants live in the search's own node/edge order (`SearchLayout`, Hilbert curve);
 * edge ids in and out of `search` are the graph's.
 */
import type { Graph, TurnRestrictions } from '../../network/graph.js';
import type { CostQuery, TrafficModel } from '../../traffic/model.js';
import type { Landmarks } from './landmarks.js';
import { BucketQueue } from './bucket-queue.js';
import { MinHeap } from './heap.js';
import type { WindowBounds } from './window-bounds.js';
import type { CchTopology } from './cch/topology.js';
import type { CchMetric } from './cch/customize.js';
import { CchPotential } from './cch/potential.js';
import { boundNodesAt } from './cch/bound-graph.js';
import type { TimeWarp } from './time-warp.js';
import { SearchLayout, TARGET, UNUSABLE } from './layout.js';
import { SECONDS_PER_WEEK, BIN_SECONDS } from '../../traffic/clock.js';
import { BINS_PER_WEEK } from '../../traffic/feeds.js';

/** Where a search may start: a position on a directed edge, with an initial delay. */
export interface SearchSource {
  edge: number;
  fraction: number;
  /** extra seconds before the start (e.g. a U-turn at an intermediate waypoint) */
  offsetS: number;
}

/** Where a search may end: a position on a directed edge. */
export interface SearchTarget {
  edge: number;
  fraction: number;
}

/** Options of one search. Edge cost = base × product of applicable factors. */
export interface SearchOptions {
  q: CostQuery;
  /** minimise distance instead of time */
  shortest: boolean;
  /** EdgeFlag bits that make an edge unusable */
  excludeFlags: number;
  /** EdgeFlag bits whose edges cost `penaltyFactor` × more */
  penaltyFlags: number;
  penaltyFactor: number;
  /** EdgeFlag bits whose edges cost `discountFactor` (< 1) × (preferences) */
  discountFlags: number;
  discountFactor: number;
  /** per-edge extra factor (alternatives), 0 or 1 = none; or null */
  edgeFactor: Float32Array | null;
  /** stop after settling this many labels (service limit) */
  maxSettled: number;
}

/** A found path: whole edges between a partial first and a partial last edge. */
export interface SearchPath {
  edges: number[];
  /** position on edges[0] where the path starts */
  startFraction: number;
  /** position on the last edge where it ends */
  endFraction: number;
  /** search cost (seconds or metres, with penalties) */
  cost: number;
  /** arrival time, unix seconds */
  arrivalS: number;
  /** index of the source used */
  sourceIndex: number;
  /** labels settled */
  settled: number;
}

/** CCH lower bounds: the contraction of the graph and its free-flow (valid at any time) metric. */
export interface CchBounds {
  topo: CchTopology;
  freeFlow: CchMetric;
}

/** What the search needs of its label queue (BucketQueue and MinHeap both provide it). */
interface LabelQueue {
  readonly length: number;
  lastKey: number;
  clear(): void;
  push(id: number, key: number): void;
  /** a lower bound of every key in the queue */
  peekKey(): number;
  pop(): number;
}

/** Penalty of a U-turn in shortest mode, metres. */
const SHORTEST_UTURN_M = 100;
const RAD = Math.PI / 180;
const BINS = BINS_PER_WEEK;
const BIN_S = BIN_SECONDS;
const WEEK_S = SECONDS_PER_WEEK;
/** groupFeed: the edge's profile group (low bits) and whether it has a learned profile / a live speed */
const GROUP_MASK = 63;
const HAS_LEARNED = 64;
const HAS_LIVE = 128;

/** Reusable time-dependent A* over one graph and traffic model. */
export class TdAstar {
  private readonly g: Graph;
  private readonly cost: Float64Array;
  private readonly time: Float64Array;
  private readonly parent: Int32Array;
  /** key of a label's latest heap entry (−1 once settled): older entries are stale */
  private readonly pushedKey: Float64Array;
  private readonly gen: Uint32Array;
  private readonly hNode: Float64Array;
  private readonly hGen: Uint32Array;
  /**
   * The search's own node and edge order (Hilbert curve; `layout.ts`) with the per-edge constants
   * it reads per label: every array of this class indexed by edge or node uses internal ids;
   * edges in (sources, targets, options' edge factors) and out (paths) are the graph's.
   */
  readonly layout: SearchLayout;
  /** internal target edges whose TARGET bit the running search set (cleared by the next run) */
  private readonly flagged: number[] = [];
  /** generation stamp per node: some out edge of the node got a label in the current search */
  private readonly outSeen: Uint32Array;
  /**
   * per (internal) edge: its profile group | HAS_LEARNED | HAS_LIVE (the feed bits valid for
   * SpeedFeeds.version = feedVersion) — one byte read tells whether the inline predicted layer
   * applies and which curve it reads
   */
  private readonly groupFeed: Uint8Array;
  private feedVersion = -1;
  /** landmark tables of the running search's active landmarks, and their values at the targets */
  private hFrom: Float32Array[] = [];
  private hTo: Float32Array[] = [];
  private hFromT = new Float64Array(0);
  private hToT = new Float64Array(0);
  /** label queues: seconds (buckets of 1/32 s) and metres (shortest mode, buckets of 1/8 m), or one exact heap */
  private readonly timeQueue: LabelQueue;
  private readonly lengthQueue: LabelQueue;
  private generation = 0;
  /** best target found by the running search (kept across resumed passes) */
  private best = Infinity;
  private bestPrev = -1;
  private bestTarget = -1;
  private bestArrival = 0;
  private bestSource = -1;
  /** source index of each source edge of the running search */
  private readonly sourceOf = new Map<number, number>();
  /** labels settled by the running search's earlier passes */
  private settledBefore = 0;
  /** stamp of the per-node landmark bound cache (hGen) */
  private hStamp = 0;
  private active: number[] = [];
  private targetNodes: number[] = [];
  private hScale = 1;
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
  /** internal ids of the running search's target edges, by target index */
  private targetEdges = new Int32Array(0);
  private readonly boundTargets: number[] = [];
  /** free-flow lower bound between the sources and targets of the last landmark choice, seconds */
  private chosenBound = 0;
  /** the last run stopped because its min key left the window coverage (`lastAbortKey`) */
  private lastAborted = false;
  private lastAbortKey = 0;
  /** labels settled by the last search (every pass) */
  lastSettled = 0;
  /** labels of the last pass dropped at push as dead ends (every way on already as good) */
  lastDeadEnds = 0;
  /** drop dead-end labels at push (see run); false only to measure what it saves */
  pruneDeadEnds = true;
  /**
   * Test mode of the dead-end rule: dead ends are marked instead of dropped, and every push or
   * best-target update a marked label makes once settled counts in `deadEndViolations` (0 = the
   * rule only dropped labels that change nothing).
   */
  verifyDeadEnds = false;
  deadEndViolations = 0;
  private claimedDead: Uint32Array | null = null;
  /** which bounds answered the last search: a time-window table, or the free-flow table */
  lastBounds: 'window' | 'freeFlow' | 'none' = 'none';
  /** true when the last search first ran on a window table whose coverage the answer left */
  lastWindowRetry = false;
  /** expected trip time over the free-flow lower bound, for picking a window horizon */
  expectedOverBound = 1.6;
  /** true when the last search stopped at `maxSettled` before finishing */
  lastExhausted = false;

  constructor(
    private readonly model: TrafficModel,
    private readonly landmarks: Landmarks,
    restrictions: TurnRestrictions,
    /** 1 when an edge is usable at all (routable, not reversible) */
    private readonly usable: Uint8Array,
    /** landmarks used per query (the best for that origin/destination) */
    private readonly activeLandmarks = 4,
    /** time-window tables (tighter bounds for current-traffic searches), or null */
    private readonly windows: WindowBounds | null = null,
    /** CCH lower bounds replacing the landmarks for current-traffic and free-flow searches, or null */
    private readonly cch: CchBounds | null = null,
    /** 'buckets': pops within one bucket of the minimum (labels reopen); 'heap': exact key order */
    queue: 'buckets' | 'heap' = 'buckets',
    /**
     * a layout built once for this graph (its `edgeFlags` this search's own: targets are marked
     * in them) and the head ranks of its edges, or null: built here
     */
    prepared: { layout: SearchLayout; headRank: Int32Array | null } | null = null,
  ) {
    if (queue === 'heap') this.timeQueue = this.lengthQueue = new MinHeap(1 << 14);
    else {
      this.timeQueue = new BucketQueue(1 / 32);
      this.lengthQueue = new BucketQueue(1 / 8);
    }
    const g = model.graph;
    const L = (this.layout = prepared?.layout ?? new SearchLayout(model, restrictions, usable));
    this.potential = cch === null ? null : new CchPotential(cch.topo);
    if (cch === null) this.headRank = null;
    else if (prepared?.headRank) this.headRank = prepared.headRank;
    else {
      const { bound, rankOf } = cch.topo;
      this.headRank = new Int32Array(g.edgeCount);
      for (let f = 0; f < this.headRank.length; f++) this.headRank[f] = rankOf[bound.headNode[L.extEdge[f]]];
    }
    this.table = landmarks;
    this.g = g;
    this.cost = new Float64Array(g.edgeCount);
    this.time = new Float64Array(g.edgeCount);
    this.parent = new Int32Array(g.edgeCount);
    this.pushedKey = new Float64Array(g.edgeCount);
    this.gen = new Uint32Array(g.edgeCount);
    this.hNode = new Float64Array(g.nodeCount);
    this.hGen = new Uint32Array(g.nodeCount);
    this.outSeen = new Uint32Array(g.nodeCount);
    if (L.profileGroup.some((x) => x > GROUP_MASK)) throw new Error('more profile groups than groupFeed holds');
    this.groupFeed = Uint8Array.from(L.profileGroup);
  }

  private nextGeneration(): void {
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.gen.fill(0);
      this.outSeen.fill(0);
      this.generation = 1;
    }
    this.nextHeuristicStamp();
  }

  /** Invalidates the landmark bounds cached per node (a new search, or new tables for a resumed one). */
  private nextHeuristicStamp(): void {
    if (++this.hStamp === 0xffffffff) {
      this.hGen.fill(0);
      this.hStamp = 1;
    }
  }

  /** Lower bound (seconds or metres) from the head of (internal) edge e to the nearest target. */
  private heuristic(e: number): number {
    if (this.metric !== null) {
      const h = this.potential!.atRank(this.headRank![e]);
      if (h === Infinity) return h;
      const warp = this.warp;
      if (warp === null) return h * this.hScale * 0.9999;
      // work still to do from the label's own arrival time, converted to seconds
      return warp.remainingS(this.time[e] - this.warpOriginS, h * 0.9999) * this.hScale;
    }
    const v = this.layout.edgeTarget[e];
    if (this.hGen[v] === this.hStamp) return this.hNode[v];
    // landmark tables and coordinates are by graph node
    const x = this.layout.extNode[v];
    let best = Infinity;
    const tn = this.targetNodes;
    if (this.shortest) {
      const g = this.g;
      const lat1 = g.nodeLatE7[x] / 1e7,
        lon1 = g.nodeLonE7[x] / 1e7;
      for (let i = 0; i < tn.length; i++) {
        const d = haversineM(lat1, lon1, g.nodeLatE7[tn[i]] / 1e7, g.nodeLonE7[tn[i]] / 1e7);
        if (d < best) best = d;
      }
    } else {
      // max over the active landmarks of both triangle bounds, min over the target nodes
      const hFrom = this.hFrom,
        hTo = this.hTo,
        fromT = this.hFromT,
        toT = this.hToT;
      const k = hFrom.length;
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
    }
    // Float32 tables: shave a hair so rounding never overestimates
    const h = best === Infinity ? Infinity : best * this.hScale * 0.9999;
    this.hNode[v] = h;
    this.hGen[v] = this.hStamp;
    return h;
  }

  /** Caches the active landmarks' tables and their values at the target nodes for heuristic(). */
  private prepareHeuristic(): void {
    if (this.metric !== null) {
      const bt = this.boundTargets;
      bt.length = 0;
      for (const u of this.targetNodes) boundNodesAt(this.g, this.cch!.topo.bound, u, bt);
      this.potential!.reset(this.metric, bt);
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

  /**
   * Brings groupFeed up to the feeds' version: the edges whose speeds changed since the last sync
   * (every edge when the feeds no longer list that far back).
   */
  private syncFeedFlags(): void {
    const feeds = this.model.feeds;
    if (feeds.version === this.feedVersion) return;
    const fl = this.groupFeed;
    const intEdge = this.layout.intEdge;
    const mark = (e: number): void => {
      let f = fl[intEdge[e]] & ~(HAS_LEARNED | HAS_LIVE);
      if (feeds.hasLearned(e)) f |= HAS_LEARNED;
      if (feeds.liveSpeed(e) !== undefined) f |= HAS_LIVE;
      fl[intEdge[e]] = f;
    };
    const changed = this.feedVersion < 0 ? null : feeds.changedSince(this.feedVersion);
    if (changed !== null) {
      for (let i = 0; i < changed.length; i++) if (changed[i] >= 0 && changed[i] < fl.length) mark(changed[i]);
    } else {
      for (let e = 0; e < fl.length; e++) mark(e);
    }
    this.feedVersion = feeds.version;
  }

  private chooseLandmarks(sourceNodes: number[], targetNodes: number[], lm: Landmarks): void {
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

  /** Multiplier of edge e's cost under the options (0 = unusable); e is the graph's id (sources). */
  private factor(e: number, o: SearchOptions): number {
    if (this.usable[e] === 0) return 0;
    const fl = this.g.edgeFlags[e];
    if (fl & o.excludeFlags) return 0;
    let f = 1;
    if (fl & o.penaltyFlags) f *= o.penaltyFactor;
    if (fl & o.discountFlags) f *= o.discountFactor;
    if (o.edgeFactor !== null) {
      const x = o.edgeFactor[e];
      if (x > 0) f *= x;
    }
    return f;
  }

  /**
   * Best path from any source to any target leaving at `depS` (unix seconds), or null when none
   * exists within `maxSettled` labels. Current-traffic searches first use a time-window table
   * when one is ready and valid; the answer is kept only when its cost proves the optimal path
   * stays inside the table's coverage (every factor ≥ 1, or the discount, bounds time by cost),
   * otherwise the search is resumed on a longer horizon's table or on the free-flow table, which
   * holds at any time.
   */
  search(sources: SearchSource[], targets: SearchTarget[], depS: number, o: SearchOptions): SearchPath | null {
    const g = this.g;
    this.lastWindowRetry = false;
    this.shortest = o.shortest;
    this.hScale = o.discountFlags !== 0 && o.discountFactor < 1 ? o.discountFactor : 1;
    this.targetNodes = [...new Set(targets.map((t) => g.edgeSource[t.edge]))];
    this.warp = null;
    const freeFlowMetric = this.cch === null ? null : this.cch.freeFlow;
    if (o.shortest || (this.landmarks.nodes.length === 0 && freeFlowMetric === null)) {
      this.lastBounds = 'none';
      this.table = this.landmarks;
      this.metric = null;
      return this.run(sources, targets, depS, o);
    }
    const sourceNodes = [...new Set(sources.map((s) => g.edgeTarget[s.edge]))];
    this.chooseLandmarks(sourceNodes, this.targetNodes, this.landmarks);
    if (this.windows !== null && o.q.mode === 0) {
      const q = o.q;
      let w = (q.depWeekS + (depS - q.depUnixS)) % SECONDS_PER_WEEK;
      if (w < 0) w += SECONDS_PER_WEEK;
      const leftInBin = BIN_SECONDS - (w % BIN_SECONDS);
      const expected = this.chosenBound * this.expectedOverBound + 120;
      let settled = 0;
      // smallest horizon expected to hold the trip; a larger one when the answer leaves it
      let horizon = this.windows.horizonFor(Math.max(0, expected - leftInBin));
      let first = true;
      // after the first pass, a longer horizon or free flow resumes it instead of starting over
      let resume = false;
      while (horizon >= 0) {
        // only the table the trip is expected to need is queued for building
        const use = this.windows.tableFor(depS, w, horizon, first);
        first = false;
        if (use === null) {
          horizon = this.windows.nextHorizon(horizon);
          continue;
        }
        this.table = use.table;
        this.metric = use.table.cch;
        this.warp = use.table.cch === null ? null : use.table.warp;
        this.warpOriginS = depS - (w - use.table.binStartWeekS);
        if (this.metric === null) this.chooseLandmarks(sourceNodes, this.targetNodes, use.table);
        // a min key above the coverage proves the answer would leave it: stop there
        const p = this.run(sources, targets, depS, o, (use.validUntilS - depS) * this.hScale, resume);
        resume = true;
        settled += this.lastSettled;
        if (this.lastAborted) {
          this.lastWindowRetry = true;
          const next = this.windows.horizonFor(this.lastAbortKey / this.hScale - leftInBin);
          horizon = next > horizon ? next : -1;
          continue;
        }
        if (p === null || this.lastExhausted || depS + p.cost / this.hScale <= use.validUntilS) {
          this.lastSettled = settled;
          this.lastBounds = 'window';
          return p;
        }
        // the answer's cost bounds the optimal trip: the horizon that holds it is certain to do
        this.lastWindowRetry = true;
        const next = this.windows.horizonFor(p.cost / this.hScale - leftInBin);
        horizon = next > horizon ? next : -1;
      }
      this.warp = null;
      if (settled > 0) {
        this.table = this.landmarks;
        this.metric = freeFlowMetric;
        this.chooseLandmarks(sourceNodes, this.targetNodes, this.landmarks);
        const r = this.run(sources, targets, depS, o, Infinity, true);
        this.lastSettled += settled;
        this.lastBounds = 'freeFlow';
        return r;
      }
    }
    this.table = this.landmarks;
    this.metric = freeFlowMetric;
    this.lastBounds = 'freeFlow';
    return this.run(sources, targets, depS, o);
  }

  /**
   * One A* pass. `resume`: continue the previous pass of the same search (same labels, queue and
   * best target) with the bounds now set: its open labels are re-keyed with them. Labels keep
   * their exact costs whichever bounds ordered them, and every label whose cost improved is in the
   * queue, so the search stays exact as long as the new bounds hold along the optimal path — which
   * the caller checks as before (the answer's arrival within the new coverage).
   */
  private run(
    sources: SearchSource[],
    targets: SearchTarget[],
    depS: number,
    o: SearchOptions,
    abortKey = Infinity,
    resume = false,
  ): SearchPath | null {
    const g = this.g;
    const model = this.model;
    const q = o.q;
    const heap = o.shortest ? this.lengthQueue : this.timeQueue;
    const cost = this.cost,
      time = this.time,
      parent = this.parent,
      gen = this.gen;
    const pushedKey = this.pushedKey;
    if (resume) {
      this.nextHeuristicStamp();
      if (!o.shortest) this.prepareHeuristic();
      const open: number[] = [];
      while (heap.length > 0) {
        const e = heap.pop();
        if (heap.lastKey === pushedKey[e]) open.push(e);
      }
      heap.clear();
      for (const e of open) {
        const k = cost[e] + this.heuristic(e);
        pushedKey[e] = k;
        heap.push(e, k);
      }
    } else {
      this.nextGeneration();
      heap.clear();
      if (!o.shortest) this.prepareHeuristic();
      this.best = Infinity;
      this.bestPrev = -1;
      this.bestTarget = -1;
      this.bestArrival = 0;
      this.bestSource = -1;
      this.sourceOf.clear();
      this.settledBefore = 0;
    }
    const curGen = this.generation;
    let best = this.best;
    let bestPrev = this.bestPrev; // label edge before the target edge (-1: same-edge path)
    let bestTarget = this.bestTarget;
    let bestArrival = this.bestArrival;
    let bestSource = this.bestSource;
    const sourceOf = this.sourceOf;
    const L = this.layout;
    const extEdge = L.extEdge;
    if (this.targetEdges.length < targets.length) this.targetEdges = new Int32Array(targets.length);
    const targetEdges = this.targetEdges;
    for (let ti = 0; ti < targets.length; ti++) targetEdges[ti] = L.intEdge[targets[ti].edge];

    for (let si = 0; si < sources.length && !resume; si++) {
      const s = sources[si];
      const e = s.edge; // the graph's id; its label is at L.intEdge[e]
      const fac = this.factor(e, o);
      if (fac === 0) continue;
      const t0 = depS + s.offsetS;
      const tt = model.travelTimeS(q, e, t0);
      if (tt === Infinity) continue;
      const base = o.shortest ? g.edgeLengthM[e] : tt;
      const offsetCost = o.shortest ? (s.offsetS > 0 ? SHORTEST_UTURN_M : 0) : s.offsetS;
      // same-edge target ahead of the source
      for (let ti = 0; ti < targets.length; ti++) {
        const t = targets[ti];
        if (t.edge === e && t.fraction >= s.fraction) {
          const c = offsetCost + (t.fraction - s.fraction) * base * fac;
          if (c < best) {
            best = c;
            bestPrev = -1;
            bestTarget = ti;
            bestSource = si;
            bestArrival = t0 + (t.fraction - s.fraction) * tt;
          }
        }
      }
      const c = offsetCost + (1 - s.fraction) * base * fac;
      const ie = L.intEdge[e];
      if (gen[ie] !== curGen || c < cost[ie]) {
        gen[ie] = curGen;
        cost[ie] = c;
        time[ie] = t0 + (1 - s.fraction) * tt;
        parent[ie] = -1;
        sourceOf.set(ie, si);
        const k = c + this.heuristic(ie);
        this.pushedKey[ie] = k;
        heap.push(ie, k);
      }
    }

    const turnOff = L.turnOff;
    const turnCode = L.turnCode,
      turnDelay = L.turnDelay;
    const firstOut = L.firstOut;
    const minTT = L.minTT;
    const edgeFlags = L.edgeFlags;
    for (const f of this.flagged) edgeFlags[f] &= ~TARGET;
    this.flagged.length = 0;
    for (let ti = 0; ti < targets.length; ti++) {
      edgeFlags[targetEdges[ti]] |= TARGET;
      this.flagged.push(targetEdges[ti]);
    }
    const shortest = o.shortest;
    const simple = o.penaltyFlags === 0 && o.discountFlags === 0 && o.edgeFactor === null;
    const exclude = o.excludeFlags | UNUSABLE;
    const penaltyFlags = o.penaltyFlags,
      penaltyFactor = o.penaltyFactor;
    const discountFlags = o.discountFlags,
      discountFactor = o.discountFactor;
    const edgeFactor = o.edgeFactor;
    const edgeTarget = L.edgeTarget;
    // Inline copy of TrafficModel.speedKph's predicted layer (same arithmetic, same order, so the
    // times are bit-identical to travelTimeS and path-cost.ts): used for edges that have no
    // learned profile and no live speed in play, when no incident is active in this query.
    this.syncFeedFlags();
    const groupFeed = this.groupFeed;
    const feedMask = (model.feeds.learnedEdgeCount > 0 ? HAS_LEARNED : 0) | (q.useLive ? HAS_LIVE : 0);
    const inline = q.mode !== 2 && q.incidents === null;
    const depWeekS = q.depWeekS,
      depUnixS = q.depUnixS;
    const factors = model.factors;
    const freeFlowKph = L.freeFlowKph,
      upperKph = L.upperKph;
    const minSpeedKph = model.cfg.minSpeedKph;
    const lenX36 = L.lenX36;
    // dead-end labels are dropped at push (fastest routes: the cheap prune's test, applied to
    // every way on at once)
    const deadEnds = this.pruneDeadEnds && !shortest;
    const outSeen = this.outSeen;
    let deadCount = 0;
    // test mode: dead ends stay in the search, marked, and any effect they have is counted
    let claimed: Uint32Array | null = null;
    if (deadEnds && this.verifyDeadEnds) claimed = this.claimedDead ??= new Uint32Array(g.edgeCount);
    let settled = 0;
    const maxSettled = o.maxSettled - this.settledBefore;
    let exhausted = false;
    this.lastAborted = false;
    while (heap.length > 0) {
      const minKey = heap.peekKey();
      if (minKey >= best) break;
      if (minKey > abortKey) {
        this.lastAborted = true;
        this.lastAbortKey = minKey;
        break;
      }
      const e = heap.pop();
      const key = heap.lastKey;
      const ce = cost[e];
      const v = edgeTarget[e];
      if (key !== pushedKey[e]) continue; // stale entry (a better label was pushed, or already settled)
      pushedKey[e] = -1;
      if (++settled > maxSettled) {
        exhausted = true;
        break;
      }
      const te = time[e];
      const f0 = firstOut[v];
      const tBase = turnOff[e] - f0;
      for (let f = f0, end = firstOut[v + 1]; f < end; f++) {
        const tc = turnDelay[turnCode[tBase + f]];
        if (tc < 0) continue; // turn restriction
        // edge factor inline (same rules as factor())
        const fl = edgeFlags[f];
        if ((fl & exclude) !== 0) continue;
        let fac = 1;
        if (!simple) {
          if ((fl & penaltyFlags) !== 0) fac *= penaltyFactor;
          if ((fl & discountFlags) !== 0) fac *= discountFactor;
          if (edgeFactor !== null) {
            const x = edgeFactor[extEdge[f]];
            if (x > 0) fac *= x;
          }
        }
        // cheap prune: even at its fastest, this way into f is no better than f's label
        if (!shortest && gen[f] === curGen && (fl & TARGET) === 0 && ce + tc + minTT[f] * fac >= cost[f]) continue;
        const tEnter = te + tc;
        let tt: number;
        const gb = groupFeed[f];
        if (inline && (gb & feedMask) === 0) {
          let w = depWeekS + (tEnter - depUnixS);
          if (w < 0 || w >= WEEK_S) {
            w %= WEEK_S;
            if (w < 0) w += WEEK_S;
          }
          const x = w / BIN_S - 0.5;
          let b0 = Math.floor(x);
          const frac = x - b0;
          if (b0 < 0) b0 += BINS;
          const b1 = b0 + 1 === BINS ? 0 : b0 + 1;
          const gi = (gb & GROUP_MASK) * BINS;
          const f0 = factors[gi + b0];
          let speed = freeFlowKph[f] * (f0 + (factors[gi + b1] - f0) * frac);
          const up = upperKph[f];
          if (speed > up) speed = up;
          if (speed < minSpeedKph) speed = minSpeedKph;
          if (!(speed > 0)) continue;
          tt = lenX36[f] / speed;
        } else {
          tt = model.travelTimeS(q, extEdge[f], tEnter);
          if (tt === Infinity) continue;
        }
        let stepTurn: number, base: number;
        if (shortest) {
          const xe = extEdge[e],
            xf = extEdge[f];
          stepTurn = g.edgeTwin[xe] === xf || g.edgeSource[xe] === g.edgeTarget[xf] ? SHORTEST_UTURN_M : 0;
          base = g.edgeLengthM[xf];
        } else {
          stepTurn = tc;
          base = tt;
        }
        if ((fl & TARGET) !== 0) {
          for (let ti = 0; ti < targets.length; ti++) {
            if (targetEdges[ti] === f) {
              const t = targets[ti];
              const c = ce + stepTurn + t.fraction * base * fac;
              if (c < best) {
                if (claimed !== null && claimed[e] === curGen) this.deadEndViolations++;
                best = c;
                bestPrev = e;
                bestTarget = ti;
                bestArrival = tEnter + t.fraction * tt;
              }
            }
          }
        }
        const nc = ce + stepTurn + base * fac;
        if (gen[f] !== curGen || nc < cost[f]) {
          if (claimed !== null && claimed[e] === curGen) this.deadEndViolations++;
          outSeen[v] = curGen;
          gen[f] = curGen;
          cost[f] = nc;
          time[f] = tEnter + tt;
          parent[f] = e;
          if (deadEnds && (fl & TARGET) === 0 && outSeen[edgeTarget[f]] === curGen) {
            // A dead end: every way on from f's head already has a label at least as good as the
            // best f could give it (f's time + the turn + the fastest traversal), so f, once
            // settled, would push nothing; labels only improve, so that stays true. Such labels
            // are ~40 % of the pushes on a grid at the peak (a node reached again from a worse
            // side); skipping them saves their bound, their queue entry and their settling. A head
            // none of whose out edges has a label yet (the first arrival) is passed over unread.
            const w = edgeTarget[f];
            const tb = turnOff[f] - firstOut[w];
            let dead = true;
            for (let g2 = firstOut[w], end2 = firstOut[w + 1]; g2 < end2; g2++) {
              const tc2 = turnDelay[turnCode[tb + g2]];
              if (tc2 < 0) continue;
              const fl2 = edgeFlags[g2];
              if ((fl2 & exclude) !== 0) continue;
              if (gen[g2] !== curGen || (fl2 & TARGET) !== 0) {
                dead = false;
                break;
              }
              let fac2 = 1;
              if (!simple) {
                if ((fl2 & penaltyFlags) !== 0) fac2 *= penaltyFactor;
                if ((fl2 & discountFlags) !== 0) fac2 *= discountFactor;
                if (edgeFactor !== null) {
                  const x = edgeFactor[extEdge[g2]];
                  if (x > 0) fac2 *= x;
                }
              }
              if (nc + tc2 + minTT[g2] * fac2 < cost[g2]) {
                dead = false;
                break;
              }
            }
            if (dead) {
              deadCount++;
              if (claimed === null) {
                pushedKey[f] = -1; // an older queue entry of f is stale now
                continue;
              }
              claimed[f] = curGen;
            } else if (claimed !== null) claimed[f] = 0;
          }
          const k = nc + this.heuristic(f);
          pushedKey[f] = k;
          heap.push(f, k);
        }
      }
    }
    this.lastSettled = settled;
    this.lastDeadEnds = deadCount;
    this.settledBefore += settled;
    this.lastExhausted = exhausted;
    this.best = best;
    this.bestPrev = bestPrev;
    this.bestTarget = bestTarget;
    this.bestArrival = bestArrival;
    this.bestSource = bestSource;
    if (best === Infinity) return null;
    const target = targets[bestTarget];
    const edges: number[] = [];
    let startFraction: number;
    if (bestPrev < 0) {
      edges.push(target.edge);
      startFraction = sources[bestSource].fraction;
    } else {
      let first = bestPrev;
      for (let e = bestPrev; e >= 0; e = parent[e]) {
        edges.push(extEdge[e]);
        first = e;
      }
      edges.reverse();
      bestSource = sourceOf.get(first) ?? 0;
      startFraction = sources[bestSource].fraction;
      edges.push(target.edge);
    }
    return {
      edges,
      startFraction,
      endFraction: target.fraction,
      cost: best,
      arrivalS: bestArrival,
      sourceIndex: bestSource,
      settled,
    };
  }
}

function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(a)));
}
