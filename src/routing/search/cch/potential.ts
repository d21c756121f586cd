/**
 * CH-potentials (Strasser & Zeitz, "Using incremental many-to-one queries to build a fast and
 * tight heuristic for A* in road networks", 2021) over a customized CCH: the exact distance, in
 * the customized lower-bound metric, from any bound node to the nearest target bound node.
 *
 * Per query, one backward elimination-tree search from the targets gives `toTarget[x]` for the
 * targets' ancestors (the only nodes a downward path into a target can come from). The potential
 * of a node v is then min(toTarget[v], min over upward arcs v→y of up(v,y) + potential(y)):
 * every shortest path is up-then-down in a CH, so this is exact, and it is computed lazily,
 * over the metric's kept arcs only (perfect customization drops the arcs no shortest path needs),
 * memoized, only for the nodes the A* touches (and their ancestors). A node's ancestors are
 * computed before it (top-down along its elimination-tree path), which keeps the invariant
 * "memoized ⇒ every ancestor memoized" and needs no recursion.
 */
import type { CchTopology } from './topology.js';
import type { CchMetric } from './customize.js';

/** Lazily evaluated lower-bound distances to a set of target nodes. */
export class CchPotential {
  /**
   * position in `ancestors` of each rank that is an ancestor of a target in the current query, −1
   * elsewhere (reset through the previous query's list): 4 bytes a node where a per-node distance
   * and stamp took 12
   */
  private readonly ancestorAt: Int32Array;
  /** the current targets' ancestors (ranks, ascending) and their distance down to a target */
  private ancestors: number[] = [];
  private toTarget = new Float64Array(64);
  /** potential by rank; NaN = not evaluated in this query (reset through `touched`) */
  private readonly memo: Float64Array;
  /** ranks memoized in this query */
  private readonly touched: Int32Array;
  private touchedCount = 0;
  private metric: CchMetric | null = null;
  private readonly path: number[] = [];
  /** potentials evaluated since the last reset (nodes), for statistics */
  evaluated = 0;

  constructor(private readonly topo: CchTopology) {
    const n = topo.nodeCount;
    this.ancestorAt = new Int32Array(n).fill(-1);
    this.memo = new Float64Array(n).fill(NaN);
    this.touched = new Int32Array(n);
  }

  /**
   * Starts a query: distances to the nearest of `targetNodes` (bound nodes) under `metric`.
   * `sameTargets`: the caller's targets are the previous query's, so when the metric is too
   * (metrics are never changed once customized) the potentials evaluated so far are kept.
   */
  reset(metric: CchMetric, targetNodes: readonly number[], sameTargets = false): void {
    if (sameTargets && metric === this.metric) {
      this.evaluated = 0;
      return;
    }
    this.metric = metric;
    this.evaluated = 0;
    const memo = this.memo,
      touched = this.touched;
    for (let i = 0; i < this.touchedCount; i++) memo[touched[i]] = NaN;
    this.touchedCount = 0;
    const { rankOf, parent } = this.topo;
    const { first, head } = metric;
    const at = this.ancestorAt;
    for (const r of this.ancestors) at[r] = -1;
    // the targets' ancestors, ascending
    const anc: number[] = [];
    for (const t of targetNodes) {
      for (let r = rankOf[t]; r >= 0 && at[r] !== 0; r = parent[r]) {
        at[r] = 0;
        anc.push(r);
      }
    }
    anc.sort((a, b) => a - b);
    if (this.toTarget.length < anc.length) this.toTarget = new Float64Array(anc.length * 2);
    const toTarget = this.toTarget;
    for (let i = 0; i < anc.length; i++) {
      at[anc[i]] = i;
      toTarget[i] = Infinity;
    }
    for (const t of targetNodes) toTarget[at[rankOf[t]]] = 0;
    this.ancestors = anc;
    const down = metric.down;
    for (let i = 0; i < anc.length; i++) {
      const dx = toTarget[i];
      if (dx === Infinity) continue;
      for (let a = first[anc[i]], end = first[anc[i] + 1]; a < end; a++) {
        const y = at[head[a]]; // an upward neighbour is an ancestor
        const d = dx + down[a]; // y → x → … → target
        if (d < toTarget[y]) toTarget[y] = d;
      }
    }
  }

  /** Lower-bound distance from bound node `v` to the nearest target (Infinity when none is reachable). */
  at(v: number): number {
    return this.atRank(this.topo.rankOf[v]);
  }

  /** `at` of the bound node of rank `r0` (the search keeps ranks per edge: one lookup less per label). */
  atRank(r0: number): number {
    const memo = this.memo;
    const m0 = memo[r0];
    if (m0 === m0) return m0; // not NaN: evaluated in this query
    const parent = this.topo.parent;
    const { first, head, up } = this.metric!;
    const toTarget = this.toTarget,
      at = this.ancestorAt;
    const path = this.path;
    path.length = 0;
    for (let r = r0; r >= 0; r = parent[r]) {
      const m = memo[r];
      if (m === m) break;
      path.push(r);
    }
    const touched = this.touched;
    let tc = this.touchedCount;
    for (let i = path.length - 1; i >= 0; i--) {
      const r = path[i];
      const p = at[r];
      let best = p >= 0 ? toTarget[p] : Infinity;
      for (let a = first[r], end = first[r + 1]; a < end; a++) {
        const d = up[a] + memo[head[a]];
        if (d < best) best = d;
      }
      memo[r] = best;
      touched[tc++] = r;
    }
    this.touchedCount = tc;
    this.evaluated += path.length;
    return memo[r0];
  }
}
