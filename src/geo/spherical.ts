/** Distances, bearings and destinations on the sphere (mean Earth radius). Pure. */

/** Mean Earth radius, metres (IUGG). */
export const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/**
 * Metres per degree of latitude on that sphere (≈ 111 195 m), and of longitude at the equator:
 * the one factor of every local equirectangular approximation (× cos(latitude) for longitude).
 */
export const M_PER_DEG = EARTH_RADIUS_M * RAD;

/** Great-circle distance between two points, metres (haversine). */
export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Initial bearing from point 1 to point 2, degrees clockwise from north in [0, 360). */
export function bearingDeg(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const y = Math.sin((lon2 - lon1) * RAD) * Math.cos(lat2 * RAD);
  const x =
    Math.cos(lat1 * RAD) * Math.sin(lat2 * RAD) -
    Math.sin(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.cos((lon2 - lon1) * RAD);
  const b = Math.atan2(y, x) / RAD;
  return (b + 360) % 360;
}

/**
 * Signed turn angle from an inbound bearing to an outbound bearing, degrees in (-180, 180]:
 * 0 = straight on, negative = left, positive = right, ±180 = U-turn.
 */
export function turnAngleDeg(inBearingDeg: number, outBearingDeg: number): number {
  let d = (outBearingDeg - inBearingDeg) % 360;
  if (d <= -180) d += 360;
  if (d > 180) d -= 360;
  return d;
}

/** Absolute difference between two bearings, degrees in [0, 180]. */
export function bearingDiffDeg(a: number, b: number): number {
  return Math.abs(turnAngleDeg(a, b));
}

/** The point `distanceM` metres from (lat, lon) along `bearing` degrees, as [lat, lon]. */
export function destinationPoint(lat: number, lon: number, bearing: number, distanceM: number): [number, number] {
  const d = distanceM / EARTH_RADIUS_M;
  const b = bearing * RAD;
  const la1 = lat * RAD;
  const lo1 = lon * RAD;
  const la2 = Math.asin(Math.sin(la1) * Math.cos(d) + Math.cos(la1) * Math.sin(d) * Math.cos(b));
  const lo2 = lo1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(la1), Math.cos(d) - Math.sin(la1) * Math.sin(la2));
  return [la2 / RAD, ((lo2 / RAD + 540) % 360) - 180];
}

/**
 * Length of a polyline of [lat, lon] points, metres: the sum of `distanceM` over its segments
 * (the haversine by default; `geodesicDistanceM` for the WGS 84 ellipsoid).
 */
export function polylineLengthM(
  points: ReadonlyArray<readonly [number, number]>,
  distanceM: (lat1: number, lon1: number, lat2: number, lon2: number) => number = haversineM,
): number {
  let len = 0;
  for (let i = 1; i < points.length; i++)
    len += distanceM(points[i - 1][0], points[i - 1][1], points[i][0], points[i][1]);
  return len;
}

/** Bounding box of [lat, lon] points as [minLat, minLon, maxLat, maxLon]. Throws on an empty list. */
export function bboxOf(points: ReadonlyArray<readonly [number, number]>): [number, number, number, number] {
  if (points.length === 0) throw new Error('bboxOf: no points');
  let minLat = Infinity,
    minLon = Infinity,
    maxLat = -Infinity,
    maxLon = -Infinity;
  for (const [la, lo] of points) {
    if (la < minLat) minLat = la;
    if (la > maxLat) maxLat = la;
    if (lo < minLon) minLon = lo;
    if (lo > maxLon) maxLon = lo;
  }
  return [minLat, minLon, maxLat, maxLon];
}
