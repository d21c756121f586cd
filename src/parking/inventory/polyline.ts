/** Encoded polylines (precision 5 and 6) and slicing a [lat, lon] line by distance along it. */
import polyline from '@mapbox/polyline';
import { haversineM } from './geodesic.js';

/** Encodes [lat, lon] points as a Google encoded polyline at `precision` decimals. */
export function encodeLine(points: ReadonlyArray<readonly [number, number]>, precision = 5): string {
  return polyline.encode(points as Array<[number, number]>, precision);
}

/** Decodes an encoded polyline into [lat, lon] points. */
export function decodeLine(s: string, precision = 5): Array<[number, number]> {
  return polyline.decode(s, precision) as Array<[number, number]>;
}

/** Part of `line` between `fromM` and `toM` metres from its start (spherical lengths). */
export function sliceLine(line: ReadonlyArray<readonly [number, number]>, fromM: number, toM: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let acc = 0;
  const at = (a: readonly [number, number], b: readonly [number, number], f: number): [number, number] => [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1], b = line[i];
    const len = haversineM(a[0], a[1], b[0], b[1]);
    const s0 = acc, s1 = acc + len;
    if (s1 >= fromM && s0 <= toM && len > 0) {
      if (out.length === 0) out.push(at(a, b, Math.max(0, (fromM - s0) / len)));
      if (s1 <= toM) out.push([b[0], b[1]]);
      else { out.push(at(a, b, (toM - s0) / len)); break; }
    }
    acc = s1;
  }
  if (out.length === 1) out.push(out[0]);
  if (out.length === 0) return [[line[0][0], line[0][1]], [line[0][0], line[0][1]]];
  return out;
}
