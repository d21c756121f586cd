/**
 * The traffic model: travel time of an edge entered at a given instant. Layers, most specific
 * last: predicted profile (class × urban context × 15-min bin, interpolated between bin centres),
 * learned profile from `SpeedFeeds` (replaces the predicted one per edge and bin where present),
 * live speed (fresh observations apply at "now" and blend back linearly over `liveBlendS`),
 * incidents (closures block the edge while active, others slow it by severity). Every speed is
 * capped by the edge's upper speed bound (its free-flow speed by default), which is what landmark
 * lower bounds are built from, so any speed the model can produce keeps the search exact.
 */
import type { Graph } from '../network/graph.js';
import { BINS_PER_WEEK, type SpeedFeeds } from './feeds.js';
import { buildPredictedFactors, classGroup, freeFlowSpeedKph, urbanNodes } from './profiles.js';
import { BIN_SECONDS, SECONDS_PER_WEEK, localSecondOfWeek } from './clock.js';
import type { IncidentCache, IncidentEffect } from './incidents.js';
import { DEFAULT_TURN_COSTS, TurnCosts, type TurnCostConfig } from './turn-costs.js';

// Module-local copies of imported constants used in the hot path.
const BINS = BINS_PER_WEEK;
const BIN_S = BIN_SECONDS;
const WEEK_S = SECONDS_PER_WEEK;

/** Where an instant falls between profile bin centres: written by `binPosition` (no allocation on the hot path). */
const pos = { b0: 0, b1: 0, frac: 0 };

/** Sets `pos` for local second of the week `weekS`: the bins whose centres enclose it and the share of the way to the second. */
function binPosition(weekS: number): void {
  let w = weekS % WEEK_S;
  if (w < 0) w += WEEK_S;
  const x = w / BIN_S - 0.5;
  let b0 = Math.floor(x);
  pos.frac = x - b0;
  if (b0 < 0) b0 += BINS;
  pos.b0 = b0;
  pos.b1 = b0 + 1 === BINS ? 0 : b0 + 1;
}

/** Which speeds a cost query uses. */
export const SpeedMode = {
  /** live + incidents + learned/predicted: what the vehicle will meet */
  current: 0,
  /** learned/predicted only: what is normal for that weekday and time */
  typical: 1,
  /** free-flow speeds, time independent */
  freeFlow: 2,
} as const;
/** One of SpeedMode's values. */
export type SpeedModeId = (typeof SpeedMode)[keyof typeof SpeedMode];

/** Settings of the traffic model. */
export interface TrafficModelConfig {
  /** live observations older than this (relative to now) are ignored, seconds */
  liveMaxAgeS: number;
  /** live speeds fade linearly to the profile over this many seconds after now */
  liveBlendS: number;
  /** 'auto' derives urban context from node density; or force one context for the whole graph */
  urbanContext: 'auto' | 'urban' | 'rural';
  /** upper speed bound of an edge = free-flow speed × this factor; faster learned or live speeds
   * are capped to it, which keeps the landmark lower bounds admissible (1 = tightest bounds) */
  upperSpeedFactor: number;
  /** floor on any non-closed speed, km/h */
  minSpeedKph: number;
  turnCosts: TurnCostConfig;
}

/** Default traffic-model settings. */
export const DEFAULT_TRAFFIC_CONFIG: TrafficModelConfig = {
  liveMaxAgeS: 900,
  liveBlendS: 1800,
  urbanContext: 'auto',
  upperSpeedFactor: 1,
  minSpeedKph: 3,
  turnCosts: DEFAULT_TURN_COSTS,
};

/** A resolved clock and speed selection for one trip (cheap to create, not shared). */
export interface CostQuery {
  /** unix seconds of the departure the clock was resolved at */
  depUnixS: number;
  /** local second of the week at depUnixS */
  depWeekS: number;
  /** the wall clock, unix seconds (for live freshness and blending) */
  nowS: number;
  mode: SpeedModeId;
  /** live speeds considered (current mode and some are present) */
  useLive: boolean;
  /** incident effects by edge (current mode), or null */
  incidents: ReadonlyMap<number, IncidentEffect[]> | null;
  /** treat closures as slow instead of impassable (fallback when everything is closed) */
  ignoreClosures: boolean;
}

/** The per-edge constants of a traffic model (they depend on the graph and the settings only, never on feeds). */
export interface TrafficModelArrays {
  freeFlowKph: Float32Array;
  upperKph: Float32Array;
  profileGroup: Uint8Array;
}

/** The settings a model's per-edge constants depend on, as a string. */
function arraysKey(cfg: TrafficModelConfig): string {
  return `${cfg.urbanContext}|${cfg.upperSpeedFactor}`;
}

const arrayRegistry = new WeakMap<Graph, { key: string; arrays: TrafficModelArrays }>();

/**
 * Makes every model built on `g` with the settings `cfg` (as far as the per-edge constants depend
 * on them) use `arrays` instead of computing its own: a thread given them in shared memory holds
 * one copy however many models it builds (the engine's, the learned speeds' prior).
 */
export function registerModelArrays(g: Graph, cfg: Partial<TrafficModelConfig>, arrays: TrafficModelArrays): void {
  if (arrays.freeFlowKph.length !== g.edgeCount) throw new Error('traffic model arrays of another graph');
  arrayRegistry.set(g, { key: arraysKey({ ...DEFAULT_TRAFFIC_CONFIG, ...cfg }), arrays });
}

/** The arrays registered for `g` when they were computed with the settings of `cfg`. */
function registeredArrays(g: Graph, cfg: TrafficModelConfig): TrafficModelArrays | undefined {
  const r = arrayRegistry.get(g);
  return r !== undefined && r.key === arraysKey(cfg) ? r.arrays : undefined;
}

/** Speed model over one graph. One instance per loaded graph; queries are synchronous. */
export class TrafficModel {
  /** free-flow speed per edge, km/h */
  readonly freeFlowKph: Float32Array;
  /** upper speed bound per edge, km/h (no produced speed exceeds it) */
  readonly upperKph: Float32Array;
  /** profile group per edge (classGroup × 2 + urban) */
  readonly profileGroup: Uint8Array;
  /** predicted factor table, PROFILE_GROUPS × 672 */
  readonly factors: Float32Array;
  readonly turns: TurnCosts;
  readonly cfg: TrafficModelConfig;

  constructor(
    readonly graph: Graph,
    readonly feeds: SpeedFeeds,
    readonly incidents: IncidentCache | null,
    readonly timeZone: string,
    cfg: Partial<TrafficModelConfig> = {},
    /** the per-edge constants computed by another model of the same graph and settings (e.g. in shared memory), used as they are */
    arrays?: TrafficModelArrays,
  ) {
    this.cfg = { ...DEFAULT_TRAFFIC_CONFIG, ...cfg };
    const g = graph;
    const m = g.edgeCount;
    this.factors = buildPredictedFactors();
    this.turns = new TurnCosts(g, this.cfg.turnCosts);
    arrays ??= registeredArrays(g, this.cfg);
    if (arrays !== undefined) {
      if (arrays.freeFlowKph.length !== m) throw new Error('traffic model arrays of another graph');
      this.freeFlowKph = arrays.freeFlowKph;
      this.upperKph = arrays.upperKph;
      this.profileGroup = arrays.profileGroup;
      return;
    }
    this.freeFlowKph = new Float32Array(m);
    this.upperKph = new Float32Array(m);
    this.profileGroup = new Uint8Array(m);
    const urban = this.cfg.urbanContext === 'auto' ? urbanNodes(g) : null;
    for (let e = 0; e < m; e++) {
      const ff = freeFlowSpeedKph(g, e);
      this.freeFlowKph[e] = ff;
      this.upperKph[e] = ff * this.cfg.upperSpeedFactor;
      const isUrban = urban
        ? urban[g.edgeSource[e]] | urban[g.edgeTarget[e]]
        : this.cfg.urbanContext === 'urban'
          ? 1
          : 0;
      this.profileGroup[e] = classGroup(g.edgeRoadClass[e]) * 2 + isUrban;
    }
  }

  /** Resolves a departure into a cost query. `nowS` = wall clock, unix seconds. */
  query(depUnixS: number, nowS: number, mode: SpeedModeId, ignoreClosures = false): CostQuery {
    let useLive = false;
    if (mode === SpeedMode.current) useLive = !this.feeds.liveEntries().next().done;
    return {
      depUnixS,
      depWeekS: localSecondOfWeek(depUnixS, this.timeZone),
      nowS,
      mode,
      useLive,
      // typical speeds ignore incidents; free flow still honours closures
      incidents:
        mode !== SpeedMode.typical && this.incidents && this.incidents.effectsByEdge().size > 0
          ? this.incidents.effectsByEdge()
          : null,
      ignoreClosures,
    };
  }

  /** Lower bound of the travel time of edge e, seconds (length at the upper speed bound). */
  minTravelTimeS(e: number): number {
    return (this.graph.edgeLengthM[e] * 3.6) / this.upperKph[e];
  }

  /** Free-flow travel time of edge e, seconds. */
  freeFlowTimeS(e: number): number {
    return (this.graph.edgeLengthM[e] * 3.6) / this.freeFlowKph[e];
  }

  /**
   * Speed of edge `e` for a vehicle entering it at `tUnixS`, km/h; 0 when the edge is closed.
   * Hot path: no allocation.
   */
  speedKph(q: CostQuery, e: number, tUnixS: number): number {
    if (q.mode === SpeedMode.freeFlow) {
      if (q.incidents !== null && !q.ignoreClosures && this.closedIn(q.incidents, e, tUnixS)) return 0;
      return this.freeFlowKph[e];
    }
    // interpolate between bin centres
    binPosition(q.depWeekS + (tUnixS - q.depUnixS));
    const b0 = pos.b0,
      b1 = pos.b1,
      frac = pos.frac;
    let speed = NaN;
    const feeds = this.feeds;
    if (feeds.learnedEdgeCount > 0) {
      const a = feeds.learnedSpeedKph(e, b0);
      const c = feeds.learnedSpeedKph(e, b1);
      if (a === a) speed = c === c ? a + (c - a) * frac : a;
      else if (c === c) speed = c;
    }
    if (speed !== speed) {
      const gi = this.profileGroup[e] * BINS;
      const f0 = this.factors[gi + b0];
      speed = this.freeFlowKph[e] * (f0 + (this.factors[gi + b1] - f0) * frac);
    }
    if (q.useLive) {
      const live = feeds.liveSpeed(e);
      if (live !== undefined && q.nowS - live.observedAtS <= this.cfg.liveMaxAgeS) {
        let wgt = 1 - (tUnixS - q.nowS) / this.cfg.liveBlendS;
        if (wgt > 0) {
          if (wgt > 1) wgt = 1;
          speed = wgt * live.speedKph + (1 - wgt) * speed;
        }
      }
    }
    if (q.incidents !== null) {
      const effs = q.incidents.get(e);
      if (effs !== undefined) {
        for (let i = 0; i < effs.length; i++) {
          const ef = effs[i];
          if (tUnixS >= ef.startS && tUnixS < ef.endS) {
            if (ef.closure) {
              if (!q.ignoreClosures) return 0;
              if (q.mode === SpeedMode.current) speed *= 0.1;
            } else if (q.mode === SpeedMode.current) speed *= ef.speedFactor;
          }
        }
      }
    }
    const up = this.upperKph[e];
    if (speed > up) speed = up;
    if (speed < this.cfg.minSpeedKph) speed = this.cfg.minSpeedKph;
    return speed;
  }

  /**
   * Predicted speed factor (speed / free flow) of profile group `group` at local second of the
   * week `weekS` (any integer multiple of a week away is the same instant), interpolated between
   * bin centres exactly as `speedKph` does.
   */
  predictedFactor(group: number, weekS: number): number {
    binPosition(weekS);
    const gi = group * BINS;
    const f0 = this.factors[gi + pos.b0];
    return f0 + (this.factors[gi + pos.b1] - f0) * pos.frac;
  }

  private closedIn(m: ReadonlyMap<number, IncidentEffect[]>, e: number, tUnixS: number): boolean {
    const effs = m.get(e);
    if (effs === undefined) return false;
    for (let i = 0; i < effs.length; i++) {
      const ef = effs[i];
      if (ef.closure && tUnixS >= ef.startS && tUnixS < ef.endS) return true;
    }
    return false;
  }

  /** Travel time of edge `e` entered at `tUnixS`, seconds; Infinity when closed. */
  travelTimeS(q: CostQuery, e: number, tUnixS: number): number {
    const s = this.speedKph(q, e, tUnixS);
    return s > 0 ? (this.graph.edgeLengthM[e] * 3.6) / s : Infinity;
  }

  /** True when a closure blocks edge `e` at `tUnixS` (regardless of query mode). */
  isClosedAt(e: number, tUnixS: number): boolean {
    const effs = this.incidents?.effectsByEdge().get(e);
    if (!effs) return false;
    for (const ef of effs) if (ef.closure && tUnixS >= ef.startS && tUnixS < ef.endS) return true;
    return false;
  }

  /** Incidents (ids) touching edge `e` and active at some instant in [fromS, toS]. */
  incidentIdsOn(e: number, fromS: number, toS: number): number[] {
    const effs = this.incidents?.effectsByEdge().get(e);
    if (!effs) return [];
    const out: number[] = [];
    for (const ef of effs) if (ef.startS <= toS && ef.endS > fromS) out.push(ef.incidentId);
    return out;
  }
}
