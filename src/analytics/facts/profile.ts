/**
 * The distance–time profile of a run of contiguous edges of a trajectory: matched pings and
 * interpolated edge boundaries, distance made non-decreasing, and the time it reaches a distance.
 */
import type { Graph } from '../../network/graph.js';
import type { Trajectory } from '../../probes/trajectory.js';

/** A point of the distance–time profile: distance along the run (m), time (s), reported speed. */
export interface ProfilePoint {
  d: number;
  t: number;
  /** reported speed, km/h; NaN when unknown */
  v: number;
}

/** Time the vehicle first reaches distance `s` (linear interpolation), or undefined when not covered. */
export function timeAt(pts: ProfilePoint[], s: number): number | undefined {
  if (pts.length === 0 || pts[0].d > s || pts[pts.length - 1].d < s) return undefined;
  let lo = 0;
  let hi = pts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pts[mid].d >= s) hi = mid;
    else lo = mid + 1;
  }
  if (lo === 0 || pts[lo].d === s) return pts[lo].t;
  const a = pts[lo - 1];
  const b = pts[lo];
  return a.t + ((s - a.d) / (b.d - a.d)) * (b.t - a.t);
}

/**
 * Distance–time profile of the run trs[from, to): every matched ping (edge start + offset, time,
 * reported speed) and the interpolated edge boundaries, in time order, distance made
 * non-decreasing (`monotoneFit`).
 */
export function profileOf(
  _g: Graph,
  trs: Trajectory['traversals'],
  from: number,
  to: number,
  cum: Float64Array,
): ProfilePoint[] {
  const n = to - from;
  const pts: ProfilePoint[] = [];
  const first = trs[from];
  const last = trs[to - 1];
  const cf0 = Math.min(1, Math.max(0, first.coveredFraction));
  const cfN = Math.min(1, Math.max(0, last.coveredFraction));
  pts.push({ d: cum[0] + (1 - cf0) * (cum[1] - cum[0]), t: first.enterS, v: NaN });
  for (let k = 0; k < n; k++) {
    const tr = trs[from + k];
    const len = cum[k + 1] - cum[k];
    for (const p of tr.pings) {
      pts.push({ d: cum[k] + Math.min(len, Math.max(0, p.offsetM)), t: p.tS, v: p.speedKph ?? NaN });
    }
    if (k < n - 1) pts.push({ d: cum[k + 1], t: tr.exitS, v: NaN });
  }
  pts.push({ d: cum[n - 1] + cfN * (cum[n] - cum[n - 1]), t: last.exitS, v: NaN });
  pts.sort((a, b) => a.t - b.t || a.d - b.d);
  monotoneFit(pts);
  return pts;
}

/**
 * Least-squares non-decreasing fit of the distances in time order (pool adjacent violators): a
 * vehicle never moves back along its path, and the positions of a standing vehicle, which jitter
 * back and forth, are replaced by their mean rather than by their running maximum (which would
 * move it forward by the size of the noise).
 */
function monotoneFit(pts: ProfilePoint[]): void {
  const mean: number[] = [];
  const size: number[] = [];
  for (const p of pts) {
    let m = p.d;
    let w = 1;
    while (mean.length > 0 && mean[mean.length - 1] > m) {
      const pm = mean.pop()!;
      const pw = size.pop()!;
      m = (pm * pw + m * w) / (pw + w);
      w += pw;
    }
    mean.push(m);
    size.push(w);
  }
  let k = 0;
  for (let b = 0; b < mean.length; b++) for (let i = 0; i < size[b]; i++) pts[k++].d = mean[b];
}
