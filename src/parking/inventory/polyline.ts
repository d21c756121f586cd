/** Encoded polylines (precision 5 and 6) and slicing a [lat, lon] line by distance along it. */
import polyline from '@mapbox/polyline';
import { M_PER_DEG, haversineM } from '../../geo/index.js';

/** Encodes [lat, lon] points as a Google encoded polyline at `precision` decimals. */
export function encodeLine(points: ReadonlyArray<readonly [number, number]>, precision = 5): string {
  return polyline.encode(points as Array<[number, number]>, precision);
}

/** Decodes an encoded polyline into [lat, lon] points. */
export function decodeLine(s: string, precision = 5): Array<[number, number]> {
  return polyline.decode(s, precision) as Array<[number, number]>;
}

/** Part of `line` between `fromM` and `toM` metres from its start (spherical lengths). */
export function sliceLine(
  line: ReadonlyArray<readonly [number, number]>,
  fromM: number,
  toM: number,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let acc = 0;
  const at = (a: readonly [number, number], b: readonly [number, number], f: number): [number, number] => [
    a[0] + (b[0] - a[0]) * f,
    a[1] + (b[1] - a[1]) * f,
  ];
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1],
      b = line[i];
    const len = haversineM(a[0], a[1], b[0], b[1]);
    const s0 = acc,
      s1 = acc + len;
    if (s1 >= fromM && s0 <= toM && len > 0) {
      if (out.length === 0) out.push(at(a, b, Math.max(0, (fromM - s0) / len)));
      if (s1 <= toM) out.push([b[0], b[1]]);
      else {
        out.push(at(a, b, (toM - s0) / len));
        break;
      }
    }
    acc = s1;
  }
  if (out.length === 1) out.push(out[0]);
  if (out.length === 0)
    return [
      [line[0][0], line[0][1]],
      [line[0][0], line[0][1]],
    ];
  return out;
}

/** Offset of a curb from the street centre line, metres (half a typical lane plus parking lane). */
export const CURB_OFFSET_M = 4;

/**
 * The line shifted sideways by `offsetM` metres (positive = to the right of its direction), with
 * vertex normals averaged between neighbouring segments (local equirectangular projection).
 */
export function offsetLine(line: ReadonlyArray<readonly [number, number]>, offsetM: number): Array<[number, number]> {
  if (line.length < 2) return line.map((p) => [p[0], p[1]]);
  const kLat = M_PER_DEG,
    kLon = M_PER_DEG * Math.cos((line[0][0] * Math.PI) / 180);
  const normals: Array<[number, number]> = [];
  for (let i = 1; i < line.length; i++) {
    const dx = (line[i][1] - line[i - 1][1]) * kLon,
      dy = (line[i][0] - line[i - 1][0]) * kLat;
    const len = Math.hypot(dx, dy) || 1;
    normals.push([dy / len, -dx / len]); // right-hand normal (x east, y north)
  }
  return line.map((p, i) => {
    const a = normals[Math.max(0, i - 1)],
      b = normals[Math.min(normals.length - 1, i)];
    let nx = a[0] + b[0],
      ny = a[1] + b[1];
    const n = Math.hypot(nx, ny) || 1;
    nx /= n;
    ny /= n;
    return [p[0] + (ny * offsetM) / kLat, p[1] + (nx * offsetM) / kLon];
  });
}
