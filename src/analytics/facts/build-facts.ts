/**
 * Trajectories → intersection traversal facts.
 *
 * For every crossing of a catalogued intersection by a matched trajectory (inbound edge → outbound
 * edge = a movement), the influence zone runs from `ZONE_UPSTREAM_M` before the intersection node
 * to `ZONE_DOWNSTREAM_M` after it, clipped at the neighbouring intersections on the vehicle's path.
 * Times at the zone ends come from a distance–time profile of the trajectory (matched pings and
 * interpolated edge boundaries). A crossing is kept only when the trajectory covers the whole zone.
 * See docs/analytics.md.
 */
import { haversineM } from '../../geo/index.js';
import type { EdgeId, Graph } from '../../network/graph.js';
import type { Region } from '../../network/region.js';
import type { Trajectory } from '../../probes/trajectory.js';
import { localParts } from '../../time/index.js';
import { catalogOf } from '../catalog/catalog.js';

/** Zone length before the intersection node, metres. */
export const ZONE_UPSTREAM_M = 150;
/** Zone length after the intersection node, metres. */
export const ZONE_DOWNSTREAM_M = 50;
/** A vehicle slower than this is considered stopped, km/h. */
export const STOP_SPEED_KPH = 5;
/** A stop counts when the vehicle stays below `STOP_SPEED_KPH` at least this long, seconds. */
export const STOP_MIN_DURATION_S = 2;
/** Approach speed is the mean speed over the first metres of the zone (before the node). */
export const APPROACH_WINDOW_M = 50;

/** One vehicle's crossing of one intersection. */
export interface Fact {
  traceId: string;
  part: number;
  /** public intersection id `"<lat>_<lon>"` */
  intersectionKey: string;
  /** 0 for the first crossing of this intersection in the trajectory, 1 for the second, … */
  occurrence: number;
  /** region intersection id (OSM node id) */
  intersectionId: number;
  movementId: number;
  inEdge: EdgeId;
  outEdge: EdgeId;
  /** unix seconds at the zone entry and exit */
  entryS: number;
  exitS: number;
  /** local calendar day of the entry, `YYYY-MM-DD` (region time zone) */
  localDay: string;
  /** local minute of the day of the entry, 0–1439 */
  localMinute: number;
  /** local day of week of the entry, 1 = Monday … 7 = Sunday */
  localDow: number;
  zoneLengthM: number;
  travelTimeS: number;
  freeFlowS: number;
  /** max(0, travel − free flow), seconds */
  controlDelayS: number;
  stopped: boolean;
  stopDurationS: number;
  /** mean speed over the first `APPROACH_WINDOW_M` of the zone, km/h (null when not measurable) */
  approachSpeedKph: number | null;
  /** [lat, lon] of the zone entry and exit on the vehicle's path (not stored; for validation) */
  zoneStart: [number, number];
  zoneEnd: [number, number];
}

/** [lat, lon] at `offsetM` along edge `e` (offsets scaled to the edge's stored length). */
function pointAlong(g: Graph, e: EdgeId, offsetM: number): [number, number] {
  const a = g.edgeGeomStart[e];
  const b = g.edgeGeomStart[e + 1];
  let geomLen = 0;
  for (let i = a + 1; i < b; i++) geomLen += haversineM(g.geomLatE7[i - 1] / 1e7, g.geomLonE7[i - 1] / 1e7, g.geomLatE7[i] / 1e7, g.geomLonE7[i] / 1e7);
  let want = g.edgeLengthM[e] > 0 ? (offsetM / g.edgeLengthM[e]) * geomLen : 0;
  for (let i = a + 1; i < b; i++) {
    const lat0 = g.geomLatE7[i - 1] / 1e7;
    const lon0 = g.geomLonE7[i - 1] / 1e7;
    const lat1 = g.geomLatE7[i] / 1e7;
    const lon1 = g.geomLonE7[i] / 1e7;
    const seg = haversineM(lat0, lon0, lat1, lon1);
    if (want <= seg || i === b - 1) {
      const f = seg > 0 ? Math.min(1, Math.max(0, want / seg)) : 0;
      return [lat0 + f * (lat1 - lat0), lon0 + f * (lon1 - lon0)];
    }
    want -= seg;
  }
  return [g.geomLatE7[a] / 1e7, g.geomLonE7[a] / 1e7];
}

/** A point of the distance–time profile: distance along the run (m), time (s), reported speed. */
interface ProfilePoint {
  d: number;
  t: number;
  /** reported speed, km/h; NaN when unknown */
  v: number;
}

/** Time the vehicle first reaches distance `s` (linear interpolation), or undefined when not covered. */
function timeAt(pts: ProfilePoint[], s: number): number | undefined {
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

/** Total duration of slow runs (≥ STOP_MIN_DURATION_S) between tEntry and tExit. */
function stopDuration(pts: ProfilePoint[], sEntry: number, tEntry: number, sExit: number, tExit: number): number {
  const seq: ProfilePoint[] = [{ d: sEntry, t: tEntry, v: NaN }];
  for (const p of pts) if (p.t > tEntry && p.t < tExit) seq.push(p);
  seq.push({ d: sExit, t: tExit, v: NaN });
  let total = 0;
  let run = 0;
  for (let k = 1; k < seq.length; k++) {
    const a = seq[k - 1];
    const b = seq[k];
    const dt = b.t - a.t;
    if (dt <= 0) continue;
    const derivedKph = ((b.d - a.d) / dt) * 3.6;
    // Reported speeds win when both ends have one (GPS jitter makes small position steps noisy).
    const reportedSlow = !Number.isNaN(a.v) && !Number.isNaN(b.v) && a.v < STOP_SPEED_KPH && b.v < STOP_SPEED_KPH;
    if (derivedKph < STOP_SPEED_KPH || reportedSlow) {
      run += dt;
    } else {
      if (run >= STOP_MIN_DURATION_S) total += run;
      run = 0;
    }
  }
  if (run >= STOP_MIN_DURATION_S) total += run;
  return total;
}

/**
 * Builds the traversal facts of `trajectories` at the intersections of `region`.
 *
 * @example
 * const facts = buildFacts(region, trajectories);
 * await storeFacts(db, facts);
 */
export function buildFacts(region: Region, trajectories: readonly Trajectory[]): Fact[] {
  const g = region.graph;
  const catalog = catalogOf(region);
  const tz = region.meta.timeZone || 'UTC';
  const out: Fact[] = [];
  for (const traj of trajectories) {
    const occurrences = new Map<string, number>();
    const trs = traj.traversals;
    // Split into runs of contiguous edges (a gap in the edge chain breaks the distance axis).
    let runStart = 0;
    for (let i = 1; i <= trs.length; i++) {
      if (i < trs.length && g.edgeTarget[trs[i - 1].edge] === g.edgeSource[trs[i].edge]) continue;
      processRun(runStart, i);
      runStart = i;
    }

    function processRun(from: number, to: number): void {
      const n = to - from;
      if (n < 2) return;
      const cum = new Float64Array(n + 1);
      for (let k = 0; k < n; k++) cum[k + 1] = cum[k] + g.edgeLengthM[trs[from + k].edge];
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
      // Distance along a path never decreases: flatten matching jitter.
      for (let k = 1; k < pts.length; k++) if (pts[k].d < pts[k - 1].d) pts[k].d = pts[k - 1].d;

      // Positions of intersection nodes along the run (node between edge k and k+1 sits at cum[k+1]).
      const ixAt: number[] = [];
      for (let k = 0; k < n - 1; k++) if (catalog.byNode.has(g.edgeTarget[trs[from + k].edge])) ixAt.push(k);

      for (let j = 0; j < ixAt.length; j++) {
        const k = ixAt[j];
        const inEdge = trs[from + k].edge;
        const outEdge = trs[from + k + 1].edge;
        const ci = catalog.byNode.get(g.edgeTarget[inEdge])!;
        const movement = ci.intersection.movements.find((m) => m.inEdge === inEdge && m.outEdge === outEdge);
        if (!movement) continue;
        const s0 = cum[k + 1];
        const prevS = j > 0 ? cum[ixAt[j - 1] + 1] : -Infinity;
        const nextS = j + 1 < ixAt.length ? cum[ixAt[j + 1] + 1] : Infinity;
        const sEntry = Math.max(s0 - ZONE_UPSTREAM_M, prevS);
        const sExit = Math.min(s0 + ZONE_DOWNSTREAM_M, nextS);
        const tEntry = timeAt(pts, sEntry);
        const tExit = timeAt(pts, sExit);
        if (tEntry === undefined || tExit === undefined || tExit < tEntry) continue;
        // Free-flow time: each overlapped edge piece at its speed limit.
        let freeFlowS = 0;
        let ok = true;
        for (let e = 0; e < n; e++) {
          const overlap = Math.min(cum[e + 1], sExit) - Math.max(cum[e], sEntry);
          if (overlap <= 0) continue;
          const kph = g.edgeSpeedKph[trs[from + e].edge];
          if (!(kph > 0)) { ok = false; break; }
          freeFlowS += overlap / (kph / 3.6);
        }
        if (!ok) continue;
        const travelTimeS = tExit - tEntry;
        const stopS = stopDuration(pts, sEntry, tEntry, sExit, tExit);
        const approachEnd = Math.min(sEntry + APPROACH_WINDOW_M, s0);
        const tApproach = timeAt(pts, approachEnd);
        const approachSpeedKph = tApproach !== undefined && tApproach > tEntry && approachEnd > sEntry
          ? ((approachEnd - sEntry) / (tApproach - tEntry)) * 3.6
          : null;
        const at = (sAt: number): [number, number] => {
          let e = 0;
          while (e < n - 1 && cum[e + 1] < sAt) e++;
          return pointAlong(g, trs[from + e].edge, sAt - cum[e]);
        };
        const occurrence = occurrences.get(ci.key) ?? 0;
        occurrences.set(ci.key, occurrence + 1);
        const lp = localParts(tEntry, tz);
        out.push({
          traceId: traj.traceId,
          part: traj.part,
          intersectionKey: ci.key,
          occurrence,
          intersectionId: ci.intersection.id,
          movementId: movement.id,
          inEdge,
          outEdge,
          entryS: tEntry,
          exitS: tExit,
          localDay: `${lp.year}-${String(lp.month).padStart(2, '0')}-${String(lp.day).padStart(2, '0')}`,
          localMinute: lp.hour * 60 + lp.minute,
          localDow: lp.dayOfWeek,
          zoneLengthM: sExit - sEntry,
          travelTimeS,
          freeFlowS,
          controlDelayS: Math.max(0, travelTimeS - freeFlowS),
          stopped: stopS > 0,
          stopDurationS: stopS,
          approachSpeedKph,
          zoneStart: at(sEntry),
          zoneEnd: at(sExit),
        });
      }
    }
  }
  return out;
}
