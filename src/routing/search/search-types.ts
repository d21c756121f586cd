/**
 * What a route search takes and gives: sources and targets as positions on directed edges, the
 * options of one search, the path found, and the interface `RoutingEngine` drives a search through
 * (`TdAstar` in production; the tests' reference search implements the same one).
 */
import type { CostQuery } from '../../traffic/model.js';
import type { CchTopology } from './cch/topology.js';
import type { CchMetric } from './cch/customize.js';
import type { SearchLayout } from './layout.js';

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
  /**
   * weight of the lower bounds (weighted A*): 1 or absent = exact; w > 1 finds a path costing at
   * most w × the optimum, settling far fewer labels (the alternatives' penalised rounds)
   */
  boundWeight?: number;
  /**
   * the thread's previous search was the same plan's, to the same targets (the alternatives'
   * rounds): potentials it evaluated in the same bound metric still hold and are kept
   */
  sameTargets?: boolean;
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

/** What a process builds once per graph and its searches share (`routing/prep.ts`). */
export interface SearchPrepared {
  /** the search layout (its `edgeFlags` must be this search's own copy: targets are marked in it) */
  layout: SearchLayout;
  /** the CCH rank of every internal edge's head, or null: computed by the search */
  headRank: Int32Array | null;
}

/** Which lower bounds answered a search: a time-window table, the free-flow table, or none (shortest mode). */
export type BoundsUsed = 'window' | 'freeFlow' | 'none';

/** A reusable route search over one graph, as the routing engine drives it. */
export interface RouteSearch {
  /** Best path from any source to any target leaving at `depS` (unix seconds), or null. */
  search(sources: SearchSource[], targets: SearchTarget[], depS: number, o: SearchOptions): SearchPath | null;
  /** labels settled by the last search (every pass) */
  readonly lastSettled: number;
  /** true when the last search stopped at `maxSettled` before finishing */
  readonly lastExhausted: boolean;
  /** which bounds answered the last search */
  readonly lastBounds: BoundsUsed;
}

/** Penalty of a U-turn in shortest mode, metres. */
export const SHORTEST_UTURN_M = 100;

/**
 * Multiplier of an edge's cost under the options from its EdgeFlag bits `flags` and its graph
 * id `e` (0 = excluded). The search's own unusable bit is the caller's to test.
 */
export function costFactor(flags: number, e: number, o: SearchOptions): number {
  if ((flags & o.excludeFlags) !== 0) return 0;
  let f = 1;
  if ((flags & o.penaltyFlags) !== 0) f *= o.penaltyFactor;
  if ((flags & o.discountFlags) !== 0) f *= o.discountFactor;
  if (o.edgeFactor !== null) {
    const x = o.edgeFactor[e];
    if (x > 0) f *= x;
  }
  return f;
}
