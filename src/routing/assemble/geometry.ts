/**
 * Route geometry: the points of a costed path (partial first and last edges cut at their
 * fractions), the point-index range each edge covers, Douglas-Peucker simplification with the
 * contract's tolerance rules.
 */
import type { Graph } from '../../network/graph.js';
import type { EdgeTiming } from '../path-cost.js';
import { douglasPeuckerIndices, haversineM } from '../../geo/index.js';

/** Points [lat, lon] of edge e between fractions f0 ≤ f1 of its geometry length. */
export function edgeSlice(g: Graph, e: number, f0: number, f1: number): Array<[number, number]> {
  const s = g.edgeGeomStart[e];
  const end = g.edgeGeomStart[e + 1];
  const pts: Array<[number, number]> = [];
  for (let i = s; i < end; i++) pts.push([g.geomLatE7[i] / 1e7, g.geomLonE7[i] / 1e7]);
  if (f0 <= 0 && f1 >= 1) return pts;
  const cum: number[] = [0];
  for (let i = 1; i < pts.length; i++)
    cum.push(cum[i - 1] + haversineM(pts[i - 1][0], pts[i - 1][1], pts[i][0], pts[i][1]));
  const total = cum[cum.length - 1];
  const at = (d: number): [number, number] => {
    for (let i = 1; i < pts.length; i++) {
      if (d <= cum[i] || i === pts.length - 1) {
        const seg = cum[i] - cum[i - 1];
        const t = seg > 0 ? Math.min(1, Math.max(0, (d - cum[i - 1]) / seg)) : 0;
        return [pts[i - 1][0] + t * (pts[i][0] - pts[i - 1][0]), pts[i - 1][1] + t * (pts[i][1] - pts[i - 1][1])];
      }
    }
    return pts[0];
  };
  const d0 = f0 * total;
  const d1 = f1 * total;
  const out: Array<[number, number]> = [at(d0)];
  for (let i = 1; i < pts.length - 1; i++) if (cum[i] > d0 && cum[i] < d1) out.push(pts[i]);
  out.push(at(d1));
  return out;
}

/** Route points and, per timing, the index range [start, end] of its points. */
export interface RouteGeometry {
  /** [lat, lon] degrees */
  points: Array<[number, number]>;
  edgeStart: number[];
  edgeEnd: number[];
}

/** Builds the full-resolution geometry of a costed path. */
export function routeGeometry(
  g: Graph,
  timings: EdgeTiming[],
  startFractions: number[],
  endFractions: number[],
): RouteGeometry {
  const points: Array<[number, number]> = [];
  const edgeStart: number[] = [];
  const edgeEnd: number[] = [];
  for (let i = 0; i < timings.length; i++) {
    const t = timings[i];
    const firstOfLeg = i === 0 || timings[i - 1].leg !== t.leg;
    const lastOfLeg = i === timings.length - 1 || timings[i + 1].leg !== t.leg;
    const f0 = firstOfLeg ? startFractions[t.leg] : 0;
    const f1 = lastOfLeg ? endFractions[t.leg] : 1;
    const pts = edgeSlice(g, t.edge, f0, f1);
    let k = 0;
    if (points.length > 0) {
      const last = points[points.length - 1];
      if (Math.abs(last[0] - pts[0][0]) < 1e-9 && Math.abs(last[1] - pts[0][1]) < 1e-9) k = 1;
    }
    edgeStart.push(points.length - (k === 1 ? 1 : 0));
    for (; k < pts.length; k++) points.push(pts[k]);
    edgeEnd.push(points.length - 1);
  }
  return { points, edgeStart, edgeEnd };
}

/**
 * Indices of the points kept by GeometryTolerance `toleranceM` (metres): 0 keeps every point;
 * otherwise points closer than the tolerance to the previous kept point are dropped, then
 * Douglas-Peucker removes points within the tolerance of the simplified line; a tolerance above
 * the route length keeps only origin and destination. First and last are always kept.
 */
export function simplifyIndices(points: Array<[number, number]>, toleranceM: number): number[] {
  const n = points.length;
  if (n <= 2 || toleranceM <= 0) return points.map((_, i) => i);
  let lengthM = 0;
  for (let i = 1; i < n; i++) lengthM += haversineM(points[i - 1][0], points[i - 1][1], points[i][0], points[i][1]);
  if (toleranceM > lengthM) return [0, n - 1];
  // radial pass
  const radial: number[] = [0];
  for (let i = 1; i < n - 1; i++) {
    const p = points[radial[radial.length - 1]];
    if (haversineM(p[0], p[1], points[i][0], points[i][1]) >= toleranceM) radial.push(i);
  }
  radial.push(n - 1);
  // Douglas-Peucker over the radial survivors
  return douglasPeuckerIndices(points, toleranceM, radial);
}
