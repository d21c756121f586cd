/** Encoded polylines (Google's algorithm) at precision 5 or 6, via @mapbox/polyline. */
import polyline from '@mapbox/polyline';

/** Encodes [lat, lon] points; precision 5 (polyline) or 6 (polyline6). */
export function encodePolyline(points: ReadonlyArray<readonly [number, number]>, precision: 5 | 6 = 5): string {
  return polyline.encode(
    points.map((p) => [p[0], p[1]] as [number, number]),
    precision,
  );
}

/** Decodes an encoded polyline into [lat, lon] points. Throws on malformed input. */
export function decodePolyline(encoded: string, precision: 5 | 6 = 5): Array<[number, number]> {
  const pts = polyline.decode(encoded, precision) as Array<[number, number]>;
  for (const [la, lo] of pts) {
    if (!Number.isFinite(la) || !Number.isFinite(lo) || Math.abs(la) > 90 || Math.abs(lo) > 180) {
      throw new Error('malformed polyline');
    }
  }
  return pts;
}
