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
  private readonly toTarget: Float64Array;
  private readonly targetStamp: Uint32Array;
  /** potential by rank; NaN = not evaluated in this query (reset through `touched`) */
  private readonly memo: Float64Array;
  /** ranks memoized in this query */
  private readonly touched: Int32Array;
  private touchedCount = 0;
  private stamp = 0;
  private metric: CchMetric | null = null;
  private readonly path: number[] = [];
  /** potentials evaluated since the last reset (nodes), for statistics */
  evaluated = 0;

  constructor(private readonly topo: CchTopology) {
    const n = topo.nodeCount;
    this.toTarget = new Float64Array(n);
    this.targetStamp = new Uint32Array(n);
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
    if (++this.stamp === 0xffffffff) {
      this.targetStamp.fill(0);
      this.stamp = 1;
    }
    const s = this.stamp;
    const { rankOf, parent } = this.topo;
    const { first, head } = metric;
    const toTarget = this.toTarget,
      ts = this.targetStamp;
    // the targets' ancestors, ascending
    const anc: number[] = [];
    for (const t of targetNodes) {
      for (let r = rankOf[t]; r >= 0 && ts[r] !== s; r = parent[r]) {
        ts[r] = s;
        toTarget[r] = Infinity;
        anc.push(r);
      }
    }
    for (const t of targetNodes) toTarget[rankOf[t]] = 0;
    anc.sort((a, b) => a - b);
    const down = metric.down;
    for (let i = 0; i < anc.length; i++) {
      const x = anc[i];
      const dx = toTarget[x];
      if (dx === Infinity) continue;
      for (let a = first[x], end = first[x + 1]; a < end; a++) {
        const y = head[a];
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
      ts = this.targetStamp,
      s = this.stamp;
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
      let best = ts[r] === s ? toTarget[r] : Infinity;
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
