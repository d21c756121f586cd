/**
 * Small-area geometry in a local equirectangular projection (metres): projection of a point on a
 * segment, Douglas-Peucker simplification, point-in-polygon, ring centroid and area. Accurate to well under a metre over
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

/**
 * Area-weighted centroid [lat, lon] of a ring in the lat/lon plane (fine at lot scale), taken
 * relative to the first vertex for precision; the vertex mean for a degenerate ring.
 */
export function ringCentroid(ring: ReadonlyArray<readonly [number, number]>): [number, number] {
  const lat0 = ring[0][0],
    lon0 = ring[0][1];
  let a = 0,
    cx = 0,
    cy = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const xi = ring[i][1] - lon0,
      yi = ring[i][0] - lat0,
      xj = ring[j][1] - lon0,
      yj = ring[j][0] - lat0;
    const f = xj * yi - xi * yj;
    a += f;
    cx += (xj + xi) * f;
    cy += (yj + yi) * f;
  }
  if (Math.abs(a) < 1e-14) {
    let sLat = 0,
      sLon = 0;
    for (const p of ring) {
      sLat += p[0];
      sLon += p[1];
    }
    return [sLat / ring.length, sLon / ring.length];
  }
  return [lat0 + cy / (3 * a), lon0 + cx / (3 * a)];
}

/** Area of a small [lat, lon] ring, square metres (projection at its first vertex's latitude). */
export function ringAreaM2(ring: ReadonlyArray<readonly [number, number]>): number {
  if (ring.length < 3) return 0;
  const kx = M_PER_DEG * Math.cos(ring[0][0] * RAD);
  const ky = M_PER_DEG;
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    a += ring[j][1] * kx * (ring[i][0] * ky) - ring[i][1] * kx * (ring[j][0] * ky);
  }
  return Math.abs(a) / 2;
}
