/**
 * Bounded edge-based Dijkstra for HMM transitions: shortest driving distance from a position on
 * one edge to positions on candidate edges, respecting one-ways (directed edges) and turn
 * restrictions (labels are on edges, so a banned turn is simply never relaxed). It is the shared
 * kernel (`EdgeSearch`, `src/search/edge-search.ts`) parameterised as a Dijkstra on distances: a
 * label is the distance to the start of its edge, entering an edge costs the previous edge's
 * length (plus the U-turn penalty), the potential is 0, the queue an exact binary heap, and the
 * stop rule "every target reached, or the bound passed". Not reentrant.
 *
 * The search only runs as far as some target could still be reached within the bound: an edge
 * is not expanded when even the straight line from its end to the nearest target still looked
 * for would overrun it. The straight line is a lower bound of any road distance: nodes are laid
 * out on a plane, and `detour` — the least ratio of an edge's length to the plane distance
 * between its ends, over the whole graph — scales it, so the bound holds whatever the projection
 * and whatever lengths the graph was given. Every edge on a shortest path to a target within the
 * bound passes the test, so the distances and paths found are those of the unpruned search.
 */
import { TurnRestrictions, type EdgeId, type Graph } from '../../network/graph.js';
import { M_PER_DEG } from '../../geo/index.js';
import { EdgeSearch } from '../../search/edge-search.js';
import { HeapQueue } from '../../search/label-queue.js';

/** A position on an edge: where a search starts or what it looks for. */
export interface EdgePosition {
  edge: EdgeId;
  offsetM: number;
}

/** Reusable bounded route-distance search over one graph. */
export class RouteSearch extends EdgeSearch {
  /** generation in which an edge holds a target still to reach (so settled edges skip the target scan) */
  private readonly targetGen: Uint32Array;
  /** number of edges settled by the last search (for benchmarks) */
  settled = 0;
  /** node positions on a plane, metres (east, north) */
  private readonly nodeX: Float64Array;
  private readonly nodeY: Float64Array;
  /** least edge length per metre of plane distance between its ends, over the graph (≤ 1, slightly under) */
  private readonly detour: number;
  /** per target of the current search: plane position of its edge's start, and its offset */
  private tx = new Float64Array(16);
  private ty = new Float64Array(16);
  private toff = new Float64Array(16);
  /** the current search's targets, results, targets still to reach and bound */
  private targets: readonly EdgePosition[] = [];
  private out: Float64Array = new Float64Array(0);
  private remaining = 0;
  private boundM = 0;
  /** the edge being relaxed: its twin, and whether its head is a dead end (U-turns free there) */
  private twin = -1;
  private deadEnd = false;

  /**
   * @param uTurnPenaltyM distance added for turning back onto the twin edge at a node that is not
   *   a dead end (vehicles rarely do; GPS noise near junctions otherwise invites in-and-out wiggles)
   * @param goalBound skip edges from which no target is within reach (off: the plain bounded
   *   search; tests compare the two)
   */
  constructor(
    private readonly graph: Graph,
    private readonly uTurnPenaltyM = 0,
    private readonly goalBound = true,
  ) {
    super(graph.edgeCount, graph, new TurnRestrictions(graph), new HeapQueue(), {
      timed: false,
      directed: false,
      drops: false,
    });
    this.targetGen = new Uint32Array(graph.edgeCount);
    const n = graph.nodeCount;
    this.nodeX = new Float64Array(n);
    this.nodeY = new Float64Array(n);
    let latSum = 0;
    for (let i = 0; i < n; i++) latSum += graph.nodeLatE7[i];
    const kx = M_PER_DEG * Math.cos((n > 0 ? latSum / n / 1e7 : 0) * (Math.PI / 180));
    for (let i = 0; i < n; i++) {
      this.nodeX[i] = (graph.nodeLonE7[i] / 1e7) * kx;
      this.nodeY[i] = (graph.nodeLatE7[i] / 1e7) * M_PER_DEG;
    }
    let detour = 1;
    for (let e = 0; e < graph.edgeCount; e++) {
      const a = graph.edgeSource[e],
        b = graph.edgeTarget[e];
      const plane = Math.hypot(this.nodeX[b] - this.nodeX[a], this.nodeY[b] - this.nodeY[a]);
      if (plane > 0) detour = Math.min(detour, graph.edgeLengthM[e] / plane);
    }
    // a margin for rounding (lengths are stored as float32, distances summed in float64)
    this.detour = Math.max(0, detour * (1 - 1e-5));
  }

  /**
   * Route distances (metres) from `from` to each of `targets`, written into `out` (Infinity when
   * not reachable within `boundM`). A target on the same edge ahead of the start (or behind it by
   * at most `backwardToleranceM`, GPS noise) is reached along the edge without searching.
   * After the call, `pathTo(targetEdge)` gives the edges in between.
   */
  distancesInto(
    from: EdgePosition,
    targets: readonly EdgePosition[],
    boundM: number,
    backwardToleranceM: number,
    out: Float64Array,
  ): void {
    const g = this.graph;
    let remaining = 0;
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i];
      if (t.edge === from.edge && t.offsetM >= from.offsetM - backwardToleranceM)
        out[i] = Math.max(0, t.offsetM - from.offsetM);
      else {
        out[i] = Infinity;
        remaining++;
      }
    }
    this.settled = 0;
    if (remaining === 0) return;
    this.startSearch();
    const gen = this.generation;
    for (let i = 0; i < targets.length; i++) if (out[i] === Infinity) this.targetGen[targets[i].edge] = gen;
    if (this.tx.length < targets.length) {
      this.tx = new Float64Array(targets.length);
      this.ty = new Float64Array(targets.length);
      this.toff = new Float64Array(targets.length);
    }
    for (let i = 0; i < targets.length; i++) {
      const a = g.edgeSource[targets[i].edge];
      this.tx[i] = this.nodeX[a];
      this.ty[i] = this.nodeY[a];
      this.toff[i] = targets[i].offsetM;
    }
    this.targets = targets;
    this.out = out;
    this.remaining = remaining;
    this.boundM = boundM;
    // the start edge is driven from its offset: relaxed from, not labelled
    this.relaxFrom(from.edge, -from.offsetM, -1);
    this.settled = this.settle(Infinity);
  }

  protected override clearStamps(): void {
    this.targetGen.fill(0);
  }

  /** Dijkstra: no potential. */
  protected override potential(): number {
    return 0;
  }

  /**
   * A settled edge, entered at distance d: the targets on it are reached at d plus their offset;
   * the search stops past the bound or once every target is reached.
   */
  protected override settledLabel(e: number): boolean {
    const d = this.cost[e];
    if (d > this.boundM) return true;
    return this.targetGen[e] === this.generation && this.reachTargets(e, d);
  }

  /** Records the targets on edge e entered at distance d; true once every target is reached. */
  private reachTargets(e: number, d: number): boolean {
    const { targets, out } = this;
    for (let i = 0; i < targets.length; i++) {
      if (targets[i].edge === e && out[i] === Infinity) {
        const total = d + targets[i].offsetM;
        if (total <= this.boundM) out[i] = total;
        this.remaining--;
      }
    }
    return this.remaining <= 0;
  }

  /** Distance at the end of edge e entered at c; Infinity when no target is within reach from there. */
  protected override leave(e: number, c: number): number {
    const g = this.graph;
    const d = c + g.edgeLengthM[e];
    const node = g.edgeTarget[e];
    if (this.goalBound && !this.withinReach(node, d)) return Infinity;
    this.twin = g.edgeTwin[e];
    // A U-turn at a node costs extra unless it is a dead end (the only way on).
    this.deadEnd = g.firstOut[node + 1] - g.firstOut[node] <= 1;
    return d;
  }

  /** Distance at the start of f: the U-turn penalty when f turns back. */
  protected override enter(_e: number, f: number, d: number): number {
    return f === this.twin && !this.deadEnd ? d + this.uTurnPenaltyM : d;
  }

  /**
   * Whether a target still looked for might be reached within the bound from `node` at distance
   * `d`: its offset plus the scaled plane distance to its edge's start fits in what is left.
   */
  private withinReach(node: number, d: number): boolean {
    const slack = this.boundM - d;
    const x = this.nodeX[node],
      y = this.nodeY[node];
    const k2 = this.detour * this.detour;
    const out = this.out;
    for (let i = 0; i < this.targets.length; i++) {
      if (out[i] !== Infinity) continue;
      const r = slack - this.toff[i];
      if (r < 0) continue;
      const dx = this.tx[i] - x,
        dy = this.ty[i] - y;
      if (k2 * (dx * dx + dy * dy) <= r * r) return true;
    }
    return false;
  }

  /**
   * Edges strictly between the start edge and `targetEdge` on the last search's shortest path, in
   * driving order. Only valid right after `distancesInto` reached that target by searching.
   */
  pathTo(targetEdge: EdgeId): EdgeId[] {
    const p = this.parent[targetEdge];
    return p >= 0 ? this.edgesTo(p) : [];
  }

  /** Whether the last search reached `edge` by searching (not along the start edge). */
  reached(edge: EdgeId): boolean {
    return this.gen[edge] === this.generation && this.pushedKey[edge] === -1;
  }
}
