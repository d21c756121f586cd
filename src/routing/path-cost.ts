/**
 * Re-costing a fixed path at a departure time: the same arithmetic as the search (turn delay,
 * then the edge costed at the instant it is entered), so a path's travel time always equals the
 * sum of its edges' time-dependent costs. Used for route fields, GetRoute and travel-time series.
 */
import type { CostQuery, TrafficModel } from '../traffic/model.js';

/** One leg of a route: whole edges between a partial first and a partial last edge. */
export interface Leg {
  edges: number[];
  startFraction: number;
  endFraction: number;
  /** seconds spent before the leg starts (U-turn at an intermediate waypoint) */
  offsetS: number;
}

/** Per-edge timing of a costed path, in path order (legs flattened). */
export interface EdgeTiming {
  edge: number;
  /** covered share of the edge, 0..1 */
  share: number;
  /** the leg it belongs to */
  leg: number;
  /** instant the vehicle enters the edge (after the turn delay), unix seconds */
  enterS: number;
  /** seconds on the edge (Infinity-free: closed edges use the closure fallback speed) */
  durationS: number;
  /** turn delay before entering, seconds */
  turnS: number;
  lengthM: number;
  /** true when a closure blocks the edge at enterS */
  closed: boolean;
}

/** Result of costing a path. */
export interface PathCost {
  timings: EdgeTiming[];
  totalS: number;
  distanceM: number;
  /** some edge is closed when the vehicle reaches it */
  hasClosures: boolean;
  /** arrival at the end of each leg, unix seconds */
  legArrivalS: number[];
}

/**
 * Costs `legs` leaving at `depS` under query `q`. Closed edges are flagged and costed with
 * `qFallback` (a query that ignores closures) so the rest of the path still has times.
 */
export function costLegs(model: TrafficModel, q: CostQuery, qFallback: CostQuery, legs: Leg[], depS: number): PathCost {
  const g = model.graph;
  const timings: EdgeTiming[] = [];
  const legArrivalS: number[] = [];
  let t = depS;
  let distanceM = 0;
  let hasClosures = false;
  for (let li = 0; li < legs.length; li++) {
    const leg = legs[li];
    t += leg.offsetS;
    const n = leg.edges.length;
    for (let i = 0; i < n; i++) {
      const e = leg.edges[i];
      let share: number;
      if (n === 1) share = leg.endFraction - leg.startFraction;
      else if (i === 0) share = 1 - leg.startFraction;
      else if (i === n - 1) share = leg.endFraction;
      else share = 1;
      const turnS = i > 0 ? model.turns.costS(leg.edges[i - 1], e) : 0;
      t += turnS;
      let tt = model.travelTimeS(q, e, t);
      let closed = false;
      if (tt === Infinity) {
        closed = true;
        hasClosures = true;
        tt = model.travelTimeS(qFallback, e, t);
      }
      const durationS = share * tt;
      const lengthM = share * g.edgeLengthM[e];
      timings.push({ edge: e, share, leg: li, enterS: t, durationS, turnS, lengthM, closed });
      t += durationS;
      distanceM += lengthM;
    }
    legArrivalS.push(t);
  }
  return { timings, totalS: t - depS, distanceM, hasClosures, legArrivalS };
}

/**
 * Travel time only (seconds) of `legs` leaving at `depS`: the same arithmetic as `costLegs`
 * without per-edge records (closed edges costed with `qFallback`).
 */
export function legsTimeS(model: TrafficModel, q: CostQuery, qFallback: CostQuery, legs: Leg[], depS: number): number {
  let t = depS;
  for (let li = 0; li < legs.length; li++) {
    const leg = legs[li];
    t += leg.offsetS;
    const edges = leg.edges;
    const n = edges.length;
    for (let i = 0; i < n; i++) {
      const e = edges[i];
      const share =
        n === 1
          ? leg.endFraction - leg.startFraction
          : i === 0
            ? 1 - leg.startFraction
            : i === n - 1
              ? leg.endFraction
              : 1;
      if (i > 0) t += model.turns.costS(edges[i - 1], e);
      let tt = model.travelTimeS(q, e, t);
      if (tt === Infinity) tt = model.travelTimeS(qFallback, e, t);
      t += share * tt;
    }
  }
  return t - depS;
}
