/**
 * One pass of the time-dependent A* on an edge-based state (a label per directed edge = arrival
 * at its end), so turn restrictions and turn costs are exact. FIFO evaluation: each edge is
 * costed at the instant the vehicle enters it (after the turn delay). Two seams: edge costs come
 * from the traffic model (`EdgeCosts`: its travel times by the search's edge ids; turn costs are
 * its turn table in the layout); lower bounds from one potential (`LowerBound`, set by `TdAstar`).
 * State is typed arrays reused across queries with a generation counter (not reentrant: one
 * search at a time). The label queue is a bucket queue (pops within 1/32 s of the minimum; labels
 * reopen, so answers stay exact). Labels live in the search's own edge order (`SearchLayout`);
 * edge ids in and out are the graph's.
 */
import type { Graph, TurnRestrictions } from '../../network/graph.js';
import type { TrafficModel } from '../../traffic/model.js';
import type { Landmarks } from './landmarks.js';
import { BucketQueue } from './bucket-queue.js';
import { SearchLayout, TARGET, UNUSABLE } from './layout.js';
import { EdgeCosts } from './edge-costs.js';
import { LowerBound } from './lower-bound.js';
import {
  costFactor,
  SHORTEST_UTURN_M,
  type CchBounds,
  type SearchOptions,
  type SearchPath,
  type SearchPrepared,
  type SearchSource,
  type SearchTarget,
} from './search-types.js';

/** Labels, queue and the passes of one search at a time over one graph and traffic model. */
export class LabelSearch {
  protected readonly g: Graph;
  private readonly cost: Float64Array;
  private readonly time: Float64Array;
  private readonly parent: Int32Array;
  /** key of a label's latest queue entry (−1 once settled): older entries are stale */
  private readonly pushedKey: Float64Array;
  private readonly gen: Uint32Array;
  /**
   * The search's own node and edge order (Hilbert curve; `layout.ts`) with the per-edge constants
   * it reads per label: every array of this class indexed by edge or node uses internal ids;
   * edges in (sources, targets, options' edge factors) and out (paths) are the graph's.
   */
  readonly layout: SearchLayout;
  /** travel times of edges (the traffic model's) */
  readonly costs: EdgeCosts;
  /** the lower bounds (potential) of the running pass */
  protected readonly bound: LowerBound;
  /** internal target edges whose TARGET bit the running search set (cleared by the next run) */
  private readonly flagged: number[] = [];
  /** generation stamp per node: some out edge of the node got a label in the current search */
  private readonly outSeen: Uint32Array;
  /** label queues: seconds (buckets of 1/32 s) and metres (shortest mode, buckets of 1/8 m) */
  private readonly timeQueue = new BucketQueue(1 / 32);
  private readonly lengthQueue = new BucketQueue(1 / 8);
  /** label queue and label generation of the running search */
  protected queue: BucketQueue = this.timeQueue;
  protected generation = 0;
  /** cost of the best target found by the running search (kept across resumed passes) */
  protected best = Infinity;
  private bestPrev = -1;
  private bestTarget = -1;
  private bestArrival = 0;
  private bestSource = -1;
  /** source index of each source edge of the running search */
  private readonly sourceOf = new Map<number, number>();
  /** labels settled by the running search's earlier passes */
  private settledBefore = 0;
  /** options and targets of the running search, and what the options make of every relaxation */
  private o: SearchOptions | null = null;
  private targets: SearchTarget[] = [];
  /** internal ids of the running search's target edges, by target index */
  private targetEdges = new Int32Array(0);
  private simple = true;
  private exclude = UNUSABLE;
  /** the last pass stopped because its min key passed its abort key (`lastAbortKey`) */
  protected lastAborted = false;
  protected lastAbortKey = 0;
  /** labels settled by the last search (every pass) */
  lastSettled = 0;
  /** labels of the last pass dropped at push as dead ends (every way on already as good) */
  lastDeadEnds = 0;
  /** true when the last search stopped at `maxSettled` before finishing */
  lastExhausted = false;

  constructor(
    private readonly model: TrafficModel,
    landmarks: Landmarks,
    restrictions: TurnRestrictions,
    /** 1 when an edge is usable at all (routable, not reversible) */
    private readonly usable: Uint8Array,
    activeLandmarks: number,
    cch: CchBounds | null,
    /** the layout and head ranks built once for this graph, or null: built here */
    prepared: SearchPrepared | null = null,
  ) {
    const g = (this.g = model.graph);
    this.layout = prepared?.layout ?? new SearchLayout(model, restrictions, usable);
    this.costs = new EdgeCosts(model, this.layout);
    this.bound = new LowerBound(g, this.layout, landmarks, activeLandmarks, cch, prepared?.headRank ?? null);
    this.cost = new Float64Array(g.edgeCount);
    this.time = new Float64Array(g.edgeCount);
    this.parent = new Int32Array(g.edgeCount);
    this.pushedKey = new Float64Array(g.edgeCount);
    this.gen = new Uint32Array(g.edgeCount);
    this.outSeen = new Uint32Array(g.nodeCount);
  }

  /**
   * One A* pass. `resume`: continue the previous pass of the same search (same labels, queue and
   * best target) with the bounds now set: its open labels are re-keyed with them. Labels keep
   * their exact costs whichever bounds ordered them, and every label whose cost improved is in the
   * queue, so the search stays exact as long as the new bounds hold along the optimal path — which
   * the caller checks as before (the answer's arrival within the new coverage).
   */
  protected run(
    sources: SearchSource[],
    targets: SearchTarget[],
    depS: number,
    o: SearchOptions,
    abortKey = Infinity,
    resume = false,
  ): SearchPath | null {
    this.queue = o.shortest ? this.lengthQueue : this.timeQueue;
    this.o = o;
    this.targets = targets;
    this.simple = o.penaltyFlags === 0 && o.discountFlags === 0 && o.edgeFactor === null;
    this.exclude = o.excludeFlags | UNUSABLE;
    this.bound.prepare();
    if (resume) this.rekeyOpenLabels();
    else this.startSearch();
    this.markTargets(targets);
    this.costs.begin(o.q);
    if (!resume) for (let si = 0; si < sources.length; si++) this.seedSource(sources[si], si, depS);
    const settled = this.settle(abortKey);
    this.lastSettled = settled;
    this.settledBefore += settled;
    return this.best === Infinity ? null : this.pathFound(sources, settled);
  }

  /** Starts a new search: a new label generation, an empty queue, no target reached. */
  private startSearch(): void {
    if (++this.generation === 0xffffffff) {
      this.gen.fill(0);
      this.outSeen.fill(0);
      this.generation = 1;
    }
    this.queue.clear();
    this.best = Infinity;
    this.bestPrev = -1;
    this.bestTarget = -1;
    this.bestArrival = 0;
    this.bestSource = -1;
    this.sourceOf.clear();
    this.settledBefore = 0;
  }

  /** Re-keys the open labels of the previous pass with the bounds now set. */
  private rekeyOpenLabels(): void {
    const queue = this.queue;
    const pushedKey = this.pushedKey;
    const open: number[] = [];
    while (queue.length > 0) {
      const e = queue.pop();
      if (queue.lastKey === pushedKey[e]) open.push(e);
    }
    queue.clear();
    for (const e of open) this.push(e, this.cost[e]);
  }

  /** Sets the TARGET bit of the targets' edges (clearing the previous search's). */
  private markTargets(targets: SearchTarget[]): void {
    const L = this.layout;
    const edgeFlags = L.edgeFlags;
    if (this.targetEdges.length < targets.length) this.targetEdges = new Int32Array(targets.length);
    for (let ti = 0; ti < targets.length; ti++) this.targetEdges[ti] = L.intEdge[targets[ti].edge];
    for (const f of this.flagged) edgeFlags[f] &= ~TARGET;
    this.flagged.length = 0;
    for (let ti = 0; ti < targets.length; ti++) {
      edgeFlags[this.targetEdges[ti]] |= TARGET;
      this.flagged.push(this.targetEdges[ti]);
    }
  }

  /** Labels the end of source `si`'s edge, and reaches a target ahead of it on the same edge. */
  private seedSource(s: SearchSource, si: number, depS: number): void {
    const o = this.o!;
    const e = s.edge; // the graph's id; its label is at layout.intEdge[e]
    const fac = this.usable[e] === 0 ? 0 : costFactor(this.g.edgeFlags[e], e, o);
    if (fac === 0) return;
    const t0 = depS + s.offsetS;
    const tt = this.model.travelTimeS(o.q, e, t0);
    if (tt === Infinity) return;
    const base = o.shortest ? this.g.edgeLengthM[e] : tt;
    const offsetCost = o.shortest ? (s.offsetS > 0 ? SHORTEST_UTURN_M : 0) : s.offsetS;
    const targets = this.targets;
    for (let ti = 0; ti < targets.length; ti++) {
      const t = targets[ti];
      if (t.edge === e && t.fraction >= s.fraction) {
        const c = offsetCost + (t.fraction - s.fraction) * base * fac;
        if (c < this.best) {
          this.best = c;
          this.bestPrev = -1;
          this.bestTarget = ti;
          this.bestSource = si;
          this.bestArrival = t0 + (t.fraction - s.fraction) * tt;
        }
      }
    }
    const c = offsetCost + (1 - s.fraction) * base * fac;
    const ie = this.layout.intEdge[e];
    if (this.gen[ie] !== this.generation || c < this.cost[ie]) {
      this.gen[ie] = this.generation;
      this.cost[ie] = c;
      this.time[ie] = t0 + (1 - s.fraction) * tt;
      this.parent[ie] = -1;
      this.sourceOf.set(ie, si);
      this.push(ie, c);
    }
  }

  /** Queues label e (cost c) keyed by its cost plus its lower bound. */
  private push(e: number, c: number): void {
    const k = c + this.bound.at(e, this.time[e]);
    this.pushedKey[e] = k;
    this.queue.push(e, k);
  }

  /** Settles labels in key order until a target is proven best, the coverage is left or the limit is hit. */
  private settle(abortKey: number): number {
    const queue = this.queue;
    const pushedKey = this.pushedKey;
    const maxSettled = this.o!.maxSettled - this.settledBefore;
    let settled = 0;
    this.lastExhausted = false;
    this.lastAborted = false;
    this.lastDeadEnds = 0;
    while (queue.length > 0) {
      const minKey = queue.peekKey();
      if (minKey >= this.best) break;
      if (minKey > abortKey) {
        this.lastAborted = true;
        this.lastAbortKey = minKey;
        break;
      }
      const e = queue.pop();
      if (queue.lastKey !== pushedKey[e]) continue; // stale entry (a better label was pushed, or already settled)
      pushedKey[e] = -1;
      if (++settled > maxSettled) {
        this.lastExhausted = true;
        break;
      }
      this.relax(e);
    }
    return settled;
  }

  /** Relaxes every allowed turn out of settled label e (the hot loop: no allocation). */
  protected relax(e: number): void {
    const L = this.layout;
    const { cost, time, gen, outSeen } = this;
    const { edgeTarget, firstOut, turnDelay, turnCode, edgeFlags, minTT } = L;
    const o = this.o!;
    const shortest = o.shortest;
    const exclude = this.exclude;
    const simple = this.simple;
    const curGen = this.generation;
    const ce = cost[e];
    const te = time[e];
    const v = edgeTarget[e];
    const f0 = firstOut[v];
    const tBase = L.turnOff[e] - f0;
    for (let f = f0, end = firstOut[v + 1]; f < end; f++) {
      const tc = turnDelay[turnCode[tBase + f]];
      if (tc < 0) continue; // turn restriction
      const fl = edgeFlags[f];
      if ((fl & exclude) !== 0) continue;
      const fac = simple ? 1 : costFactor(fl, L.extEdge[f], o);
      // cheap prune: even at its fastest, this way into f is no better than f's label
      if (!shortest && gen[f] === curGen && (fl & TARGET) === 0 && ce + tc + minTT[f] * fac >= cost[f]) continue;
      const tEnter = te + tc;
      const tt = this.costs.travelTimeS(f, tEnter);
      if (tt === Infinity) continue;
      const stepTurn = shortest ? this.uturnM(e, f) : tc;
      const base = shortest ? this.g.edgeLengthM[L.extEdge[f]] : tt;
      const cTurn = ce + stepTurn;
      if ((fl & TARGET) !== 0) this.reachTarget(e, f, cTurn, base, fac, tEnter, tt);
      const nc = cTurn + base * fac;
      if (gen[f] !== curGen || nc < cost[f]) {
        outSeen[v] = curGen;
        gen[f] = curGen;
        cost[f] = nc;
        time[f] = tEnter + tt;
        this.parent[f] = e;
        if (!shortest && (fl & TARGET) === 0 && outSeen[edgeTarget[f]] === curGen && this.dropDeadEnd(f, nc)) {
          this.lastDeadEnds++;
          this.pushedKey[f] = -1; // an older queue entry of f is stale now
          continue;
        }
        this.push(f, nc);
      }
    }
  }

  /** Shortest mode's turn cost from internal edge e onto f: a U-turn costs SHORTEST_UTURN_M. */
  private uturnM(e: number, f: number): number {
    const g = this.g;
    const xe = this.layout.extEdge[e],
      xf = this.layout.extEdge[f];
    return g.edgeTwin[xe] === xf || g.edgeSource[xe] === g.edgeTarget[xf] ? SHORTEST_UTURN_M : 0;
  }

  /** Records the targets on edge f reached from label e when they beat the best so far. */
  private reachTarget(
    e: number,
    f: number,
    cTurn: number,
    base: number,
    fac: number,
    tEnter: number,
    tt: number,
  ): void {
    const targets = this.targets;
    for (let ti = 0; ti < targets.length; ti++) {
      if (this.targetEdges[ti] !== f) continue;
      const t = targets[ti];
      const c = cTurn + t.fraction * base * fac;
      if (c < this.best) {
        this.best = c;
        this.bestPrev = e;
        this.bestTarget = ti;
        this.bestArrival = tEnter + t.fraction * tt;
      }
    }
  }

  /**
   * Whether to drop the new label f (cost nc) at push: fastest routes drop dead ends. A test
   * subclass keeps them (`td-astar.test-support.ts`).
   */
  protected dropDeadEnd(f: number, nc: number): boolean {
    return this.isDeadEnd(f, nc);
  }

  /**
   * A dead end: every way on from f's head already has a label at least as good as the best f
   * could give it (f's cost + the turn + the fastest traversal), so f, once settled, would push
   * nothing; labels only improve, so that stays true. Such labels are ~40 % of the pushes on a
   * grid at the peak (a node reached again from a worse side); skipping them saves their bound,
   * their queue entry and their settling. The caller passes over a head none of whose out edges
   * has a label yet (the first arrival) unread.
   */
  protected isDeadEnd(f: number, nc: number): boolean {
    const L = this.layout;
    const { gen, cost } = this;
    const { firstOut, turnDelay, turnCode, edgeFlags, minTT } = L;
    const o = this.o!;
    const curGen = this.generation;
    const w = L.edgeTarget[f];
    const tb = L.turnOff[f] - firstOut[w];
    for (let g2 = firstOut[w], end = firstOut[w + 1]; g2 < end; g2++) {
      const tc2 = turnDelay[turnCode[tb + g2]];
      if (tc2 < 0) continue;
      const fl2 = edgeFlags[g2];
      if ((fl2 & this.exclude) !== 0) continue;
      if (gen[g2] !== curGen || (fl2 & TARGET) !== 0) return false;
      const fac2 = this.simple ? 1 : costFactor(fl2, L.extEdge[g2], o);
      if (nc + tc2 + minTT[g2] * fac2 < cost[g2]) return false;
    }
    return true;
  }

  /** The path to the best target found, in graph edge ids. */
  private pathFound(sources: SearchSource[], settled: number): SearchPath {
    const target = this.targets[this.bestTarget];
    const extEdge = this.layout.extEdge;
    const edges: number[] = [];
    let sourceIndex = this.bestSource;
    if (this.bestPrev >= 0) {
      let first = this.bestPrev;
      for (let e = this.bestPrev; e >= 0; e = this.parent[e]) {
        edges.push(extEdge[e]);
        first = e;
      }
      edges.reverse();
      sourceIndex = this.sourceOf.get(first) ?? 0;
    }
    edges.push(target.edge);
    return {
      edges,
      startFraction: sources[sourceIndex].fraction,
      endFraction: target.fraction,
      cost: this.best,
      arrivalS: this.bestArrival,
      sourceIndex,
      settled,
    };
  }
}
