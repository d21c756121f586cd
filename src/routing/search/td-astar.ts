/**
 * Time-dependent A* (the route search): which lower bounds each pass of a search uses. Shortest
 * routes use great-circle distance; fastest routes use the free-flow bounds (CCH potentials or
 * ALT landmarks), and current-traffic searches first try the tighter bounds of a time-window
 * table, resuming on a longer horizon's table or on free flow when the answer leaves its
 * coverage. The passes themselves (labels, relaxation, dead ends) are `LabelSearch`'s (relaxing through `InlinedLabelSearch`'s loop).
 */
import type { TurnRestrictions } from '../../network/graph.js';
import { SpeedMode, type TrafficModel } from '../../traffic/model.js';
import { SECONDS_PER_WEEK, BIN_SECONDS } from '../../traffic/clock.js';
import type { Landmarks } from './landmarks.js';
import type { WindowBounds } from './window-bounds.js';
import { InlinedLabelSearch } from './label-search-inlined.js';
import type {
  BoundsUsed,
  CchBounds,
  RouteSearch,
  SearchOptions,
  SearchPath,
  SearchPrepared,
  SearchSource,
  SearchTarget,
} from './search-types.js';

export type {
  CchBounds,
  RouteSearch,
  SearchOptions,
  SearchPath,
  SearchPrepared,
  SearchSource,
  SearchTarget,
} from './search-types.js';

/** Reusable time-dependent A* over one graph and traffic model. */
export class TdAstar extends InlinedLabelSearch implements RouteSearch {
  /** which bounds answered the last search: a time-window table, or the free-flow table */
  lastBounds: BoundsUsed = 'none';
  /** true when the last search first ran on a window table whose coverage the answer left */
  lastWindowRetry = false;
  /** expected trip time over the free-flow lower bound, for picking a window horizon */
  expectedOverBound = 1.6;

  constructor(
    model: TrafficModel,
    landmarks: Landmarks,
    restrictions: TurnRestrictions,
    /** 1 when an edge is usable at all (routable, not reversible) */
    usable: Uint8Array,
    /** landmarks used per query (the best for that origin/destination) */
    activeLandmarks = 4,
    /** time-window tables (tighter bounds for current-traffic searches), or null */
    private readonly windows: WindowBounds | null = null,
    /** CCH lower bounds replacing the landmarks for current-traffic and free-flow searches, or null */
    cch: CchBounds | null = null,
    /**
     * a layout built once for this graph (its `edgeFlags` this search's own: targets are marked
     * in them) and the head ranks of its edges, or null: built here
     */
    prepared: SearchPrepared | null = null,
  ) {
    super(model, landmarks, restrictions, usable, activeLandmarks, cch, prepared);
  }

  /**
   * Best path from any source to any target leaving at `depS` (unix seconds), or null when none
   * exists within `maxSettled` labels. Current-traffic searches first use a time-window table
   * when one is ready and valid (`searchWindows`); otherwise the free-flow bounds, which hold at
   * any time, serve.
   */
  search(sources: SearchSource[], targets: SearchTarget[], depS: number, o: SearchOptions): SearchPath | null {
    const g = this.g;
    const bound = this.bound;
    this.lastWindowRetry = false;
    const scale = o.discountFlags !== 0 && o.discountFactor < 1 ? o.discountFactor : 1;
    const weight = o.boundWeight !== undefined && o.boundWeight > 1 ? o.boundWeight : 1;
    bound.begin(
      [...new Set(targets.map((t) => g.edgeSource[t.edge]))],
      o.shortest,
      scale,
      weight,
      o.sameTargets === true,
    );
    if (o.shortest || !bound.hasBounds) {
      this.lastBounds = 'none';
      bound.useNone();
      return this.run(sources, targets, depS, o);
    }
    const sourceNodes = [...new Set(sources.map((s) => g.edgeTarget[s.edge]))];
    bound.useFreeFlow();
    bound.chooseLandmarks(sourceNodes);
    if (this.windows !== null && o.q.mode === SpeedMode.current) {
      const p = this.searchWindows(sources, targets, depS, o, sourceNodes, scale, weight);
      if (p !== undefined) return p;
      bound.useFreeFlow();
    }
    this.lastBounds = 'freeFlow';
    return this.run(sources, targets, depS, o);
  }

  /**
   * The search on time-window tables, from the smallest horizon expected to hold the trip. An
   * answer is kept only when its cost proves the optimal path stays inside the table's coverage
   * (every factor ≥ 1, or the discount, bounds time by cost); otherwise the search is resumed on
   * a longer horizon's table or on the free-flow bounds. Undefined when no table was ready.
   */
  private searchWindows(
    sources: SearchSource[],
    targets: SearchTarget[],
    depS: number,
    o: SearchOptions,
    sourceNodes: number[],
    scale: number,
    weight: number,
  ): SearchPath | null | undefined {
    const windows = this.windows!;
    const bound = this.bound;
    const q = o.q;
    let w = (q.depWeekS + (depS - q.depUnixS)) % SECONDS_PER_WEEK;
    if (w < 0) w += SECONDS_PER_WEEK;
    const leftInBin = BIN_SECONDS - (w % BIN_SECONDS);
    const expected = bound.chosenBound * this.expectedOverBound + 120;
    let settled = 0;
    let horizon = windows.horizonFor(Math.max(0, expected - leftInBin));
    // only the table the trip is expected to need is queued for building; after the first pass,
    // a longer horizon or free flow resumes the search instead of starting over
    let first = true;
    let resume = false;
    while (horizon >= 0) {
      const use = windows.tableFor(depS, w, horizon, first);
      first = false;
      if (use === null) {
        horizon = windows.nextHorizon(horizon);
        continue;
      }
      const t = use.table;
      bound.useWindow(t, t.cch, t.warp, depS - (w - t.binStartWeekS));
      if (t.cch === null) bound.chooseLandmarks(sourceNodes);
      // a min key above the coverage proves the answer would leave it: stop there (a weighted
      // search's keys are at most its weight × an exact search's)
      const p = this.run(sources, targets, depS, o, (use.validUntilS - depS) * scale * weight, resume);
      resume = true;
      settled += this.lastSettled;
      if (this.lastAborted) {
        this.lastWindowRetry = true;
        const next = windows.horizonFor(this.lastAbortKey / (scale * weight) - leftInBin);
        horizon = next > horizon ? next : -1;
        continue;
      }
      if (p === null || this.lastExhausted || depS + p.cost / scale <= use.validUntilS) {
        this.lastSettled = settled;
        this.lastBounds = 'window';
        return p;
      }
      // the answer's cost bounds the optimal trip: the horizon that holds it is certain to do
      this.lastWindowRetry = true;
      const next = windows.horizonFor(p.cost / scale - leftInBin);
      horizon = next > horizon ? next : -1;
    }
    if (settled === 0) return undefined;
    bound.useFreeFlow();
    bound.chooseLandmarks(sourceNodes);
    const r = this.run(sources, targets, depS, o, Infinity, true);
    this.lastSettled += settled;
    this.lastBounds = 'freeFlow';
    return r;
  }
}
