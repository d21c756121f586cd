/**
 * Snapping waypoints to the road graph: nearest edge geometry within a radius, both travel
 * directions of a two-way street, filtered by heading when one is given. Uses a packed R-tree
 * (flatbush) over edge bounding boxes in a locally scaled lon/lat plane.
 */
import Flatbush from 'flatbush';
import { EdgeFlag, type Graph } from '../network/graph.js';

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

const RAD = Math.PI / 180;
const M_PER_DEG = 111_320;

function bearing(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const y = Math.sin((lon2 - lon1) * RAD) * Math.cos(lat2 * RAD);
  const x = Math.cos(lat1 * RAD) * Math.sin(lat2 * RAD) - Math.sin(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.cos((lon2 - lon1) * RAD);
  return ((Math.atan2(y, x) / RAD) + 360) % 360;
}

/** Smallest absolute difference between two bearings, degrees 0..180. */
export function bearingDiffDeg(a: number, b: number): number {
  const d = Math.abs(a - b) % 360;
  return d > 180 ? 360 - d : d;
}

/** Spatial index of a graph's edges for snapping. Build once per graph. */
export class EdgeLocator {
  private readonly index: Flatbush;
  private readonly ids: Uint32Array;
  private readonly cosRef: number;
  /** true when the graph marks routable edges (then only those are snapped to) */
  private readonly routableOnly: boolean;

  constructor(private readonly g: Graph) {
    let routable = false;
    for (let e = 0; e < g.edgeCount && !routable; e++) if (g.edgeFlags[e] & EdgeFlag.routable) routable = true;
    this.routableOnly = routable;
    const ids: number[] = [];
    for (let e = 0; e < g.edgeCount; e++) {
      const tw = g.edgeTwin[e];
      if (tw >= 0 && tw < e && this.usable(tw)) continue;
      if (!this.usable(e) && !(tw >= 0 && this.usable(tw))) continue;
      ids.push(e);
    }
    let latSum = 0;
    for (let n = 0; n < g.nodeCount; n++) latSum += g.nodeLatE7[n] / 1e7;
    this.cosRef = Math.cos(((g.nodeCount ? latSum / g.nodeCount : 0) * RAD));
    this.ids = Uint32Array.from(ids);
    this.index = new Flatbush(Math.max(1, ids.length));
    for (const e of ids) {
      let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
      for (let i = g.edgeGeomStart[e]; i < g.edgeGeomStart[e + 1]; i++) {
        const x = (g.geomLonE7[i] / 1e7) * this.cosRef;
        const y = g.geomLatE7[i] / 1e7;
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
      this.index.add(minX, minY, maxX, maxY);
    }
    if (ids.length === 0) this.index.add(0, 0, 0, 0);
    this.index.finish();
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
    if (this.ids.length === 0) return [];
    const g = this.g;
    const maxDeg = maxDistanceM / M_PER_DEG;
    const x = lon * this.cosRef;
    const found = this.index.neighbors(x, lat, 8, maxDeg);
    let best: Snap | null = null;
    const mx = M_PER_DEG * Math.cos(lat * RAD);
    const consider = (k: number) => {
      const s = this.projectOnEdge(this.ids[k], lat, lon, mx);
      if (s.distanceM <= maxDistanceM && (!best || s.distanceM < best.distanceM - 1e-9 || (Math.abs(s.distanceM - best.distanceM) <= 1e-9 && s.edge < best.edge))) best = s;
    };
    for (const k of found) consider(k);
    if (!best) return [];
    // Boxes are ranked by box distance, not by true distance: re-check every edge whose box lies
    // within the best true distance (plus a margin for the local scale), so the nearest edge wins.
    const d = ((best as Snap).distanceM / M_PER_DEG) * 1.1 + 1e-7;
    const seen = new Set(found);
    for (const k of this.index.search(x - d, lat - d, x + d, lat + d)) if (!seen.has(k)) consider(k);
    if (!best) return [];
    best = best as Snap;
    const out: Snap[] = [];
    if (this.usable(best.edge)) out.push(best);
    const tw = g.edgeTwin[best.edge];
    if (tw >= 0 && this.usable(tw)) {
      out.push({ edge: tw, fraction: 1 - best.fraction, lat: best.lat, lon: best.lon, distanceM: best.distanceM, bearingDeg: (best.bearingDeg + 180) % 360 });
    }
    if (headingDeg !== undefined && out.length > 1) {
      const ok = out.filter((s) => bearingDiffDeg(s.bearingDeg, headingDeg) <= headingToleranceDeg);
      if (ok.length > 0) return ok;
    }
    return out;
  }

  /** Projects a point on edge e's geometry (metres in a local plane). */
  private projectOnEdge(e: number, lat: number, lon: number, mx: number): Snap {
    const g = this.g;
    const s = g.edgeGeomStart[e];
    const end = g.edgeGeomStart[e + 1];
    let total = 0;
    let bestD = Infinity, bestAlong = 0, bestLat = 0, bestLon = 0, bestBearing = 0;
    for (let i = s; i < end - 1; i++) {
      const aLat = g.geomLatE7[i] / 1e7, aLon = g.geomLonE7[i] / 1e7;
      const bLat = g.geomLatE7[i + 1] / 1e7, bLon = g.geomLonE7[i + 1] / 1e7;
      const ax = (aLon - lon) * mx, ay = (aLat - lat) * M_PER_DEG;
      const bx = (bLon - lon) * mx, by = (bLat - lat) * M_PER_DEG;
      const dx = bx - ax, dy = by - ay;
      const segLen = Math.sqrt(dx * dx + dy * dy);
      let t = segLen > 0 ? -(ax * dx + ay * dy) / (segLen * segLen) : 0;
      if (t < 0) t = 0;
      else if (t > 1) t = 1;
      const px = ax + t * dx, py = ay + t * dy;
      const d = Math.sqrt(px * px + py * py);
      if (d < bestD) {
        bestD = d;
        bestAlong = total + t * segLen;
        bestLat = aLat + t * (bLat - aLat);
        bestLon = aLon + t * (bLon - aLon);
        bestBearing = bearing(aLat, aLon, bLat, bLon);
      }
      total += segLen;
    }
    return { edge: e, fraction: total > 0 ? bestAlong / total : 0, lat: bestLat, lon: bestLon, distanceM: bestD, bearingDeg: bestBearing };
  }
}
