/**
 * Customization of the CCH with one metric, in three phases (Dibbelt, Strasser & Wagner,
 * "Customizable Contraction Hierarchies", 2016):
 *
 * 1. *Basic*: per-edge travel-time bounds (seconds, or work of a time warp) plus each bound-graph
 *    arc's turn delay become arc weights in both directions (`up` = lower rank → higher rank,
 *    `down` = higher → lower); then every lower triangle x–y–z (x below y below z, all joined)
 *    relaxes the arc y–z through x, nodes in ascending rank. Afterwards the weight of an arc is the
 *    shortest distance between its ends through lower-ranked nodes, which makes
 *    upward-then-downward paths exact.
 * 2. *Perfect*: nodes in descending rank, every arc x–y takes the exact distance between its ends,
 *    min(basic(x, y), min over the other upper neighbours z of x of basic(x, z) + exact(z, y))
 *    (the first node above x on a shortest path is an upper neighbour of x; z–y is already exact).
 * 3. *Pruning*: a direction x→y of an arc is dropped when its exact distance is reached through
 *    another upper neighbour z of the lower end x (x→z then z–y, both arcs positive): strictly
 *    shorter (then no shortest path needs it, Dibbelt et al.'s metric-dependent hierarchy) or
 *    *tied* (decision 010). Ties matter on regular street grids, where equal-cost paths are
 *    everywhere (a real street network has almost none). Dropping a tied direction keeps every
 *    potential exact: by induction over the distance to the target, the first arc of some
 *    shortest path from any node is kept — a tied up arc is replaced by a lighter up arc of the
 *    same node (its weight falls, so this ends), a tied down arc by a path whose first down hop
 *    ranks higher (its rank rises, so this ends) — which needs every weight positive; a metric
 *    with a zero-weight arc (a zero-length edge) drops strict improvements only. Arcs needed in
 *    neither direction are dropped. The metric keeps the remaining arcs only, in their own CSR
 *    arrays (on the 1M-edge test grid 37 % of the chordal arcs; 45 % when ties were kept), which
 *    makes each potential evaluation cheaper.
 *
 * The work can be cut into slices (`CchCustomization.advance`), so a metric is rebuilt in the
 * background between requests. Weights are Float32 (half the memory of Float64); callers shave a
 * hair off distances so rounding never overestimates.
 */
import type { CchTopology } from './topology.js';

/** Arc weights of one metric over its kept upward arcs (rank space). */
export interface CchMetric {
  /** arcs of rank r: first[r] .. first[r+1]-1 */
  first: Uint32Array;
  /** higher end (rank) of each arc */
  head: Int32Array;
  /** weight of arc a in the upward direction (lower rank → higher rank) */
  up: Float32Array;
  /** weight of arc a in the downward direction (higher rank → lower rank) */
  down: Float32Array;
}

/**
 * Without ties, an arc direction is dropped only when its exact distance is below its basic
 * weight by more than Float32 rounding of the triangle sums could explain (keeping a few extra
 * arcs is exact; dropping a needed one would not be).
 */
const PRUNE_MARGIN = 1 - 1e-5;
/**
 * A triangle can prove a tie only when each of its two arcs is more than this share of the tied
 * arc: both are then clearly lighter than it, in Float32 too, so replacements cannot go in circles.
 * Ties are compared in Float32, as the weights are stored; the search's 0.9999 shave of every
 * potential absorbs the rounding of the replacement paths.
 */
const TIE_SIDE = 1e-6;

/** Options of a customization run. */
export interface CustomizeOptions {
  /** drop arc directions whose exact distance ties with a path through another node (default true) */
  dropTies?: boolean;
}

/** An incremental customization run. */
export class CchCustomization {
  private readonly up: Float32Array;
  private readonly down: Float32Array;
  /** next node of the basic phase (ascending), then of the perfect phase (descending, from nodeCount) */
  private next = 0;
  private phase: 'basic' | 'perfect' | 'compact' | 'done' = 'basic';
  /** arcs needed in some direction (counted by the perfect phase) and arcs written by the compaction */
  private kept = 0;
  private written = 0;
  /** per arc: bit 1 = the upward direction is needed, bit 2 = the downward one */
  private readonly needed: Uint8Array;
  private result: CchMetric | null = null;
  private pu = new Float64Array(64);
  private pd = new Float64Array(64);
  private tu = new Float64Array(64);
  private td = new Float64Array(64);
  /** tied directions are dropped (asked for, and every input weight is positive) */
  private readonly ties: boolean;

  /**
   * `edgeTimeS[e]` = lower bound of graph edge e's travel time (without turns), seconds (or work
   * units of a time warp, with `turnScale` = work per second of turn delay)
   */
  constructor(
    private readonly topo: CchTopology,
    edgeTimeS: Float32Array | Float64Array,
    turnScale = 1,
    opts: CustomizeOptions = {},
  ) {
    const m = topo.upHead.length;
    const up = new Float32Array(m).fill(Infinity);
    const down = new Float32Array(m).fill(Infinity);
    const { inputArc, inputUpward } = topo;
    const { arcEdge, arcTurnS } = topo.bound;
    for (let e = 0; e < inputArc.length; e++) {
      const a = inputArc[e];
      if (a < 0) continue;
      const w = edgeTimeS[arcEdge[e]] + arcTurnS[e] * turnScale;
      if (inputUpward[e]) {
        if (w < up[a]) up[a] = w;
      } else if (w < down[a]) down[a] = w;
    }
    this.up = up;
    this.down = down;
    let positive = opts.dropTies ?? true;
    for (let a = 0; a < m && positive; a++) if (up[a] <= 0 || down[a] <= 0) positive = false;
    this.ties = positive;
    this.needed = new Uint8Array(m);
  }

  /** True when every phase has run. */
  get done(): boolean {
    return this.phase === 'done';
  }

  /** The customized metric (its kept arcs); only once `done`. */
  get metric(): CchMetric {
    if (this.phase !== 'done' || this.result === null) throw new Error('CCH customization not finished');
    return this.result;
  }

  /**
   * The metric so far, once the basic phase is done: every chordal arc with its current weights,
   * or null before. Basic weights already make up-then-down distances exact, and the perfect
   * phase only lowers a weight towards its arc's exact distance, so potentials over it are exact at
   * every step; they are only slower than the finished metric's (no arc dropped yet). The arrays
   * are the customization's own: later slices lower them in place.
   */
  get interim(): CchMetric | null {
    if (this.phase === 'basic') return null;
    if (this.phase === 'done') return this.result;
    return { first: this.topo.upFirst, head: this.topo.upHead, up: this.up, down: this.down };
  }

  /** Runs the next phases until about `budget` arc pairs (or arcs, when compacting) were visited; true when done. */
  advance(budget = Infinity): boolean {
    let work = 0;
    if (this.phase === 'basic') {
      work += this.basic(budget);
      if (this.next < this.topo.nodeCount) return false;
      this.phase = 'perfect';
      this.next = this.topo.nodeCount;
    }
    if (this.phase === 'perfect') {
      work += this.perfect(budget - work);
      if (this.next > 0) return false;
      const n = this.topo.nodeCount,
        kept = this.kept;
      this.result = {
        first: new Uint32Array(n + 1),
        head: new Int32Array(kept),
        up: new Float32Array(kept),
        down: new Float32Array(kept),
      };
      this.phase = 'compact';
    }
    if (this.phase === 'compact') {
      this.compact(budget - work);
      if (this.next < this.topo.nodeCount) return false;
      this.phase = 'done';
    }
    return true;
  }

  private basic(budget: number): number {
    const { upFirst, upHead, nodeCount } = this.topo;
    const up = this.up,
      down = this.down;
    let work = 0;
    let x = this.next;
    for (; x < nodeCount && work < budget; x++) {
      const end = upFirst[x + 1];
      for (let i = upFirst[x]; i < end; i++) {
        const y = upHead[i];
        const upXY = up[i],
          downXY = down[i]; // x→y, y→x
        let k = upFirst[y];
        for (let j = i + 1; j < end; j++) {
          const z = upHead[j];
          while (upHead[k] !== z) k++; // z is a higher neighbour of y (chordality)
          // y→x→z improves y→z; z→x→y improves z→y
          const a = downXY + up[j];
          if (a < up[k]) up[k] = a;
          const b = down[j] + upXY;
          if (b < down[k]) down[k] = b;
        }
        work += end - i;
      }
    }
    this.next = x;
    return work;
  }

  private perfect(budget: number): number {
    const { upFirst, upHead } = this.topo;
    const up = this.up,
      down = this.down;
    let work = 0;
    let x = this.next;
    while (x > 0 && work < budget) {
      x--;
      const start = upFirst[x],
        end = upFirst[x + 1];
      const deg = end - start;
      if (this.pu.length < deg) {
        this.pu = new Float64Array(deg * 2);
        this.pd = new Float64Array(deg * 2);
        this.tu = new Float64Array(deg * 2);
        this.td = new Float64Array(deg * 2);
      }
      const pu = this.pu,
        pd = this.pd,
        tu = this.tu,
        td = this.td;
      for (let i = start; i < end; i++) {
        pu[i - start] = up[i];
        pd[i - start] = down[i];
        tu[i - start] = Infinity;
        td[i - start] = Infinity;
      }
      // every triangle x–y–z with y < z above x: arc y–z (k) is exact already; pu/pd take the
      // minimum with the basic weight, tu/td the triangles only whose two arcs are both positive
      for (let i = start; i < end; i++) {
        const y = upHead[i];
        const upXY = up[i],
          downXY = down[i];
        let k = upFirst[y];
        for (let j = i + 1; j < end; j++) {
          const z = upHead[j];
          while (upHead[k] !== z) k++;
          const upYZ = up[k],
            downYZ = down[k];
          const upXZ = up[j],
            downXZ = down[j];
          // x→z→y and y→z→x for the arc x–y
          let a = upXZ + downYZ;
          if (a < tu[i - start] && upXZ > a * TIE_SIDE && downYZ > a * TIE_SIDE) tu[i - start] = a;
          if (a < pu[i - start]) pu[i - start] = a;
          a = upYZ + downXZ;
          if (a < td[i - start] && upYZ > a * TIE_SIDE && downXZ > a * TIE_SIDE) td[i - start] = a;
          if (a < pd[i - start]) pd[i - start] = a;
          // x→y→z and z→y→x for the arc x–z
          a = upXY + upYZ;
          if (a < tu[j - start] && upXY > a * TIE_SIDE && upYZ > a * TIE_SIDE) tu[j - start] = a;
          if (a < pu[j - start]) pu[j - start] = a;
          a = downYZ + downXY;
          if (a < td[j - start] && downYZ > a * TIE_SIDE && downXY > a * TIE_SIDE) td[j - start] = a;
          if (a < pd[j - start]) pd[j - start] = a;
        }
        work += end - i;
      }
      this.settleArcs(start, end);
    }
    this.next = x;
    return work;
  }

  /**
   * Marks the upward arcs [start, end) of one node needed or not and stores their exact weights
   * (from `pu`/`pd`): a direction is needed unless a triangle reaches its exact distance: strictly
   * shorter, or tied (Float32, as stored) through two positive arcs (`tu`/`td`).
   */
  private settleArcs(start: number, end: number): void {
    const { up, down, needed, pu, pd, tu, td } = this;
    const tie = this.ties;
    const fr = Math.fround;
    for (let i = start; i < end; i++) {
      const eu = pu[i - start],
        ed = pd[i - start];
      let n = 0;
      if (tie) {
        if (eu !== Infinity && !(fr(tu[i - start]) <= fr(eu))) n |= 1;
        if (ed !== Infinity && !(fr(td[i - start]) <= fr(ed))) n |= 2;
      } else {
        if (eu !== Infinity && !(eu < up[i] * PRUNE_MARGIN)) n |= 1;
        if (ed !== Infinity && !(ed < down[i] * PRUNE_MARGIN)) n |= 2;
      }
      needed[i] = n;
      if (n !== 0) this.kept++;
      up[i] = eu;
      down[i] = ed;
    }
  }

  /**
   * Copies the kept arcs of the next nodes (ascending) into the metric's CSR arrays; a direction
   * not needed keeps its exact distance, which is harmless.
   */
  private compact(budget: number): void {
    const { upFirst, upHead, nodeCount } = this.topo;
    const needed = this.needed;
    const { first, head, up, down } = this.result!;
    let k = this.written;
    let work = 0;
    let x = this.next;
    for (; x < nodeCount && work < budget; x++) {
      first[x] = k;
      const end = upFirst[x + 1];
      for (let a = upFirst[x]; a < end; a++) {
        if (needed[a] === 0) continue;
        head[k] = upHead[a];
        up[k] = this.up[a];
        down[k] = this.down[a];
        k++;
      }
      work += end - upFirst[x] + 1;
    }
    if (x === nodeCount) first[nodeCount] = k;
    this.written = k;
    this.next = x;
  }
}

/** Customizes the edge travel-time bounds `edgeTimeS` over `topo` at once. */
export function customize(
  topo: CchTopology,
  edgeTimeS: Float32Array | Float64Array,
  turnScale = 1,
  opts: CustomizeOptions = {},
): CchMetric {
  const c = new CchCustomization(topo, edgeTimeS, turnScale, opts);
  c.advance();
  return c.metric;
}
