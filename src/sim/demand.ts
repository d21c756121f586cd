/**
 * Travel demand of the simulator: a daily demand curve (share of the day's trips departing in
 * each hour, weekday and weekend shapes) and weighted origins and destinations — homes on local
 * streets, activities on arterials — with the morning flow inbound and the evening flow outbound.
 */
import { EdgeFlag, RoadClass, type Graph } from '../network/graph.js';
import type { Rng } from './prng.js';

/** Share of a weekday's trips starting in each local hour 0..23 (sums to 1). */
export const WEEKDAY_HOURLY_SHARE = normalise([
  0.5, 0.3, 0.2, 0.2, 0.4, 1.2, 3.5, 7.0, 8.0, 5.5, 4.5, 4.8, 5.2, 5.0, 5.0, 6.0, 7.5, 8.5, 7.0, 5.0, 3.6, 2.6, 1.8,
  1.0,
]);
/** Share of a weekend day's trips starting in each local hour 0..23 (sums to 1). */
export const WEEKEND_HOURLY_SHARE = normalise([
  1.0, 0.7, 0.5, 0.3, 0.3, 0.5, 1.0, 2.0, 3.5, 5.0, 6.5, 7.5, 8.0, 8.0, 7.8, 7.5, 7.0, 6.5, 6.0, 5.0, 4.0, 3.2, 2.4,
  1.6,
]);

function normalise(xs: number[]): number[] {
  const s = xs.reduce((a, b) => a + b, 0);
  return xs.map((x) => x / s);
}

/** Edges trips may start or end on: routable, not motorway/ferry/service, not destination-only. */
export function isTripEndEdge(g: Graph, e: number): boolean {
  const c = g.edgeRoadClass[e];
  return (
    (g.edgeFlags[e] & EdgeFlag.routable) !== 0 &&
    c >= RoadClass.primary &&
    c <= RoadClass.living_street &&
    (g.edgeFlags[e] & EdgeFlag.highway) === 0
  );
}

/** Cumulative-weight sampler over edges. */
class WeightedEdges {
  private readonly edges: Uint32Array;
  private readonly cum: Float64Array;
  constructor(edges: number[], weights: number[]) {
    this.edges = Uint32Array.from(edges);
    this.cum = new Float64Array(edges.length);
    let s = 0;
    for (let i = 0; i < edges.length; i++) {
      s += weights[i];
      this.cum[i] = s;
    }
  }
  get size(): number {
    return this.edges.length;
  }
  pick(rng: Rng): number {
    const x = rng.next() * this.cum[this.cum.length - 1];
    let lo = 0,
      hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return this.edges[lo];
  }
}

/** Origin/destination sampler: "home" ends weighted to local streets, "activity" ends to arterials. */
export class OdSampler {
  private readonly homes: WeightedEdges;
  private readonly activities: WeightedEdges;

  constructor(g: Graph) {
    const ends: number[] = [];
    const home: number[] = [];
    const act: number[] = [];
    for (let e = 0; e < g.edgeCount; e++) {
      if (!isTripEndEdge(g, e)) continue;
      const c = g.edgeRoadClass[e];
      const len = Math.max(10, g.edgeLengthM[e]);
      ends.push(e);
      home.push(len * (c >= RoadClass.unclassified ? 3 : 1));
      act.push(len * (c <= RoadClass.secondary ? 4 : c === RoadClass.tertiary ? 2 : 1));
    }
    if (ends.length < 2) throw new Error('the region has fewer than two edges where trips can start or end');
    this.homes = new WeightedEdges(ends, home);
    this.activities = new WeightedEdges(ends, act);
  }

  /** Picks a trip's origin and destination edges for a local hour of a weekday or weekend day. */
  pick(rng: Rng, localHour: number, weekend: boolean): [number, number] {
    const am = !weekend && localHour >= 5 && localHour < 11;
    const pm = !weekend && localHour >= 15 && localHour < 20;
    const from = am ? this.homes : pm ? this.activities : rng.next() < 0.5 ? this.homes : this.activities;
    const to = am ? this.activities : pm ? this.homes : rng.next() < 0.5 ? this.homes : this.activities;
    return [from.pick(rng), to.pick(rng)];
  }
}
