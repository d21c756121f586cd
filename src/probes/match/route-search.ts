/**
 * Bounded edge-based Dijkstra for HMM transitions: shortest driving distance from a position on
 * one edge to positions on candidate edges, respecting one-ways (directed edges) and turn
 * restrictions (labels are on edges, so a banned turn is simply never relaxed). Search state is
 * reused across calls (generation counter); not reentrant.
 *
 * The search only runs as far as some target could still be reached within the bound: an edge
 * is not expanded when even the straight line from its end to the nearest target still looked
 * for would overrun it. The straight line is a lower bound of any road distance: nodes are laid
 * out on a plane, and `detour` — the least ratio of an edge's length to the plane distance
 * between its ends, over the whole graph — scales it, so the bound holds whatever the projection
 * and whatever lengths the graph was given. Every edge on a shortest path to a target within the
 * bound passes the test, so the distances and paths found are those of the unpruned search.
 */
import FlatQueue from 'flatqueue';
import { TurnRestrictions, type EdgeId, type Graph } from '../../network/graph.js';
import { M_PER_DEG } from '../../geo/index.js';

/** A position on an edge: where a search starts or what it looks for. */
export interface EdgePosition {
  edge: EdgeId;
  offsetM: number;
}

/** Reusable bounded route-distance search over one graph. */
export class RouteSearch {
  private readonly dist: Float64Array;
  private readonly pred: Int32Array;
  private readonly seen: Uint32Array;
  private readonly done: Uint32Array;
  /** generation in which an edge holds a target still to reach (so settled edges skip the target scan) */
  private readonly targetGen: Uint32Array;
  private generation = 0;
  private readonly queue = new FlatQueue<number>();
  private readonly turns: TurnRestrictions;
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
  /** the current search's targets, results and bound */
  private targets: readonly EdgePosition[] | undefined;
  private out: Float64Array | undefined;
  private boundM = 0;

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
    this.dist = new Float64Array(graph.edgeCount);
    this.pred = new Int32Array(graph.edgeCount);
    this.seen = new Uint32Array(graph.edgeCount);
    this.done = new Uint32Array(graph.edgeCount);
    this.targetGen = new Uint32Array(graph.edgeCount);
    this.turns = new TurnRestrictions(graph);
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
    let gen = ++this.generation;
    if (gen === 0xffffffff) {
      this.seen.fill(0);
      this.done.fill(0);
      this.targetGen.fill(0);
      this.generation = gen = 1;
    }
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
    this.boundM = boundM;
    const q = this.queue;
    q.clear();
    const start = g.edgeLengthM[from.edge] - from.offsetM;
    this.relaxFrom(from.edge, start, -1 - from.edge);
    while (q.length > 0) {
      const d = q.peekValue() as number;
      const e = q.pop() as number;
      if (this.done[e] === this.generation) continue;
      this.done[e] = this.generation;
      this.settled++;
      if (d > boundM) break;
      // Targets on this edge: entering it at distance d.
      if (this.targetGen[e] === gen)
        for (let i = 0; i < targets.length; i++) {
          if (targets[i].edge === e && out[i] === Infinity) {
            const total = d + targets[i].offsetM;
            if (total <= boundM) out[i] = total;
            remaining--;
          }
        }
      if (remaining <= 0) break;
      this.relaxFrom(e, d + g.edgeLengthM[e], e);
    }
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
    const out = this.out!;
    for (let i = 0; i < this.targets!.length; i++) {
      if (out[i] !== Infinity) continue;
      const r = slack - this.toff[i];
      if (r < 0) continue;
      const dx = this.tx[i] - x,
        dy = this.ty[i] - y;
      if (k2 * (dx * dx + dy * dy) <= r * r) return true;
    }
    return false;
  }

  /** Relaxes every allowed successor of edge `e` with entry distance `d` (none when no target is within reach from there). */
  private relaxFrom(e: EdgeId, d: number, predTag: number): void {
    const g = this.graph;
    const node = g.edgeTarget[e];
    if (this.goalBound && !this.withinReach(node, d)) return;
    const checkTurns = this.turns.size > 0;
    const twin = g.edgeTwin[e];
    // A U-turn at a node costs extra unless it is a dead end (the only way on).
    const deadEnd = g.firstOut[node + 1] - g.firstOut[node] <= 1;
    for (let f = g.firstOut[node]; f < g.firstOut[node + 1]; f++) {
      if (checkTurns && !this.turns.isTurnAllowed(e, f)) continue;
      const df = f === twin && !deadEnd ? d + this.uTurnPenaltyM : d;
      if (this.seen[f] !== this.generation || df < this.dist[f]) {
        if (this.done[f] === this.generation) continue;
        this.seen[f] = this.generation;
        this.dist[f] = df;
        this.pred[f] = predTag;
        this.queue.push(f, df);
      }
    }
  }

  /**
   * Edges strictly between the start edge and `targetEdge` on the last search's shortest path, in
   * driving order. Only valid right after `distancesInto` reached that target by searching.
   */
  pathTo(targetEdge: EdgeId): EdgeId[] {
    const path: EdgeId[] = [];
    let p = this.pred[targetEdge];
    while (p >= 0) {
      path.push(p);
      p = this.pred[p];
    }
    path.reverse();
    return path;
  }

  /** Whether the last search reached `edge` by searching (not along the start edge). */
  reached(edge: EdgeId): boolean {
    return this.done[edge] === this.generation;
  }
}
