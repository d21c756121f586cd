/**
 * One pass of the time-dependent A* on an edge-based state (a label per directed edge = arrival
 * at its end), so turn restrictions and turn costs are exact. FIFO evaluation: each edge is
 * costed at the instant the vehicle enters it (after the turn delay). Two seams: edge costs come
 * from the traffic model (`EdgeCosts`: its travel times by the search's edge ids; turn costs are
 * its turn table in the layout); lower bounds from one potential (`LowerBound`, set by `TdAstar`).
 * Labels, their generation counter, the queue discipline and the settle loop are the shared
 * kernel's (`EdgeSearch`, `src/search/edge-search.ts`); this class parameterises it: entering an
 * edge costs the turn delay plus the edge's time-dependent travel time (or its length in shortest
 * mode), the potential is `LowerBound`'s, the stop rule is "no open label can beat the best
 * target", and dead-end labels are dropped. The label queue is a bucket queue (pops within 1/32 s
 * of the minimum; labels reopen, so answers stay exact). Labels live in the search's own edge
 * order (`SearchLayout`); edge ids in and out are the graph's. The route search relaxes through
 * `InlinedLabelSearch` (`label-search-inlined.ts`): the kernel's relaxation with these hooks
 * written out as one loop; `test/routing/kernel-model.test.ts` requires both to give the same answers.
 */
import type { Graph, TurnRestrictions } from '../../network/graph.js';
import type { TrafficModel } from '../../traffic/model.js';
import type { Landmarks } from './landmarks.js';
import { BucketQueue } from '../../search/bucket-queue.js';
import { EdgeSearch } from '../../search/edge-search.js';
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
export class LabelSearch extends EdgeSearch {
  protected readonly g: Graph;
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
  protected readonly outSeen: Uint16Array;
  /** label queues: seconds (buckets of 1/32 s) and metres (shortest mode, buckets of 1/8 m) */
  private readonly timeQueue: BucketQueue;
  private lengthQueue: BucketQueue | null = null;
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
  protected o: SearchOptions | null = null;
  private targets: SearchTarget[] = [];
  /** internal ids of the running search's target edges, by target index */
  private targetEdges = new Int32Array(0);
  protected simple = true;
  protected exclude = UNUSABLE;
  /** the running pass stops once its min key passes this */
  private abortKey = Infinity;
  /** internal head node of the edge being relaxed by the kernel's loop */
  private head = 0;
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
    const layout = prepared?.layout ?? new SearchLayout(model, restrictions, usable);
    // restrictions are folded into the layout's turn table (a forbidden turn's delay is −1)
    const timeQueue = new BucketQueue(1 / 32);
    super(model.graph.edgeCount, layout, null, timeQueue, { timed: true, directed: true, drops: true });
    this.timeQueue = timeQueue;
    const g = (this.g = model.graph);
    this.layout = layout;
    this.costs = new EdgeCosts(model, this.layout);
    this.bound = new LowerBound(g, this.layout, landmarks, activeLandmarks, cch, prepared?.headRank ?? null);
    this.outSeen = new Uint16Array(g.nodeCount);
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
    // the metres queue is made by a thread's first shortest-route search (most never make one)
    this.queue = o.shortest ? (this.lengthQueue ??= new BucketQueue(1 / 8)) : this.timeQueue;
    this.o = o;
    this.targets = targets;
    this.simple = o.penaltyFlags === 0 && o.discountFlags === 0 && o.edgeFactor === null;
    this.exclude = o.excludeFlags | UNUSABLE;
    this.abortKey = abortKey;
    this.noReopen = o.boundWeight !== undefined && o.boundWeight > 1;
    this.bound.prepare();
    if (resume) this.rekeyOpenLabels();
    else this.startRun();
    this.markTargets(targets);
    this.costs.begin(o.q);
    if (!resume) for (let si = 0; si < sources.length; si++) this.seedSource(sources[si], si, depS);
    this.lastAborted = false;
    this.lastDeadEnds = 0;
    const settled = this.settle(o.maxSettled - this.settledBefore);
    this.lastExhausted = this.exhausted;
    this.lastSettled = settled;
    this.settledBefore += settled;
    return this.best === Infinity ? null : this.pathFound(sources, settled);
  }

  /** Starts a new search: a new label generation, an empty queue, no target reached. */
  private startRun(): void {
    this.startSearch();
    this.best = Infinity;
    this.bestPrev = -1;
    this.bestTarget = -1;
    this.bestArrival = 0;
    this.bestSource = -1;
    this.sourceOf.clear();
    this.settledBefore = 0;
  }

  protected override clearStamps(): void {
    this.outSeen.fill(0);
  }

  /** Re-keys the open labels of the previous pass with the bounds now set. */
  private rekeyOpenLabels(): void {
    const queue = this.queue;
    const pushedKey = this.pushedKey;
    const open: number[] = [];
    while (queue.length > 0) {
      const e = queue.pop();
      if (Math.fround(queue.lastKey) === pushedKey[e]) open.push(e);
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
    if (this.seed(ie, c, t0 + (1 - s.fraction) * tt)) this.sourceOf.set(ie, si);
  }

  /** The kernel's potential: the running pass's lower bound at the label's head and time. */
  protected override potential(e: number): number {
    return this.bound.at(e, this.time[e]);
  }

  /** The kernel's stop rule: no open label can beat the best target, or the pass left its coverage. */
  protected override stopBefore(minKey: number): boolean {
    if (minKey >= this.best) return true;
    if (minKey > this.abortKey) {
      this.lastAborted = true;
      this.lastAbortKey = minKey;
      return true;
    }
    return false;
  }

  /** The kernel's cost at e's head: the label's own (turn delays are costed on entering). */
  protected override leave(e: number, c: number): number {
    this.head = this.layout.edgeTarget[e];
    return c;
  }

  /**
   * The kernel's cost of entering f from e (label cost ce): the turn delay, then f's travel time
   * at the instant it is entered (or its length in shortest mode) times the options' factor;
   * reaches the targets on f on the way. The same steps as `relax`'s loop body.
   */
  protected override enter(e: number, f: number, ce: number): number {
    const L = this.layout;
    const o = this.o!;
    const shortest = o.shortest;
    const tc = L.turnDelay[L.turnCode[L.turnOff[e] - L.firstOut[this.head] + f]];
    if (tc < 0) return Infinity; // turn restriction
    const fl = L.edgeFlags[f];
    if ((fl & this.exclude) !== 0) return Infinity;
    const fac = this.simple ? 1 : costFactor(fl, L.extEdge[f], o);
    const cur = this.generation;
    if (!shortest && this.gen[f] === cur && (fl & TARGET) === 0 && ce + tc + L.minTT[f] * fac >= this.cost[f])
      return Infinity;
    const tEnter = this.time[e] + tc;
    const tt = this.costs.travelTimeS(f, tEnter);
    if (tt === Infinity) return Infinity;
    const base = shortest ? this.g.edgeLengthM[L.extEdge[f]] : tt;
    const cTurn = ce + (shortest ? this.uturnM(e, f) : tc);
    if ((fl & TARGET) !== 0) this.reachTarget(e, f, cTurn, base, fac, tEnter, tt);
    this.arrivalS = tEnter + tt;
    return cTurn + base * fac;
  }

  /** The kernel's keep rule: fastest routes drop dead-end labels (as `relax` does). */
  protected override keep(f: number, nc: number): boolean {
    const cur = this.generation;
    this.outSeen[this.head] = cur;
    const fl = this.layout.edgeFlags[f];
    if (!this.o!.shortest && (fl & TARGET) === 0 && this.outSeen[this.layout.edgeTarget[f]] === cur) {
      if (this.dropDeadEnd(f, nc)) {
        this.lastDeadEnds++;
        return false;
      }
    }
    return true;
  }

  /** Shortest mode's turn cost from internal edge e onto f: a U-turn costs SHORTEST_UTURN_M. */
  protected uturnM(e: number, f: number): number {
    const g = this.g;
    const xe = this.layout.extEdge[e],
      xf = this.layout.extEdge[f];
    return g.edgeTwin[xe] === xf || g.edgeSource[xe] === g.edgeTarget[xf] ? SHORTEST_UTURN_M : 0;
  }

  /** Records the targets on edge f reached from label e when they beat the best so far. */
  protected reachTarget(
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
