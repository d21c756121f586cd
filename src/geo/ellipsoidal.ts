/**
 * Distances on the WGS 84 ellipsoid (Vincenty's inverse formula). The one ellipsoidal function of
 * the kernel: the parking API documents its `distance` fields as metres on the WGS 84 ellipsoid
 * (docs/parking.md), where the sphere of `haversineM` differs by up to 0.5 %. Everything else —
 * routing, matching, the simulator, every local projection — uses the sphere.
 */
import { M_PER_DEG, haversineM } from './spherical.js';
import { projectOnSegment } from './planar.js';

const A_M = 6_378_137;
const F = 1 / 298.257223563;
const B_M = A_M * (1 - F);
const RAD = Math.PI / 180;

/** Vincenty's closing step: the geodesic length once λ has converged. */
function vincentyLengthM(sigma: number, sinSigma: number, cosSigma: number, cosSqAlpha: number, cos2SigmaM: number) {
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

/**
 * Geodesic distance in metres between two points on the WGS 84 ellipsoid (Vincenty 1975, inverse;
 * sub-millimetre). Falls back to the haversine when the iteration does not converge (nearly
 * antipodal points).
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
  for (let iter = 0; iter < 200; iter++) {
    const sinLambda = Math.sin(lambda),
      cosLambda = Math.cos(lambda);
    const t1 = cosU2 * sinLambda;
    const t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda;
    const sinSigma = Math.sqrt(t1 * t1 + t2 * t2);
    if (sinSigma === 0) return 0;
    const cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda;
    const sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinLambda) / sinSigma;
    const cosSqAlpha = 1 - sinAlpha * sinAlpha;
    const cos2SigmaM = cosSqAlpha !== 0 ? cosSigma - (2 * sinU1 * sinU2) / cosSqAlpha : 0; // equatorial line
    const C = (F / 16) * cosSqAlpha * (4 + F * (4 - 3 * cosSqAlpha));
    const prev = lambda;
    lambda =
      L +
      (1 - C) *
        F *
        sinAlpha *
        (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)));
    if (Math.abs(lambda - prev) < 1e-12) return vincentyLengthM(sigma, sinSigma, cosSigma, cosSqAlpha, cos2SigmaM);
  }
  return haversineM(lat1, lon1, lat2, lon2);
}

/**
 * Degrees of latitude and longitude that certainly cover `distanceM` around latitude `lat`, on the
 * sphere or the ellipsoid (a degree of the WGS 84 meridian is at most 0.6 % shorter than
 * M_PER_DEG; the 1 % margin covers it); turns a radius into an index bounding box.
 */
export function degreeSpan(lat: number, distanceM: number): { dLat: number; dLon: number } {
  const dLat = (distanceM * 1.01) / M_PER_DEG;
  const cosLat = Math.max(Math.cos(Math.min(89.9, Math.abs(lat) + dLat) * RAD), 1e-6);
  const dLon = Math.min(180, (distanceM * 1.01) / (M_PER_DEG * cosLat));
  return { dLat, dLon };
}

/**
 * Geodesic distance in metres from a point to the nearest point of a [lat, lon] polyline: the
 * nearest point is found in the local projection (`projectOnSegment`), then measured on the
 * ellipsoid.
 */
export function distanceToPolylineM(lat: number, lon: number, line: ReadonlyArray<readonly [number, number]>): number {
  if (line.length === 1) return geodesicDistanceM(lat, lon, line[0][0], line[0][1]);
  let best = Infinity;
  let bestLat = line[0][0],
    bestLon = line[0][1];
  for (let i = 1; i < line.length; i++) {
    const c = projectOnSegment(lat, lon, line[i - 1][0], line[i - 1][1], line[i][0], line[i][1]);
    if (c.distanceM < best) {
      best = c.distanceM;
      bestLat = c.lat;
      bestLon = c.lon;
    }
  }
  return geodesicDistanceM(lat, lon, bestLat, bestLon);
}
