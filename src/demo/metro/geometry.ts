/**
 * Plane geometry of the metro plan (metres east and north of the plan's south-west corner):
 * polylines measured by arc length, and barriers (the river, the motorways) indexed in a bucket
 * grid so that "how far is this point from it" and "does this segment cross it" stay cheap for
 * hundreds of thousands of streets.
 */

/** A point of the plan, metres. */
export interface Xy {
  x: number;
  y: number;
}

/** A polyline with cumulative arc length; positions are looked up by arc length `s` (metres). */
export class Polyline {
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  /** arc length at each vertex */
  readonly cum: Float64Array;

  constructor(points: readonly Xy[]) {
    if (points.length < 2) throw new Error('a polyline needs two points');
    this.xs = Float64Array.from(points, (p) => p.x);
    this.ys = Float64Array.from(points, (p) => p.y);
    this.cum = new Float64Array(points.length);
    for (let i = 1; i < points.length; i++)
      this.cum[i] = this.cum[i - 1] + Math.hypot(this.xs[i] - this.xs[i - 1], this.ys[i] - this.ys[i - 1]);
  }

  /** Total length, metres. */
  get lengthM(): number {
    return this.cum[this.cum.length - 1];
  }

  /** Index of the segment holding arc length `s` (clamped to the polyline). */
  private segmentAt(s: number): number {
    let lo = 0;
    let hi = this.cum.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.cum[mid] <= s) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The point at arc length `s`, shifted `offsetM` to the right of the direction of travel. */
  pointAt(s: number, offsetM = 0): Xy {
    const i = this.segmentAt(s);
    const len = this.cum[i + 1] - this.cum[i] || 1;
    const f = Math.max(0, Math.min(1, (s - this.cum[i]) / len));
    const dx = (this.xs[i + 1] - this.xs[i]) / len;
    const dy = (this.ys[i + 1] - this.ys[i]) / len;
    return { x: this.xs[i] + f * dx * len + dy * offsetM, y: this.ys[i] + f * dy * len - dx * offsetM };
  }

  /** Unit direction of travel at arc length `s`. */
  directionAt(s: number): Xy {
    const i = this.segmentAt(s);
    const len = this.cum[i + 1] - this.cum[i] || 1;
    return { x: (this.xs[i + 1] - this.xs[i]) / len, y: (this.ys[i + 1] - this.ys[i]) / len };
  }
}

/** Where segment a–b crosses segment c–d: the fraction along a–b, or -1 when they do not cross. */
export function crossFraction(a: Xy, b: Xy, c: Xy, d: Xy): number {
  const rx = b.x - a.x;
  const ry = b.y - a.y;
  const sx = d.x - c.x;
  const sy = d.y - c.y;
  const den = rx * sy - ry * sx;
  if (den === 0) return -1;
  const qx = c.x - a.x;
  const qy = c.y - a.y;
  const t = (qx * sy - qy * sx) / den;
  const u = (qx * ry - qy * rx) / den;
  return t >= 0 && t <= 1 && u >= 0 && u <= 1 ? t : -1;
}

/** Distance from p to segment a–b, metres. */
function segmentDistance(p: Xy, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const f = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - ax) * dx + (p.y - ay) * dy) / len2));
  return Math.hypot(p.x - ax - f * dx, p.y - ay - f * dy);
}

const BUCKET_M = 250;

/** A crossing of a segment with a barrier: where along the segment and along the barrier. */
export interface BarrierCrossing {
  /** fraction along the tested segment */
  t: number;
  /** arc length along the barrier, metres */
  s: number;
}

/** A polyline barrier with a corridor of `halfWidthM` either side, indexed for nearby queries. */
export class Barrier {
  private readonly buckets = new Map<number, number[]>();

  constructor(
    readonly line: Polyline,
    readonly halfWidthM: number,
  ) {
    const { xs, ys } = line;
    for (let i = 0; i + 1 < xs.length; i++) {
      const x0 = Math.floor((Math.min(xs[i], xs[i + 1]) - halfWidthM) / BUCKET_M);
      const x1 = Math.floor((Math.max(xs[i], xs[i + 1]) + halfWidthM) / BUCKET_M);
      const y0 = Math.floor((Math.min(ys[i], ys[i + 1]) - halfWidthM) / BUCKET_M);
      const y1 = Math.floor((Math.max(ys[i], ys[i + 1]) + halfWidthM) / BUCKET_M);
      for (let bx = x0; bx <= x1; bx++)
        for (let by = y0; by <= y1; by++) {
          const k = key(bx, by);
          const list = this.buckets.get(k);
          if (list) list.push(i);
          else this.buckets.set(k, [i]);
        }
    }
  }

  /** True when p lies within the corridor. */
  covers(p: Xy): boolean {
    const list = this.buckets.get(key(Math.floor(p.x / BUCKET_M), Math.floor(p.y / BUCKET_M)));
    if (!list) return false;
    const { xs, ys } = this.line;
    for (const i of list) if (segmentDistance(p, xs[i], ys[i], xs[i + 1], ys[i + 1]) < this.halfWidthM) return true;
    return false;
  }

  /** The first crossing of segment a–b with the barrier's centre line, or null. */
  crossing(a: Xy, b: Xy): BarrierCrossing | null {
    const x0 = Math.floor(Math.min(a.x, b.x) / BUCKET_M);
    const x1 = Math.floor(Math.max(a.x, b.x) / BUCKET_M);
    const y0 = Math.floor(Math.min(a.y, b.y) / BUCKET_M);
    const y1 = Math.floor(Math.max(a.y, b.y) / BUCKET_M);
    const { xs, ys, cum } = this.line;
    let best: BarrierCrossing | null = null;
    for (let bx = x0; bx <= x1; bx++)
      for (let by = y0; by <= y1; by++) {
        const list = this.buckets.get(key(bx, by));
        if (!list) continue;
        for (const i of list) {
          const c = { x: xs[i], y: ys[i] };
          const d = { x: xs[i + 1], y: ys[i + 1] };
          const t = crossFraction(a, b, c, d);
          if (t < 0 || (best && t >= best.t)) continue;
          const u = crossFraction(c, d, a, b);
          best = { t, s: cum[i] + u * (cum[i + 1] - cum[i]) };
        }
      }
    return best;
  }
}

function key(bx: number, by: number): number {
  return (bx + 4096) * 8192 + (by + 4096);
}

/** Point on the quadratic Bézier curve a → b with control point c at parameter f ∈ [0, 1]. */
export function bezier(a: Xy, c: Xy, b: Xy, f: number): Xy {
  const g = 1 - f;
  return { x: g * g * a.x + 2 * g * f * c.x + f * f * b.x, y: g * g * a.y + 2 * g * f * c.y + f * f * b.y };
}
