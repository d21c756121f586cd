/**
 * The simulator's own route choice (services never import `routing/`): an edge-based A* on the
 * travel times links have *now* (congestion at departure) plus an expected signal wait,
 * respecting one-ways and turn restrictions. It is the shared kernel (`EdgeSearch`,
 * `src/search/edge-search.ts`) parameterised with static costs: a label is the time at the end
 * of its edge, leaving an edge adds its node delay, entering one its current time (no U-turn but
 * at a dead end), the potential is one of the bounds below (cached per label), the queue an exact
 * binary heap, and the search stops when the target edge is settled. Not reentrant.
 *
 * Goal direction: with `topSpeedKph` (no edge time `timeOf` returns is below its length at that
 * speed), a label's key adds the straight line (a chord through the sphere: three subtractions
 * and a square root per label) from its edge's head to the target edge's tail at the top speed.
 * Any way on is at least that long (triangle inequality; edge lengths are scaled by the graph's
 * smallest length-to-chord ratio, so even an edge drawn shorter than its chord keeps the bound), and node delays are never negative, so the bound is admissible and
 * consistent: the first time the target edge is popped its cost is the least, as with Dijkstra.
 *
 * With an `ExactBound` (distances in a metric whose edge weights are each edge's least time plus
 * the least delay after it, `src/routing/search/cch/node-distance.ts`), a label's key adds instead
 * the delay at its edge's head, the distance from that head to the target edge's tail and the
 * target edge's least time: every way on costs at least that (each weight is at most what the
 * search charges), and the triangle inequality of the distance keeps it consistent. On a metro the
 * straight line at the top speed (a motorway's) lets the search settle a wide disc around the
 * origin; the exact bound keeps it near the route.
 */
import { EARTH_RADIUS_M } from '../geo/index.js';
import { EdgeFlag, RoadClass, TurnRestrictions, type Graph } from '../network/graph.js';
import { EdgeSearch } from '../search/edge-search.js';
import { HeapQueue } from '../search/label-queue.js';

const RAD = Math.PI / 180;

/** Returns the current travel time of an edge, seconds. */
export type EdgeTimeFn = (edge: number) => number;

/** Lower bounds to one node at a time, e.g. exact distances in a lower-bound metric. */
export interface NodeBound {
  /** Starts bounds towards graph node `target`. */
  reset(target: number): void;
  /** Lower bound from graph node `v` to the target (Infinity when the target is unreachable). */
  at(v: number): number;
}

/** The exact goal direction of a `SimRouter`: per-edge least costs and a distance over them. */
export interface ExactBound {
  /** least travel time of each edge, seconds (never above what `timeOf` returns) */
  minTimeS: Float64Array;
  /** least delay after each edge (never above what `nodeDelayS` returns for it), seconds */
  minDelayS: Float64Array;
  /**
   * Distances over the drivable edges (`usable[e]` = 1) with weights minTimeS[e] + minDelayS[e],
   * seconds; built once by the router's constructor
   */
  build: (usable: Uint8Array, weightS: Float64Array) => NodeBound;
}

/** Reusable time-dependent shortest-path search for simulated trips. */
export class SimRouter extends EdgeSearch {
  /** lower bound from the edge's head to the running search's target, seconds (valid with the label) */
  private readonly bound: Float64Array;
  private readonly drivable: Uint8Array;
  /** seconds per metre of straight line (0: plain Dijkstra) */
  private readonly secondsPerM: number;
  /**
   * node positions on the kernel's sphere (`EARTH_RADIUS_M`), metres (straight lines through it; any
   * radius works: edge lengths are compared with chords of the same sphere)
   */
  private readonly px: Float64Array;
  private readonly py: Float64Array;
  private readonly pz: Float64Array;
  /** distances to the running search's target edge's tail, or null (straight lines) */
  private readonly exact: { distance: NodeBound; minTimeS: Float64Array; minDelayS: Float64Array } | null;
  /** edges popped by the last search */
  lastPopped = 0;
  /** the running search's target edge, its tail, edge times and node delays */
  private to = -1;
  private goal = 0;
  private timeOf: EdgeTimeFn = () => 0;
  private nodeDelayS: (inEdge: number) => number = () => 0;
  private reachedTo = false;
  /** the edge being relaxed: its twin, and whether its head is a dead end */
  private twin = -1;
  private deadEnd = false;

  /**
   * `topSpeedKph`: a speed no edge time of any search exceeds (every `timeOf(e)` ≥ length × 3.6 /
   * topSpeedKph), which turns the search goal-directed; 0 or absent: Dijkstra. `exact`: goal
   * direction by exact distances in a lower-bound metric instead (then `topSpeedKph` is unused).
   */
  constructor(
    private readonly graph: Graph,
    topSpeedKph = 0,
    exact?: ExactBound,
  ) {
    super(graph.edgeCount, graph, new TurnRestrictions(graph), new HeapQueue(), {
      timed: false,
      directed: true,
      drops: false,
    });
    this.bound = new Float64Array(graph.edgeCount);
    this.drivable = new Uint8Array(graph.edgeCount);
    const n = graph.nodeCount;
    this.px = new Float64Array(n);
    this.py = new Float64Array(n);
    this.pz = new Float64Array(n);
    for (let v = 0; v < n; v++) {
      const lat = (graph.nodeLatE7[v] / 1e7) * RAD,
        lon = (graph.nodeLonE7[v] / 1e7) * RAD;
      this.px[v] = EARTH_RADIUS_M * Math.cos(lat) * Math.cos(lon);
      this.py[v] = EARTH_RADIUS_M * Math.cos(lat) * Math.sin(lon);
      this.pz[v] = EARTH_RADIUS_M * Math.sin(lat);
    }
    // the smallest share of its chord an edge's length is (≤ 1): scales every straight line
    let lengthPerChord = 1;
    for (let e = 0; e < graph.edgeCount; e++) {
      const f = graph.edgeFlags[e];
      this.drivable[e] =
        (f & EdgeFlag.routable) !== 0 && (f & EdgeFlag.reversible) === 0 && graph.edgeRoadClass[e] !== RoadClass.ferry
          ? 1
          : 0;
      const chord = this.chordM(graph.edgeSource[e], graph.edgeTarget[e]);
      if (chord > 0) lengthPerChord = Math.min(lengthPerChord, graph.edgeLengthM[e] / chord);
    }
    // a hair under, so rounding never overestimates
    this.secondsPerM = topSpeedKph > 0 ? (3.6 / topSpeedKph) * Math.max(0, lengthPerChord) * (1 - 1e-9) : 0;
    if (exact === undefined) this.exact = null;
    else {
      const weightS = new Float64Array(graph.edgeCount);
      for (let e = 0; e < graph.edgeCount; e++) weightS[e] = exact.minTimeS[e] + exact.minDelayS[e];
      this.exact = {
        distance: exact.build(this.drivable, weightS),
        minTimeS: exact.minTimeS,
        minDelayS: exact.minDelayS,
      };
    }
  }

  /** Lower bound on the cost after edge `e` (not the target) up to the end of the target edge `to`. */
  private boundAfter(e: number, to: number, goal: number): number {
    const x = this.exact;
    if (x !== null) return x.minDelayS[e] + x.distance.at(this.graph.edgeTarget[e]) + x.minTimeS[to];
    return this.secondsPerM > 0 ? this.chordM(this.graph.edgeTarget[e], goal) * this.secondsPerM : 0;
  }

  /** Straight line between two nodes through the sphere, metres (never longer than the great circle). */
  private chordM(u: number, v: number): number {
    const dx = this.px[u] - this.px[v],
      dy = this.py[u] - this.py[v],
      dz = this.pz[u] - this.pz[v];
    return Math.sqrt(dx * dx + dy * dy + dz * dz);
  }

  /**
   * Fastest path from the start of edge `from` to the end of edge `to` (both included) under the
   * edge times `timeOf` plus `nodeDelayS` (≥ 0) per crossed node; undefined when unreachable.
   */
  route(from: number, to: number, timeOf: EdgeTimeFn, nodeDelayS: (inEdge: number) => number): number[] | undefined {
    this.startSearch();
    this.to = to;
    this.goal = this.graph.edgeSource[to];
    this.timeOf = timeOf;
    this.nodeDelayS = nodeDelayS;
    this.reachedTo = false;
    this.exact?.distance.reset(this.goal);
    // from the head of an edge to the target edge's tail; the target itself is reached at its end
    const b = from !== to ? this.boundAfter(from, to, this.goal) : 0;
    if (b === Number.POSITIVE_INFINITY) {
      this.lastPopped = 0;
      return undefined;
    }
    this.bound[from] = b;
    this.seed(from, timeOf(from), 0);
    this.lastPopped = this.settle(Infinity);
    return this.reachedTo ? this.edgesTo(to) : undefined;
  }

  /** The stop rule: the target edge is settled (its cost is then the least: the bounds are consistent). */
  protected override settledLabel(e: number): boolean {
    if (e !== this.to) return false;
    this.reachedTo = true;
    return true;
  }

  /** The potential: the label's bound, computed when the label was first set. */
  protected override potential(e: number): number {
    return this.bound[e];
  }

  /** Time at e's head: its label plus the expected delay there. */
  protected override leave(e: number, c: number): number {
    const g = this.graph;
    const node = g.edgeTarget[e];
    this.twin = g.edgeTwin[e];
    // No U-turns, except at a dead end where turning is the only way on.
    this.deadEnd = g.firstOut[node + 1] - g.firstOut[node] <= 1;
    return c + this.nodeDelayS(e);
  }

  /** Time at the end of f: its current time added; Infinity when f is not drivable or the target is out of reach through it. */
  protected override enter(_e: number, f: number, base: number): number {
    if (this.drivable[f] === 0 || (f === this.twin && !this.deadEnd)) return Infinity;
    const nc = base + this.timeOf(f);
    if (this.gen[f] !== this.generation) {
      const b = f !== this.to ? this.boundAfter(f, this.to, this.goal) : 0;
      // the target cannot be reached through f
      if (b === Number.POSITIVE_INFINITY) return Infinity;
      this.bound[f] = b;
    }
    return nc;
  }
}
