/**
 * Small-area geometry in a local equirectangular projection (metres): projection of a point on a
 * segment, Douglas-Peucker simplification, point-in-polygon. Accurate to well under a metre over
 * the few kilometres these are used for.
 */
import { EARTH_RADIUS_M, M_PER_DEG } from './spherical.js';

const RAD = Math.PI / 180;

/** Where a point projects onto segment a→b. `t` in [0, 1] along the segment. */
export interface SegmentProjection {
  t: number;
  /** distance from the point to the projection, metres */
  distanceM: number;
  lat: number;
  lon: number;
}

/** Projects (lat, lon) onto the segment a→b (clamped to the segment). */
export function projectOnSegment(
  lat: number,
  lon: number,
  aLat: number,
  aLon: number,
  bLat: number,
  bLon: number,
): SegmentProjection {
  const kx = Math.cos(((aLat + bLat) / 2) * RAD) * RAD * EARTH_RADIUS_M;
  const ky = M_PER_DEG;
  const bx = (bLon - aLon) * kx;
  const by = (bLat - aLat) * ky;
  const px = (lon - aLon) * kx;
  const py = (lat - aLat) * ky;
  const len2 = bx * bx + by * by;
  let t = len2 > 0 ? (px * bx + py * by) / len2 : 0;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  const dx = px - t * bx;
  const dy = py - t * by;
  return { t, distanceM: Math.sqrt(dx * dx + dy * dy), lat: aLat + t * (bLat - aLat), lon: aLon + t * (bLon - aLon) };
}

/**
 * Indices, ascending, of the points Douglas-Peucker simplification keeps at `toleranceM` metres,
 * among `candidates` (indices into `points`, ascending; every point by default). The first and
 * last candidates are always kept; a tolerance ≤ 0 keeps every candidate.
 */
export function douglasPeuckerIndices(
  points: ReadonlyArray<readonly [number, number]>,
  toleranceM: number,
  candidates?: readonly number[],
): number[] {
  const ids = candidates ?? points.map((_, i) => i);
  const n = ids.length;
  if (n <= 2 || toleranceM <= 0) return [...ids];
  const keep = new Uint8Array(n);
  keep[0] = 1;
  keep[n - 1] = 1;
  const stack: number[] = [0, n - 1];
  while (stack.length) {
    const last = stack.pop()!;
    const first = stack.pop()!;
    const a = points[ids[first]];
    const b = points[ids[last]];
    let maxD = -1;
    let idx = -1;
    for (let i = first + 1; i < last; i++) {
      const p = points[ids[i]];
      const d = projectOnSegment(p[0], p[1], a[0], a[1], b[0], b[1]).distanceM;
      if (d > maxD) {
        maxD = d;
        idx = i;
      }
    }
    if (idx >= 0 && maxD > toleranceM) {
      keep[idx] = 1;
      stack.push(first, idx, idx, last);
    }
  }
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (keep[i]) out.push(ids[i]);
  return out;
}

/**
 * Douglas-Peucker simplification of [lat, lon] points with a tolerance in metres. The first and
 * last points are always kept; a tolerance ≤ 0 returns a copy.
 */
export function simplifyDouglasPeucker(
  points: ReadonlyArray<readonly [number, number]>,
  toleranceM: number,
): Array<[number, number]> {
  return douglasPeuckerIndices(points, toleranceM).map((i) => [points[i][0], points[i][1]]);
}

/** True when (lat, lon) lies inside the ring of [lat, lon] points (even-odd rule; ring may be open or closed). */
export function pointInPolygon(lat: number, lon: number, ring: ReadonlyArray<readonly [number, number]>): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [yi, xi] = ring[i];
    const [yj, xj] = ring[j];
    if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
