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
import {
  catalogOf,
  type CatalogIntersection,
  type CatalogMovement,
  type IntersectionCatalog,
  movementOf,
  movementsByInEdge,
} from '../catalog/catalog.js';
import { freeFlowKphOf, type FreeFlowSource, type FreeFlowSpeeds } from './free-flow.js';
import { profileOf, timeAt, type ProfilePoint } from './profile.js';
import { stopDuration } from './stops.js';
import { junctionPathCutM } from './turn-path.js';

/** Zone length before the stop line, metres (default of `FactOptions.upstreamM`). */
export const ZONE_UPSTREAM_M = 150;
/** Zone length past the far side of the intersection, metres (default of `FactOptions.downstreamM`). */
export const ZONE_DOWNSTREAM_M = 50;
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

/** What every crossing of one `buildFacts` call shares. */
interface FactContext {
  g: Graph;
  catalog: IntersectionCatalog;
  movements: Map<number, CatalogMovement[]>;
  tz: string;
  upstreamM: number;
  downstreamM: number;
  opts: FactOptions;
  /** junction setback of an edge at a node (`junctionSetbackM`), cached */
  setbackOf: (node: NodeId, edge: EdgeId, inbound: boolean) => number;
}

/** A run of contiguous edges trs[from, to) of one trajectory, on its own distance axis. */
interface Run {
  traj: Trajectory;
  from: number;
  n: number;
  /** cum[k]: distance from the run's start to the start of its edge k, metres */
  cum: Float64Array;
  pts: ProfilePoint[];
  /** crossings so far of each intersection in the trajectory (shared by its runs) */
  occurrences: Map<string, number>;
}

/** A crossing: consecutive nodes first … last of the run (node k joins edges k and k + 1) in one intersection. */
interface Crossing {
  ci: CatalogIntersection;
  first: number;
  last: number;
}

/**
 * Free-flow seconds over [a, b] of the run (Σ piece length / free-flow speed of its edge), NaN
 * when an edge has no free-flow speed; `sourceM` adds up the metres by where the speed came from.
 */
function freeFlowOver(
  ctx: FactContext,
  run: Run,
  a: number,
  b: number,
  sourceM: Record<FreeFlowSource, number>,
): number {
  let s = 0;
  for (let e = 0; e < run.n; e++) {
    const overlap = Math.min(run.cum[e + 1], b) - Math.max(run.cum[e], a);
    if (overlap <= 0) continue;
    const [kph, source] = freeFlowKphOf(ctx.g, run.traj.traversals[run.from + e].edge, ctx.opts.freeFlow);
    if (!(kph > 0)) return NaN;
    sourceM[source] += overlap;
    s += overlap / (kph / 3.6);
  }
  return s;
}

/** Where the free-flow speed of most of the metres came from (observed, then tag, on ties). */
function majoritySource(m: Record<FreeFlowSource, number>): FreeFlowSource {
  if (m.observed >= m.tag && m.observed >= m.default) return 'observed';
  return m.tag >= m.default ? 'tag' : 'default';
}

/** [lat, lon] at distance `sAt` along the run. */
function pointOfRun(g: Graph, run: Run, sAt: number): [number, number] {
  let e = 0;
  while (e < run.n - 1 && run.cum[e + 1] < sAt) e++;
  return pointAlong(g, run.traj.traversals[run.from + e].edge, sAt - run.cum[e]);
}

/** The crossings of a run, in path order: maximal runs of consecutive nodes of one catalogued intersection. */
function crossingsOf(g: Graph, catalog: IntersectionCatalog, run: Run): Crossing[] {
  const trs = run.traj.traversals;
  const out: Crossing[] = [];
  let k = 0;
  while (k < run.n - 1) {
    const ci = catalog.byNode.get(g.edgeTarget[trs[run.from + k].edge]);
    if (ci === undefined) {
      k++;
      continue;
    }
    let last = k;
    while (last + 1 < run.n - 1 && catalog.byNode.get(g.edgeTarget[trs[run.from + last + 1].edge]) === ci) last++;
    out.push({ ci, first: k, last });
    k = last + 1;
  }
  return out;
}

/**
 * The zone of a crossing on the run's distance axis: the stop line (the first node of the
 * intersection on the path, less its junction setback), the entry `upstreamM` before it and the
 * exit `downstreamM` past the far side (the last junction node on the path, plus its setback).
 */
function zoneOf(
  ctx: FactContext,
  run: Run,
  { ci, first, last }: Crossing,
): { sStop: number; sEntry: number; sExit: number; stopLineM: number; farSideM: number; far: number } {
  const { g } = ctx;
  const trs = run.traj.traversals;
  const inEdge = trs[run.from + first].edge;
  let far = last;
  while (far > first && !ci.junctionNodes.includes(g.edgeTarget[trs[run.from + far].edge])) far--;
  const entryNode = g.edgeTarget[inEdge];
  const farNode = g.edgeTarget[trs[run.from + far].edge];
  const stopLineM = ci.junctionNodes.includes(entryNode) ? ctx.setbackOf(entryNode, inEdge, true) : 0;
  const farSideM = ci.junctionNodes.includes(farNode) ? ctx.setbackOf(farNode, trs[run.from + far + 1].edge, false) : 0;
  const sStop = run.cum[first + 1] - stopLineM;
  const sExit = run.cum[far + 1] + farSideM + ctx.downstreamM;
  return { sStop, sEntry: sStop - ctx.upstreamM, sExit, stopLineM, farSideM, far };
}

/** The fact of one crossing, or undefined when it is no catalogued movement or the run does not cover its zone. */
function factOf(ctx: FactContext, run: Run, crossing: Crossing): Fact | undefined {
  const { g, opts } = ctx;
  const { ci, first, last } = crossing;
  const trs = run.traj.traversals;
  const inEdge = trs[run.from + first].edge;
  const outEdge = trs[run.from + last + 1].edge;
  const movement = movementOf(ctx.movements, inEdge, outEdge);
  if (!movement) return undefined;
  const { sStop, sEntry, sExit, stopLineM, farSideM, far } = zoneOf(ctx, run, crossing);
  const tEntry = timeAt(run.pts, sEntry);
  const tExit = timeAt(run.pts, sExit);
  if (tEntry === undefined || tExit === undefined || tExit < tEntry) return undefined;
  const sourceM = { observed: 0, tag: 0, default: 0 };
  // a turning vehicle drives an arc through the junction, shorter than the legs via its nodes
  const pathEdges = trs.slice(run.from + first, run.from + far + 2).map((t) => t.edge);
  const cutM = junctionPathCutM(g, pathEdges, stopLineM, farSideM);
  const freeFlowS =
    freeFlowOver(ctx, run, sEntry, sExit, sourceM) - cutM / (freeFlowKphOf(g, inEdge, opts.freeFlow)[0] / 3.6);
  if (Number.isNaN(freeFlowS)) return undefined;
  const travelTimeS = tExit - tEntry;
  const [stopS, stopCount] = stopDuration(run.pts, tEntry, tExit);
  const tStop = timeAt(run.pts, sStop);
  const arrivalS = tEntry + freeFlowOver(ctx, run, sEntry, sStop, { observed: 0, tag: 0, default: 0 });
  const occurrence = run.occurrences.get(ci.key) ?? 0;
  run.occurrences.set(ci.key, occurrence + 1);
  const lp = localParts(tEntry, ctx.tz);
  return {
    traceId: run.traj.traceId,
    part: run.traj.part,
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
    freeFlowSource: majoritySource(sourceM),
    controlDelayS: Math.max(0, travelTimeS - freeFlowS),
    stopped: stopS > 0,
    stopDurationS: stopS,
    stopCount,
    approachSpeedKph: tStop !== undefined && tStop > tEntry ? (ctx.upstreamM / (tStop - tEntry)) * 3.6 : null,
    arrivalS,
    arrivedOnGreen: opts.signalTiming?.(movement, arrivalS) ?? null,
    zoneStart: pointOfRun(g, run, sEntry),
    zoneEnd: pointOfRun(g, run, sExit),
  };
}

/** Adds the facts of the run trs[from, to) of `traj` (at least two edges) to `out`. */
function factsOfRun(
  ctx: FactContext,
  traj: Trajectory,
  from: number,
  to: number,
  occurrences: Map<string, number>,
  out: Fact[],
): void {
  const n = to - from;
  if (n < 2) return;
  const trs = traj.traversals;
  const cum = new Float64Array(n + 1);
  for (let k = 0; k < n; k++) cum[k + 1] = cum[k] + ctx.g.edgeLengthM[trs[from + k].edge];
  const run: Run = { traj, from, n, cum, pts: profileOf(ctx.g, trs, from, to, cum), occurrences };
  for (const crossing of crossingsOf(ctx.g, ctx.catalog, run)) {
    const fact = factOf(ctx, run, crossing);
    if (fact) out.push(fact);
  }
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
  const setbacks = new Map<number, number>();
  const ctx: FactContext = {
    g,
    catalog,
    movements: movementsByInEdge(catalog),
    tz: region.meta.timeZone || 'UTC',
    upstreamM: opts.upstreamM ?? ZONE_UPSTREAM_M,
    downstreamM: opts.downstreamM ?? ZONE_DOWNSTREAM_M,
    opts,
    setbackOf: (node, edge, inbound) => {
      const k = inbound ? edge : -1 - edge;
      let m = setbacks.get(k);
      if (m === undefined) setbacks.set(k, (m = junctionSetbackM(g, node, edge, inbound)));
      return m;
    },
  };
  const out: Fact[] = [];
  for (const traj of trajectories) {
    const occurrences = new Map<string, number>();
    const trs = traj.traversals;
    // Split into runs of contiguous edges (a gap in the edge chain breaks the distance axis).
    let runStart = 0;
    for (let i = 1; i <= trs.length; i++) {
      if (i < trs.length && g.edgeTarget[trs[i - 1].edge] === g.edgeSource[trs[i].edge]) continue;
      factsOfRun(ctx, traj, runStart, i, occurrences, out);
      runStart = i;
    }
  }
  return out;
}
