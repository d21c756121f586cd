/**
 * Trajectories → intersection traversal facts, by the standard definition of control delay.
 *
 * A crossing of a catalogued intersection (one node, or a cluster of signal nodes) runs from the
 * edge entering it to the edge leaving it: that pair is the movement. Its zone is measured along
 * the vehicle's own path from `upstreamM` before the stop line (the first node of the intersection
 * on the path) to `downstreamM` past the far side (the last junction node on the path). Zones are
 * never clipped: unsignalized nodes inside a zone belong to it, and where the zones of two
 * intersections overlap each crossing keeps its own full zone. Times at the zone ends come from a
 * distance–time profile of the trajectory (matched pings and interpolated edge boundaries). A
 * crossing is kept only when the trajectory covers the whole zone. See docs/analytics.md.
 */
import { haversineM } from '../../geo/index.js';
import type { EdgeId, Graph, NodeId } from '../../network/graph.js';
import { junctionSetbackM } from '../../network/intersections.js';
import type { Region } from '../../network/region.js';
import type { Trajectory } from '../../probes/trajectory.js';
import { localParts } from '../../time/index.js';
import { catalogOf, type CatalogMovement, type IntersectionCatalog } from '../catalog/catalog.js';
import { freeFlowKphOf, type FreeFlowSource, type FreeFlowSpeeds } from './free-flow.js';
import { junctionPathCutM } from './turn-path.js';

/** Zone length before the stop line, metres (default of `FactOptions.upstreamM`). */
export const ZONE_UPSTREAM_M = 150;
/** Zone length past the far side of the intersection, metres (default of `FactOptions.downstreamM`). */
export const ZONE_DOWNSTREAM_M = 50;
/** A vehicle slower than this is stopped: 2 m/s, km/h. */
export const STOP_SPEED_KPH = 7.2;
/** A stop counts when the vehicle stays below `STOP_SPEED_KPH` at least this long, seconds. */
export const STOP_MIN_DURATION_S = 2;

/**
 * Signal timing, when known: whether the signal of `movement` shows green at `tS` (unix seconds),
 * or undefined when the timing does not cover that moment.
 */
export type SignalTiming = (movement: CatalogMovement, tS: number) => boolean | undefined;

/** Options of `buildFacts`. */
export interface FactOptions {
  /** zone length before the stop line, metres (default `ZONE_UPSTREAM_M`) */
  upstreamM?: number;
  /** zone length past the far side, metres (default `ZONE_DOWNSTREAM_M`) */
  downstreamM?: number;
  /** signal timing of signalized intersections, for arrivals on green */
  signalTiming?: SignalTiming;
  /** observed free-flow speeds (`observedFreeFlow`); without them the speed limits are used */
  freeFlow?: FreeFlowSpeeds;
}

/** One vehicle's crossing of one intersection. */
export interface Fact {
  traceId: string;
  part: number;
  /** public intersection id `"<lat>_<lon>"` */
  intersectionKey: string;
  /** 0 for the first crossing of this intersection in the trajectory, 1 for the second, … */
  occurrence: number;
  /** region intersection id (OSM node id; a cluster's smallest junction node id) */
  intersectionId: number;
  movementId: number;
  /** edge entering and edge leaving the intersection */
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
  /** Σ zone piece length / free-flow speed of its edge (`freeFlowKphOf`), seconds */
  freeFlowS: number;
  /** where the free-flow speed of most of the zone's length came from (not stored) */
  freeFlowSource?: FreeFlowSource;
  /** max(0, travel − free flow), seconds */
  controlDelayS: number;
  stopped: boolean;
  stopDurationS: number;
  /** stops in the zone: runs below `STOP_SPEED_KPH` of at least `STOP_MIN_DURATION_S` (not stored) */
  stopCount?: number;
  /** mean speed from the zone entry to the stop line, km/h (null when not measurable) */
  approachSpeedKph: number | null;
  /** unix seconds the vehicle would reach the stop line at free flow from the zone entry (not stored) */
  arrivalS?: number;
  /** signal green at `arrivalS`; null without signal timing (not stored) */
  arrivedOnGreen?: boolean | null;
  /** [lat, lon] of the zone entry and exit on the vehicle's path (not stored; for validation) */
  zoneStart: [number, number];
  zoneEnd: [number, number];
}

const movementIndexes = new WeakMap<IntersectionCatalog, Map<number, CatalogMovement>>();

/** Catalog movements by `inEdge * edgeCount + outEdge` (built once per catalog). */
function movementIndex(catalog: IntersectionCatalog, edgeCount: number): Map<number, CatalogMovement> {
  let idx = movementIndexes.get(catalog);
  if (idx) return idx;
  idx = new Map();
  for (const c of catalog.list)
    for (const m of c.movements) idx.set(m.movement.inEdge * edgeCount + m.movement.outEdge, m);
  movementIndexes.set(catalog, idx);
  return idx;
}

/** [lat, lon] at `offsetM` along edge `e` (offsets scaled to the edge's stored length). */
function pointAlong(g: Graph, e: EdgeId, offsetM: number): [number, number] {
  const a = g.edgeGeomStart[e];
  const b = g.edgeGeomStart[e + 1];
  let geomLen = 0;
  for (let i = a + 1; i < b; i++)
    geomLen += haversineM(
      g.geomLatE7[i - 1] / 1e7,
      g.geomLonE7[i - 1] / 1e7,
      g.geomLatE7[i] / 1e7,
      g.geomLonE7[i] / 1e7,
    );
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
function stopDuration(pts: ProfilePoint[], tEntry: number, tExit: number): [number, number] {
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

/**
 * Builds the traversal facts of `trajectories` at the intersections of `region`.
 *
 * @example
 * const facts = buildFacts(region, trajectories);
 * await storeFacts(db, facts);
 */
export function buildFacts(region: Region, trajectories: readonly Trajectory[], opts: FactOptions = {}): Fact[] {
  const g = region.graph;
  const catalog = catalogOf(region);
  const movements = movementIndex(catalog, g.edgeCount);
  const tz = region.meta.timeZone || 'UTC';
  const setbacks = new Map<number, number>();
  const setbackOf = (node: NodeId, edge: EdgeId, inbound: boolean): number => {
    const k = inbound ? edge : -1 - edge;
    let m = setbacks.get(k);
    if (m === undefined) setbacks.set(k, (m = junctionSetbackM(g, node, edge, inbound)));
    return m;
  };
  const upstreamM = opts.upstreamM ?? ZONE_UPSTREAM_M;
  const downstreamM = opts.downstreamM ?? ZONE_DOWNSTREAM_M;
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
      const pts = profileOf(g, trs, from, to, cum);
      const sourceM = { observed: 0, tag: 0, default: 0 };
      const freeFlow = (a: number, b: number): number => {
        let s = 0;
        for (let e = 0; e < n; e++) {
          const overlap = Math.min(cum[e + 1], b) - Math.max(cum[e], a);
          if (overlap <= 0) continue;
          const [kph, source] = freeFlowKphOf(g, trs[from + e].edge, opts.freeFlow);
          if (!(kph > 0)) return NaN;
          sourceM[source] += overlap;
          s += overlap / (kph / 3.6);
        }
        return s;
      };
      const at = (sAt: number): [number, number] => {
        let e = 0;
        while (e < n - 1 && cum[e + 1] < sAt) e++;
        return pointAlong(g, trs[from + e].edge, sAt - cum[e]);
      };

      // Node k (k = 0 … n − 2) joins edge k and edge k + 1 and sits at cum[k + 1]. A crossing is a
      // maximal run of consecutive nodes of one catalogued intersection.
      let k = 0;
      while (k < n - 1) {
        const ci = catalog.byNode.get(g.edgeTarget[trs[from + k].edge]);
        if (ci === undefined) {
          k++;
          continue;
        }
        let last = k;
        while (last + 1 < n - 1 && catalog.byNode.get(g.edgeTarget[trs[from + last + 1].edge]) === ci) last++;
        const first = k;
        k = last + 1;
        const inEdge = trs[from + first].edge;
        const outEdge = trs[from + last + 1].edge;
        const movement = movements.get(inEdge * g.edgeCount + outEdge);
        if (!movement) continue;
        // stop line: the first node of the intersection on the path; far side: the last junction node
        let far = last;
        while (far > first && !ci.junctionNodes.includes(g.edgeTarget[trs[from + far].edge])) far--;
        const entryNode = g.edgeTarget[inEdge];
        const farNode = g.edgeTarget[trs[from + far].edge];
        const stopLineM = ci.junctionNodes.includes(entryNode) ? setbackOf(entryNode, inEdge, true) : 0;
        const farSideM = ci.junctionNodes.includes(farNode) ? setbackOf(farNode, trs[from + far + 1].edge, false) : 0;
        const sStop = cum[first + 1] - stopLineM;
        const sEntry = sStop - upstreamM;
        const sExit = cum[far + 1] + farSideM + downstreamM;
        const tEntry = timeAt(pts, sEntry);
        const tExit = timeAt(pts, sExit);
        if (tEntry === undefined || tExit === undefined || tExit < tEntry) continue;
        sourceM.observed = sourceM.tag = sourceM.default = 0;
        // a turning vehicle drives an arc through the junction, shorter than the legs via its nodes
        const pathEdges = trs.slice(from + first, from + far + 2).map((t) => t.edge);
        const cutM = junctionPathCutM(g, pathEdges, stopLineM, farSideM);
        const freeFlowS = freeFlow(sEntry, sExit) - cutM / (freeFlowKphOf(g, inEdge, opts.freeFlow)[0] / 3.6);
        const freeFlowSource: FreeFlowSource =
          sourceM.observed >= sourceM.tag && sourceM.observed >= sourceM.default
            ? 'observed'
            : sourceM.tag >= sourceM.default
              ? 'tag'
              : 'default';
        if (Number.isNaN(freeFlowS)) continue;
        const travelTimeS = tExit - tEntry;
        const [stopS, stopCount] = stopDuration(pts, tEntry, tExit);
        const tStop = timeAt(pts, sStop);
        const approachSpeedKph = tStop !== undefined && tStop > tEntry ? (upstreamM / (tStop - tEntry)) * 3.6 : null;
        const arrivalS = tEntry + freeFlow(sEntry, sStop);
        const arrivedOnGreen = opts.signalTiming?.(movement, arrivalS) ?? null;
        const occurrence = occurrences.get(ci.key) ?? 0;
        occurrences.set(ci.key, occurrence + 1);
        const lp = localParts(tEntry, tz);
        out.push({
          traceId: traj.traceId,
          part: traj.part,
          intersectionKey: ci.key,
          occurrence,
          intersectionId: ci.intersection.id,
          movementId: movement.movement.id,
          inEdge,
          outEdge,
          entryS: tEntry,
          exitS: tExit,
          localDay: `${lp.year}-${String(lp.month).padStart(2, '0')}-${String(lp.day).padStart(2, '0')}`,
          localMinute: lp.hour * 60 + lp.minute,
          localDow: lp.dayOfWeek,
          zoneLengthM: sExit - sEntry - cutM,
          travelTimeS,
          freeFlowS,
          freeFlowSource,
          controlDelayS: Math.max(0, travelTimeS - freeFlowS),
          stopped: stopS > 0,
          stopDurationS: stopS,
          stopCount,
          approachSpeedKph,
          arrivalS,
          arrivedOnGreen,
          zoneStart: at(sEntry),
          zoneEnd: at(sExit),
        });
      }
    }
  }
  return out;
}

/**
 * Distance–time profile of the run trs[from, to): every matched ping (edge start + offset, time,
 * reported speed) and the interpolated edge boundaries, in time order, distance made
 * non-decreasing (`monotoneFit`).
 */
function profileOf(
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
