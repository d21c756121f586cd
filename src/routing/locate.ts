/**
 * Snapping waypoints for routing: the nearest road within a radius (the shared `network/` locator),
 * both travel directions of a two-way street, filtered by heading when one is given. Reversible
 * one-ways are never snapped to; when the graph marks routable edges, only those are.
 */
import { bearingDiffDeg, polylineLengthM } from '../geo/index.js';
import { EdgeFlag, type Graph, edgeGeometry } from '../network/graph.js';
import { locatorOf } from '../network/locate.js';
import type { SegmentIndex } from '../network/segment-index.js';

export { bearingDiffDeg };

/** A position on a directed edge: `fraction` 0 = at its source node, 1 = at its target node. */
export interface Snap {
  edge: number;
  /** position along the edge in its travel direction, 0..1 (by geometry length) */
  fraction: number;
  /** the snapped point, degrees */
  lat: number;
  lon: number;
  /** distance from the query point to the road, metres */
  distanceM: number;
  /** travel bearing of the edge at the snapped point, degrees clockwise from north */
  bearingDeg: number;
}

/** Waypoint snapping over a graph's shared spatial index. Build once per graph. */
export class EdgeLocator {
  private readonly net: SegmentIndex;
  /** true when the graph marks routable edges (then only those are snapped to) */
  private readonly routableOnly: boolean;

  constructor(private readonly g: Graph) {
    let routable = false;
    for (let e = 0; e < g.edgeCount && !routable; e++) if (g.edgeFlags[e] & EdgeFlag.routable) routable = true;
    this.routableOnly = routable;
    this.net = locatorOf(g);
  }

  private usable(e: number): boolean {
    const f = this.g.edgeFlags[e];
    if (f & EdgeFlag.reversible) return false;
    return !this.routableOnly || (f & EdgeFlag.routable) !== 0;
  }

  /**
   * Snaps a point: the directed edges (one or both directions) at the nearest road within
   * `maxDistanceM`. With `headingDeg`, directions more than `headingToleranceDeg` off are dropped
   * (unless that would drop all). Empty when nothing is near.
   */
  locate(lat: number, lon: number, maxDistanceM: number, headingDeg?: number, headingToleranceDeg = 90): Snap[] {
    const g = this.g;
    // The nearest position on any edge whose street can be driven in at least one direction.
    const near = this.net.locate(lat, lon, {
      maxDistanceM,
      routableOnly: false,
      filter: (e) => this.usable(e) || (g.edgeTwin[e] >= 0 && this.usable(g.edgeTwin[e])),
    });
    if (!near) return [];
    // fraction by geometry (an edge's stored length may differ from its drawn geometry)
    const geomM = this.geometryLengthM(near.edge);
    const fraction = geomM > 0 ? Math.min(1, near.offsetM / geomM) : 0;
    const best: Snap = {
      edge: near.edge,
      fraction,
      lat: near.lat,
      lon: near.lon,
      distanceM: near.distanceM,
      bearingDeg: near.bearingDeg,
    };
    const out: Snap[] = [];
    if (this.usable(best.edge)) out.push(best);
    const tw = g.edgeTwin[best.edge];
    if (tw >= 0 && this.usable(tw)) {
      out.push({
        edge: tw,
        fraction: 1 - best.fraction,
        lat: best.lat,
        lon: best.lon,
        distanceM: best.distanceM,
        bearingDeg: (best.bearingDeg + 180) % 360,
      });
    }
    // one direction first, as before: the lower edge id of the pair when both are usable
    out.sort((a, b) => a.edge - b.edge);
    if (headingDeg !== undefined && out.length > 1) {
      const ok = out.filter((s) => bearingDiffDeg(s.bearingDeg, headingDeg) <= headingToleranceDeg);
      if (ok.length > 0) return ok;
    }
    return out;
  }

  /** Length of edge e's drawn geometry, metres (the unit of the shared locator's offsets). */
  private geometryLengthM(e: number): number {
    return polylineLengthM(edgeGeometry(this.g, e));
  }
}
