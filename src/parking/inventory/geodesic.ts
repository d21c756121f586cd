/**
 * Distances on the WGS 84 ellipsoid (Vincenty's inverse formula, sub-millimetre for the distances
 * parking queries use) plus a fast local projection for filtering. The output `distance` of lots and
 * blocks comes from `geodesicDistanceM`; the spatial filters use the cheap projection with a margin.
 */

import { haversineM, bearingDeg, pointInPolygon } from '../../geo/index.js';

export { haversineM, bearingDeg };
/** Ray-casting point-in-polygon test on a [lat, lon] ring (closed or open). */
export const pointInRing = pointInPolygon;

const A_M = 6_378_137;
const F = 1 / 298.257223563;
const B_M = A_M * (1 - F);
const RAD = Math.PI / 180;

/**
 * Geodesic distance in metres between two points on the WGS 84 ellipsoid (Vincenty 1975, inverse).
 * Falls back to a spherical great circle scaled to the ellipsoid when the iteration does not
 * converge (nearly antipodal points, never the case for parking queries).
 * @example geodesicDistanceM(39.2904, -76.6122, 39.2854, -76.6122) // ≈ 555.1
 */
export function geodesicDistanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  if (lat1 === lat2 && lon1 === lon2) return 0;
  const L = (lon2 - lon1) * RAD;
  const U1 = Math.atan((1 - F) * Math.tan(lat1 * RAD));
  const U2 = Math.atan((1 - F) * Math.tan(lat2 * RAD));
  const sinU1 = Math.sin(U1),
    cosU1 = Math.cos(U1);
  const sinU2 = Math.sin(U2),
    cosU2 = Math.cos(U2);
  let lambda = L;
  let sinSigma = 0,
    cosSigma = 0,
    sigma = 0,
    cosSqAlpha = 0,
    cos2SigmaM = 0;
  for (let iter = 0; iter < 200; iter++) {
    const sinLambda = Math.sin(lambda),
      cosLambda = Math.cos(lambda);
    const t1 = cosU2 * sinLambda;
    const t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda;
    sinSigma = Math.sqrt(t1 * t1 + t2 * t2);
    if (sinSigma === 0) return 0;
    cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda;
    sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinLambda) / sinSigma;
    cosSqAlpha = 1 - sinAlpha * sinAlpha;
    cos2SigmaM = cosSqAlpha !== 0 ? cosSigma - (2 * sinU1 * sinU2) / cosSqAlpha : 0; // equatorial line
    const C = (F / 16) * cosSqAlpha * (4 + F * (4 - 3 * cosSqAlpha));
    const prev = lambda;
    lambda =
      L +
      (1 - C) *
        F *
        sinAlpha *
        (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)));
    if (Math.abs(lambda - prev) < 1e-12) {
      const uSq = (cosSqAlpha * (A_M * A_M - B_M * B_M)) / (B_M * B_M);
      const A = 1 + (uSq / 16384) * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)));
      const B = (uSq / 1024) * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)));
      const deltaSigma =
        B *
        sinSigma *
        (cos2SigmaM +
          (B / 4) *
            (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) -
              (B / 6) * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)));
      return B_M * A * (sigma - deltaSigma);
    }
  }
  return haversineM(lat1, lon1, lat2, lon2);
}

/**
 * Degrees of latitude and longitude that certainly cover `distanceM` around latitude `lat`
 * (with a 1 % margin for the ellipsoid); used to turn a radius into an index bounding box.
 */
export function degreeSpan(lat: number, distanceM: number): { dLat: number; dLon: number } {
  const dLat = (distanceM * 1.01) / 110_574;
  const cosLat = Math.max(Math.cos(Math.min(89.9, Math.abs(lat) + dLat) * RAD), 1e-6);
  const dLon = Math.min(180, (distanceM * 1.01) / (111_320 * cosLat));
  return { dLat, dLon };
}

/**
 * Closest point of segment A–B to P in a local equirectangular projection around P (exact enough
 * for segments of a few kilometres). Returns the closest point and `t` in [0,1] along A→B.
 */
export function closestOnSegment(
  lat: number,
  lon: number,
  aLat: number,
  aLon: number,
  bLat: number,
  bLon: number,
): { t: number; lat: number; lon: number } {
  const k = Math.cos(lat * RAD);
  const ax = (aLon - lon) * k,
    ay = aLat - lat;
  const bx = (bLon - lon) * k,
    by = bLat - lat;
  const dx = bx - ax,
    dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 === 0 ? 0 : -(ax * dx + ay * dy) / len2;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  return { t, lat: aLat + (bLat - aLat) * t, lon: aLon + (bLon - aLon) * t };
}

/** Geodesic distance in metres from P to the nearest point of a [lat, lon] polyline. */
export function distanceToPolylineM(lat: number, lon: number, line: ReadonlyArray<readonly [number, number]>): number {
  if (line.length === 1) return geodesicDistanceM(lat, lon, line[0][0], line[0][1]);
  let best = Infinity;
  let bestLat = line[0][0],
    bestLon = line[0][1];
  for (let i = 1; i < line.length; i++) {
    const c = closestOnSegment(lat, lon, line[i - 1][0], line[i - 1][1], line[i][0], line[i][1]);
    const d = haversineM(lat, lon, c.lat, c.lon);
    if (d < best) {
      best = d;
      bestLat = c.lat;
      bestLon = c.lon;
    }
  }
  return geodesicDistanceM(lat, lon, bestLat, bestLon);
}

/** Length in metres of a [lat, lon] polyline along the ellipsoid. */
export function polylineLengthM(line: ReadonlyArray<readonly [number, number]>): number {
  let s = 0;
  for (let i = 1; i < line.length; i++) s += geodesicDistanceM(line[i - 1][0], line[i - 1][1], line[i][0], line[i][1]);
  return s;
}

/** Area-weighted centroid [lat, lon] of a ring (vertex mean for degenerate rings); relative to the first vertex for precision. */
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
  if (Math.abs(a) < 1e-18) {
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

/** Area in square metres of a small [lat, lon] ring (local projection). */
export function ringAreaM2(ring: ReadonlyArray<readonly [number, number]>): number {
  if (ring.length < 3) return 0;
  const lat0 = ring[0][0];
  const kx = 111_320 * Math.cos(lat0 * RAD),
    ky = 110_574;
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    a += ring[j][1] * kx * (ring[i][0] * ky) - ring[i][1] * kx * (ring[j][0] * ky);
  }
  return Math.abs(a) / 2;
}
