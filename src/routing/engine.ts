/**
 * The routing engine over one loaded graph: traffic model, snapping, landmarks and the reusable
 * time-dependent A*. `plan` turns waypoints + options into one or more legs-paths (best first):
 * criteria as exclusions (falling back to penalties when no route avoids them), legs chained
 * through the waypoints in order, alternatives by the penalty method (`alternatives.ts`), and the
 * closure fallback.
 */
import { EdgeFlag, TurnRestrictions, type Graph } from '../network/graph.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import type { IncidentCache } from '../traffic/incidents.js';
import {
  SpeedMode,
  TrafficModel,
  type CostQuery,
  type SpeedModeId,
  type TrafficModelConfig,
} from '../traffic/model.js';
import { EdgeLocator, type Snap } from './locate.js';
import type { Landmarks } from './search/landmarks.js';
import { WindowBounds, type WindowBoundsConfig } from './search/window-bounds.js';
import {
  TdAstar,
  type CchBounds,
  type RouteSearch,
  type SearchOptions,
  type SearchSource,
  type SearchTarget,
} from './search/td-astar.js';
import { buildEnginePrep, prepKey, registeredEnginePrep, type EnginePrep } from './prep.js';
import { costLegs, legsTimeS, type Leg, type PathCost } from './path-cost.js';
import { RoutingError } from './errors.js';
import { alternatives } from './alternatives.js';

export { sharedShare } from './alternatives.js';

/** Engine settings (slice of the routing config). */
export interface EngineConfig {
  /** number of ALT landmarks computed at load */
  landmarkCount: number;
  /** landmarks used per query (chosen per origin/destination) */
  activeLandmarks: number;
  /** snapping radius, metres */
  snapRadiusM: number;
  /** labels a single search may settle before giving up */
  maxSettled: number;
  /** cost factor of avoided-but-unavoidable edges */
  avoidPenaltyFactor: number;
  /** cost factor of preferred (express / car-pool) edges, < 1 */
  preferFactor: number;
  /** alternatives: max shared length with any better route (share of the shorter) */
  altMaxSharing: number;
  /** alternatives: max travel time relative to the best route */
  altMaxStretch: number;
  /** alternatives: factor applied to edges of already found routes per round */
  altPenaltyFactor: number;
  /**
   * alternatives: weight of the lower bounds in a penalised round (weighted A*, ≥ 1): its
   * candidate costs at most this × the penalised optimum; 1 searches the optimum
   */
  altBoundWeight: number;
  /** time-window landmark tables (tighter bounds at peaks), or false for free-flow bounds only */
  windowBounds: Partial<WindowBoundsConfig> | false;
  /**
   * Lower bounds of the A*: 'cch' = exact distances in the lower-bound metric (free flow or a time
   * window) from a customizable contraction hierarchy; 'landmarks' = ALT triangle bounds only
   */
  potentials: 'cch' | 'landmarks';
  /** CCH: intersections where a movement costs more than this above the cheapest into its edge are turn-expanded, seconds */
  cchExpandOverS: number;
  traffic: Partial<TrafficModelConfig>;
}

/** Default engine settings. */
export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  landmarkCount: 12,
  activeLandmarks: 4,
  snapRadiusM: 1000,
  maxSettled: 3_000_000,
  avoidPenaltyFactor: 5,
  preferFactor: 0.85,
  altMaxSharing: 0.65,
  altMaxStretch: 1.4,
  altPenaltyFactor: 1.6,
  altBoundWeight: 1.3,
  windowBounds: {},
  potentials: 'cch',
  cchExpandOverS: 5,
  traffic: {},
};

/** Route criteria (the contract's Criteria abbreviations). */
export interface Criteria {
  avoidTollRoads: boolean;
  avoidHighways: boolean;
  avoidFerries: boolean;
  avoidVignette: boolean;
  preferExpress: boolean;
  preferCarPool: boolean;
}

/** No criteria. */
export const NO_CRITERIA: Criteria = {
  avoidTollRoads: false,
  avoidHighways: false,
  avoidFerries: false,
  avoidVignette: false,
  preferExpress: false,
  preferCarPool: false,
};

/** A waypoint as given: degrees, optional heading (degrees clockwise from north). */
export interface WaypointInput {
  lat: number;
  lon: number;
  headingDeg?: number;
}

/** What to plan. */
export interface PlanRequest {
  waypoints: WaypointInput[];
  /** unix seconds */
  departS: number;
  /** wall clock, unix seconds */
  nowS: number;
  shortest: boolean;
  useTraffic: boolean;
  criteria: Criteria;
  /** 0..2 */
  maxAlternates: number;
  /** true: ignore headings at the origin */
  ambiguousOrigin: boolean;
  /** true for a past departure: typical speeds of that weekday and time, no live speeds or incidents */
  typicalOnly?: boolean;
}

/** One planned route. */
export interface PlannedRoute {
  legs: Leg[];
  /** snapped waypoint positions (first leg start, each leg end) */
  snaps: Snap[];
  /** labels settled to find it */
  settled: number;
  /** found only by treating closures as passable */
  viaClosure: boolean;
  /** found only by accepting avoided features */
  avoidRelaxed: boolean;
  /** arrival time the search itself computed (unix seconds) */
  searchArrivalS: number;
}

/**
 * Routing engine of one graph. Build once at load: it builds its read-only structures (landmarks,
 * CCH, layout; `prep.ts`) or wraps ones built once per process and shared between threads.
 */
export class RoutingEngine {
  readonly model: TrafficModel;
  readonly locator: EdgeLocator;
  readonly landmarks: Landmarks;
  readonly restrictions: TurnRestrictions;
  readonly usable: Uint8Array;
  readonly cfg: EngineConfig;
  /** time-window landmark tables, or null when disabled (or without landmarks) */
  readonly windows: WindowBounds | null;
  /** CCH lower bounds (contraction + free-flow metric), or null when the landmarks serve */
  readonly cch: CchBounds | null;
  /** the route search (a test may put a reference search in its place) */
  protected astar: RouteSearch;
  /** per-edge cost factors of the alternatives' rounds (0 = none), made on the first alternatives */
  private altFactors: Float32Array | null = null;
  /** labels settled by the searches of the last `plan` */
  lastSettled = 0;

  constructor(
    readonly graph: Graph,
    feeds: SpeedFeeds,
    incidents: IncidentCache | null,
    timeZone: string,
    cfg: Partial<EngineConfig> = {},
    /** read-only structures built for this graph and settings (`buildEnginePrep`); default: registered ones, or built now */
    prep?: EnginePrep,
  ) {
    this.cfg = { ...DEFAULT_ENGINE_CONFIG, ...cfg };
    const g = graph;
    const registered = registeredEnginePrep(g, this.cfg);
    const p = prep ?? registered?.prep ?? buildEnginePrep(g, this.cfg);
    if (p.key !== prepKey(this.cfg) || p.edgeCount !== g.edgeCount)
      throw new Error('engine structures built for another graph or other settings');
    this.model = new TrafficModel(g, feeds, incidents, timeZone, this.cfg.traffic, p.model);
    this.locator = new EdgeLocator(g);
    this.restrictions = new TurnRestrictions(g);
    this.usable = p.usable;
    this.landmarks = p.landmarks;
    this.cch = p.cch;
    this.windows =
      this.cfg.windowBounds === false || (this.landmarks.nodes.length === 0 && this.cch === null)
        ? null
        : new WindowBounds(
            this.model,
            this.usable,
            p.minTurnIn,
            this.landmarks.nodes,
            this.cfg.windowBounds,
            this.cch?.topo ?? null,
            { tripUse: p.tripUse, exchange: prep === undefined ? (registered?.exchange ?? null) : null },
          );
    this.astar = new TdAstar(
      this.model,
      this.landmarks,
      this.restrictions,
      this.usable,
      this.cfg.activeLandmarks,
      this.windows,
      this.cch,
      // the search marks its targets in the flags: each engine has its own copy
      { layout: { ...p.layout, edgeFlags: p.layout.edgeFlags.slice() }, headRank: p.headRank },
    );
  }

  /** Per-edge cost factors of the alternatives' rounds (0 = none): one array per engine, made when first needed. */
  get altFactor(): Float32Array {
    this.altFactors ??= new Float32Array(this.graph.edgeCount);
    return this.altFactors;
  }

  /** Which bounds answered the last search ('window', 'freeFlow' or 'none' for shortest mode). */
  get lastBounds(): 'window' | 'freeFlow' | 'none' {
    return this.astar.lastBounds;
  }

  /**
   * Builds the time-window tables for departures in the 15-minute bin of `departS` now, for every
   * horizon (otherwise they are built in the background on first use).
   */
  prepareWindows(departS: number, horizonsS?: number[]): void {
    const w = this.windows;
    if (w === null) return;
    const q = this.model.query(departS, departS, SpeedMode.typical);
    for (const h of horizonsS ?? w.horizons) w.buildNow(q.depWeekS, h);
  }

  /** Snaps waypoint `index` (0-based) or throws Unroutable Waypoint (121). */
  snap(wp: WaypointInput, index: number, useHeading: boolean): Snap[] {
    const snaps = this.locator.locate(wp.lat, wp.lon, this.cfg.snapRadiusM, useHeading ? wp.headingDeg : undefined);
    if (snaps.length === 0) {
      throw new RoutingError(
        'UNROUTABLE_WAYPOINT',
        `WP_${index + 1} is farther than ${this.cfg.snapRadiusM} m from any routable road`,
        `WP_${index + 1}`,
      );
    }
    return snaps;
  }

  /**
   * The speed selection a request implies: free flow for shortest routes or without traffic;
   * typical speeds (predicted and learned, no live speeds or incidents) for a time in the past;
   * otherwise current speeds.
   */
  speedMode(shortest: boolean, useTraffic: boolean, typicalOnly = false): SpeedModeId {
    if (shortest || !useTraffic) return SpeedMode.freeFlow;
    return typicalOnly ? SpeedMode.typical : SpeedMode.current;
  }

  /** Costs legs at a departure with the given mode (closures flagged, not fatal). */
  costPath(legs: Leg[], departS: number, nowS: number, mode: SpeedModeId): PathCost {
    const q = this.model.query(departS, nowS, mode);
    const qf = this.model.query(departS, nowS, mode, true);
    return costLegs(this.model, q, qf, legs, departS);
  }

  /** Travel time only of legs at a departure with the given mode, seconds (no per-edge records). */
  pathTimeS(legs: Leg[], departS: number, nowS: number, mode: SpeedModeId): number {
    const q = this.model.query(departS, nowS, mode);
    const qf = this.model.query(departS, nowS, mode, true);
    return legsTimeS(this.model, q, qf, legs, departS);
  }

  private baseOptions(req: PlanRequest, q: CostQuery, relaxAvoid: boolean): SearchOptions {
    const c = req.criteria;
    let avoid = 0;
    if (c.avoidTollRoads) avoid |= EdgeFlag.toll;
    if (c.avoidHighways) avoid |= EdgeFlag.highway;
    if (c.avoidFerries) avoid |= EdgeFlag.ferry;
    if (c.avoidVignette) avoid |= EdgeFlag.vignette;
    // car-pool lanes need occupants: only with PreferCarPool are they used freely
    if (!c.preferCarPool) avoid |= EdgeFlag.hov;
    let discount = 0;
    if (c.preferExpress) discount |= EdgeFlag.express;
    if (c.preferCarPool) discount |= EdgeFlag.hov;
    return {
      q,
      shortest: req.shortest,
      excludeFlags: relaxAvoid ? 0 : avoid,
      penaltyFlags: (relaxAvoid ? avoid : 0) | EdgeFlag.destinationOnly,
      penaltyFactor: this.cfg.avoidPenaltyFactor,
      discountFlags: discount,
      discountFactor: this.cfg.preferFactor,
      edgeFactor: null,
      maxSettled: this.cfg.maxSettled,
    };
  }

  /** Runs the legs through all waypoints with one option set; null when some leg has no path (alternatives re-run it). */
  searchLegs(
    waypointSnaps: Snap[][],
    departS: number,
    o: SearchOptions,
  ): { legs: Leg[]; snaps: Snap[]; settled: number; arrivalS: number } | null {
    const legs: Leg[] = [];
    const snaps: Snap[] = [];
    let t = departS;
    let settled = 0;
    let sources: SearchSource[] = waypointSnaps[0].map((s) => ({ edge: s.edge, fraction: s.fraction, offsetS: 0 }));
    let srcSnaps = waypointSnaps[0];
    for (let i = 1; i < waypointSnaps.length; i++) {
      const targets: SearchTarget[] = waypointSnaps[i].map((s) => ({ edge: s.edge, fraction: s.fraction }));
      const p = this.astar.search(sources, targets, t, o);
      settled += this.astar.lastSettled;
      if (this.astar.lastExhausted) {
        throw new RoutingError('TIMEOUT', `the search exceeded its limit of ${o.maxSettled} labels`, 'WP_1');
      }
      if (!p) return null;
      if (i === 1) snaps.push(srcSnaps[p.sourceIndex] ?? srcSnaps[0]);
      legs.push({
        edges: p.edges,
        startFraction: p.startFraction,
        endFraction: p.endFraction,
        offsetS: sources[p.sourceIndex].offsetS,
      });
      const endSnap = waypointSnaps[i].find((s) => s.edge === p.edges[p.edges.length - 1]) ?? waypointSnaps[i][0];
      snaps.push(endSnap);
      t = p.arrivalS;
      // next leg continues on the same edge, or turns around at the waypoint (U-turn delay)
      const last = p.edges[p.edges.length - 1];
      sources = [{ edge: last, fraction: p.endFraction, offsetS: 0 }];
      const tw = this.graph.edgeTwin[last];
      if (tw >= 0 && this.usable[tw])
        sources.push({ edge: tw, fraction: 1 - p.endFraction, offsetS: this.model.cfg.turnCosts.uturnS });
      srcSnaps = [endSnap];
    }
    return { legs, snaps, settled, arrivalS: t };
  }

  /**
   * Plans the best route and up to `maxAlternates` alternatives (best first). Throws RoutingError
   * 121 when a waypoint cannot be snapped and 137 when no path exists at all.
   */
  plan(req: PlanRequest): PlannedRoute[] {
    const snaps = req.waypoints.map((wp, i) => this.snap(wp, i, i === 0 ? !req.ambiguousOrigin : true));
    const mode = this.speedMode(req.shortest, req.useTraffic, req.typicalOnly);
    let settled = 0;
    let viaClosure = false;
    let avoidRelaxed = false;
    let q = this.model.query(req.departS, req.nowS, mode);
    let opts = this.baseOptions(req, q, false);
    let found = this.searchLegs(snaps, req.departS, opts);
    settled += this.astar.lastSettled;
    if (!found) {
      opts = this.baseOptions(req, q, true);
      avoidRelaxed = true;
      found = this.searchLegs(snaps, req.departS, opts);
    }
    if (!found) {
      // every path is closed: return the best one through the closure (flagged hasClosures)
      q = this.model.query(req.departS, req.nowS, mode, true);
      opts = this.baseOptions(req, q, true);
      viaClosure = true;
      found = this.searchLegs(snaps, req.departS, opts);
    }
    if (!found) {
      this.lastSettled = settled;
      throw new RoutingError('ROUTE_NOT_FOUND', 'no path connects the waypoints', 'WP_1');
    }
    const routes: PlannedRoute[] = [
      {
        legs: found.legs,
        snaps: found.snaps,
        settled: found.settled,
        viaClosure,
        avoidRelaxed,
        searchArrivalS: found.arrivalS,
      },
    ];
    if (req.maxAlternates > 0 && req.waypoints.length === 2) {
      for (const alt of alternatives(this, snaps, req, opts, found.legs[0], req.maxAlternates)) {
        routes.push({
          legs: [alt.leg],
          snaps: found.snaps,
          settled: 0,
          viaClosure,
          avoidRelaxed,
          searchArrivalS: alt.arrivalS,
        });
      }
    }
    this.lastSettled = routes.reduce((s, r) => s + r.settled, 0);
    return routes;
  }
}
