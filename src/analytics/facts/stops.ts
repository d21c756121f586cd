/**
 * Stops inside an intersection zone: a vehicle below `STOP_SPEED_KPH` for at least
 * `STOP_MIN_DURATION_S`, found from reported speeds between pings or, without them, from the
 * distance covered (docs/analytics.md, "Stopped").
 */
import type { ProfilePoint } from './profile.js';

/** A vehicle slower than this is stopped: 2 m/s, km/h. */
export const STOP_SPEED_KPH = 7.2;
/** A stop counts when the vehicle stays below `STOP_SPEED_KPH` at least this long, seconds. */
export const STOP_MIN_DURATION_S = 2;

/**
 * Deceleration of a vehicle coming to a stop, m/s²: the 10 ft/s² (3.0 m/s²) of the ITE
 * change-interval formula, a comfortable stop most drivers keep to.
 */
export const STOP_DECEL_MPS2 = 3;
/** Acceleration of a vehicle pulling away from a stop, m/s² (a passenger car's brisk start). */
export const START_ACCEL_MPS2 = 2.5;

/**
 * Seconds spent below `STOP_SPEED_KPH` between two pings that report speeds `v0Mps` and `v1Mps`,
 * `dtS` apart, `ddM` apart along the path, with the offsets of that slow stretch from each ping
 * (`[slowS, fromStartS, toEndS]`). The vehicle is taken to slow from v0 to a trough speed at
 * `STOP_DECEL_MPS2`, hold it, and speed up to v1 at `START_ACCEL_MPS2`; the trough is the one that
 * covers `ddM` (distance = (v0 − vm)²/2D + (v1 − vm)²/2A + vm·dt). When the pings leave no room
 * for those ramps (a harder stop, or fewer metres than even a full stop covers), the ramps are
 * steepened until they fit. A short stop between 3 s pings, whose ends both report a speed above
 * 2 m/s, is found this way.
 */
export function slowBetweenPings(v0Mps: number, v1Mps: number, dtS: number, ddM: number): [number, number, number] {
  const vs = STOP_SPEED_KPH / 3.6;
  if (!(dtS > 0)) return [0, 0, 0];
  if (v0Mps < vs && v1Mps < vs) return [dtS, 0, 0];
  const dec = STOP_DECEL_MPS2;
  const acc = START_ACCEL_MPS2;
  const c2 = 1 / (2 * dec) + 1 / (2 * acc);
  const c1 = dtS - v0Mps / dec - v1Mps / acc;
  const c0 = (v0Mps * v0Mps) / (2 * dec) + (v1Mps * v1Mps) / (2 * acc) - Math.max(0, ddM);
  const vertex = -c1 / (2 * c2);
  const disc = c1 * c1 - 4 * c2 * c0;
  let vm = disc >= 0 ? vertex + Math.sqrt(disc) / (2 * c2) : vertex;
  vm = Math.min(Math.max(vm, 0), Math.min(v0Mps, v1Mps));
  if (vm >= vs) return [0, 0, 0];
  // ramps steeper than the model's when they do not fit the time, or the distance of a full stop
  let k = Math.max(1, ((v0Mps - vm) / dec + (v1Mps - vm) / acc) / dtS);
  if (vm === 0) {
    const rampsM = (v0Mps * v0Mps) / (2 * dec) + (v1Mps * v1Mps) / (2 * acc);
    k = Math.max(k, ddM > 0 ? rampsM / ddM : Number.POSITIVE_INFINITY);
  }
  const fromStart = Math.max(0, v0Mps - vs) / (k * dec);
  const toEnd = Math.max(0, v1Mps - vs) / (k * acc);
  const slow = Math.min(dtS, Math.max(0, dtS - fromStart - toEnd));
  return [slow, Math.min(fromStart, dtS), Math.min(toEnd, dtS)];
}

/**
 * Total duration and number of slow runs (≥ STOP_MIN_DURATION_S, each one stop) between tEntry and tExit. With reported
 * speeds, each pair of consecutive pings gives its slow stretch by `slowBetweenPings` (a short
 * stop between pings is found from the speeds at both ends and the distance covered); without
 * them, a stretch between two profile points is slow when the distance covered gives a speed
 * below STOP_SPEED_KPH. Runs of adjoining slow stretches are cut to the zone before the 2 s test.
 */
export function stopDuration(pts: ProfilePoint[], tEntry: number, tExit: number): [number, number] {
  const pings = pts.filter((p) => !Number.isNaN(p.v));
  const runs: Array<[number, number]> = [];
  const addSlow = (a: number, b: number): void => {
    if (!(b > a)) return;
    const last = runs[runs.length - 1];
    if (last !== undefined && a <= last[1] + 1e-9) last[1] = Math.max(last[1], b);
    else runs.push([a, b]);
  };
  if (pings.length >= 2) {
    for (let k = 1; k < pings.length; k++) {
      const a = pings[k - 1];
      const b = pings[k];
      if (b.t <= a.t) continue;
      const [slow, fromStart] = slowBetweenPings(a.v / 3.6, b.v / 3.6, b.t - a.t, b.d - a.d);
      if (slow > 0) addSlow(a.t + fromStart, a.t + fromStart + slow);
    }
  } else {
    for (let k = 1; k < pts.length; k++) {
      const a = pts[k - 1];
      const b = pts[k];
      const dt = b.t - a.t;
      if (dt > 0 && ((b.d - a.d) / dt) * 3.6 < STOP_SPEED_KPH) addSlow(a.t, b.t);
    }
  }
  let total = 0;
  let count = 0;
  for (const [a, b] of runs) {
    const len = Math.min(b, tExit) - Math.max(a, tEntry);
    if (len < STOP_MIN_DURATION_S) continue;
    total += len;
    count++;
  }
  return [total, count];
}
