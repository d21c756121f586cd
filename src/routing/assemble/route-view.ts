/**
 * Assembles the format-neutral view of one route: times (current, typical, free flow), quality,
 * closure/restriction flags, distance, summary, description, maneuvers, incidents on the route,
 * bounding box, simplified points and speed buckets. Renderers (JSON, XML) only reshape it.
 */
import { EdgeFlag, type Graph } from '../../network/graph.js';
import { SpeedMode, type SpeedModeId } from '../../traffic/model.js';
import type { Incident } from '../../traffic/incidents.js';
import { DEFAULT_EVENT_CODE } from '../../traffic/incidents.js';
import type { RoutingEngine } from '../engine.js';
import type { Leg, PathCost } from '../path-cost.js';
import { bboxOf } from '../../geo/index.js';
import { routeGeometry, simplifyIndices } from './geometry.js';
import { describe, majorRuns, maneuvers, summarize, type Maneuver, type Units } from './narrate.js';

/** RouteOutputFields letters. */
export type RouteField = 'D' | 'S' | 'W' | 'B' | 'P' | 'I' | 'U';

/** Incident output field names (IncidentOutputFields, lower-cased). */
export const INCIDENT_FIELDS = [
  'id',
  'version',
  'type',
  'severity',
  'eventcode',
  'latlong',
  'impacting',
  'starttime',
  'endtime',
  'delayimpact',
  'area',
  'rds',
  'shortdescription',
  'fulldescription',
] as const;

/** What to put in a route view. */
export interface OutputOptions {
  fields: ReadonlySet<RouteField>;
  incidentFields: ReadonlySet<string>;
  units: Units;
  /** GeometryTolerance converted to metres */
  toleranceM: number;
  speedBucketId: number;
  collapseManeuvers: boolean;
}

/** Speed bucket run over the returned points. */
export interface SpeedBucketRun {
  /** 0 (< 25 % of free flow) … 3 (≥ 75 %) */
  speedBucket: number;
  startIndex: number;
  endIndex: number;
}

/** An incident as output on a route (only requested fields set). */
export type IncidentView = Record<string, unknown>;

/** The format-neutral route. Optional parts follow the output options and the closure rules. */
export interface RouteView {
  id: string;
  uncongestedTravelTimeMinutes: number;
  routeQuality: number;
  hasClosures: boolean;
  hasRestrictions: boolean;
  travelTimeMinutes?: number;
  abnormalityMinutes?: number;
  averageSpeed: number;
  trafficConsidered: boolean;
  statusId: number;
  totalDistance: number;
  routeTransportStatus: number;
  summary?: { text: string; roads: Array<{ roadClass: number; name: string }> };
  description?: string;
  maneuvers?: Maneuver[];
  incidents?: IncidentView[];
  /** corner1 = NW [lon, lat], corner2 = SE [lon, lat] */
  boundingBox?: { corner1: [number, number]; corner2: [number, number] };
  /** GeoJSON order [lon, lat] */
  points?: Array<[number, number]>;
  speedBuckets?: SpeedBucketRun[];
  /** raw figures for travel-time series and tests */
  travelTimeS: number;
  typicalTimeS: number;
  freeFlowTimeS: number;
  distanceM: number;
}

/** Minutes from seconds, rounded, never negative for durations. */
function minutes(s: number): number {
  return Math.max(0, Math.round(s / 60));
}

/** Route quality 0 (most congested) … 3 from free-flow time over current time. */
export function routeQuality(freeFlowS: number, travelS: number): number {
  const r = travelS > 0 ? freeFlowS / travelS : 1;
  if (r >= 0.9) return 3;
  if (r >= 0.75) return 2;
  if (r >= 0.5) return 1;
  return 0;
}

/** Speed bucket (default set 1) of a speed as a share of free flow. */
export function speedBucketOf(share: number): number {
  if (share < 0.25) return 0;
  if (share < 0.5) return 1;
  if (share < 0.75) return 2;
  return 3;
}

/** Times and flags of a path at a departure. */
export interface RouteTimes {
  current: PathCost;
  typicalS: number;
  freeFlowS: number;
  trafficConsidered: boolean;
  hasClosures: boolean;
  hasRestrictions: boolean;
}

/**
 * Costs a path three ways: in `mode` (current, typical for a past time, or free flow, per
 * request) with per-edge records; typical as a plain sum (reusing the first figure unless the mode
 * is current); free flow from the same records (free-flow speeds do not depend on time, turn
 * delays are the same). Traffic is considered only in current mode.
 */
export function routeTimes(
  engine: RoutingEngine,
  legs: Leg[],
  departS: number,
  nowS: number,
  mode: SpeedModeId,
): RouteTimes {
  const trafficConsidered = mode === SpeedMode.current;
  const current = engine.costPath(legs, departS, nowS, mode);
  const typicalS = trafficConsidered ? engine.pathTimeS(legs, departS, nowS, SpeedMode.typical) : current.totalS;
  const g = engine.graph;
  // access-restricted edges strictly inside the route (not where it starts or ends)
  let hasRestrictions = false;
  const tm = current.timings;
  for (let i = 1; i < tm.length - 1; i++)
    if (g.edgeFlags[tm[i].edge] & (EdgeFlag.destinationOnly | EdgeFlag.reversible)) hasRestrictions = true;
  let freeS = 0;
  for (const t of tm) freeS += t.turnS + t.share * engine.model.freeFlowTimeS(t.edge);
  for (const l of legs) freeS += l.offsetS;
  return { current, typicalS, freeFlowS: freeS, trafficConsidered, hasClosures: current.hasClosures, hasRestrictions };
}

/** Incident as output, restricted to the requested fields. */
export function incidentView(inc: Incident, fields: ReadonlySet<string>, freeFlowDelayMin: number): IncidentView {
  const all = fields.has('all');
  const want = (f: string) => all || fields.has(f);
  const out: IncidentView = {};
  if (want('id')) out.id = inc.id;
  if (want('version')) out.version = inc.version;
  if (want('type')) out.type = inc.type;
  if (want('severity')) out.severity = inc.severity;
  if (want('eventcode')) out.eventCode = inc.eventCode || DEFAULT_EVENT_CODE[inc.type];
  if (want('impacting')) out.impacting = inc.closure || inc.severity >= 2 ? 'Y' : 'N';
  if (want('latlong')) out.geometry = { type: 'Point', coordinates: [inc.lon, inc.lat] };
  if (want('starttime') || want('endtime')) {
    const sch: Record<string, string | null> = {};
    if (want('starttime')) sch.occurrenceStartTime = isoUtc(inc.startS);
    if (want('endtime')) sch.occurrenceEndTime = inc.endS === null ? null : isoUtc(inc.endS);
    out.schedule = sch;
  }
  if (want('delayimpact')) {
    out.delayImpact = {
      fromTypicalMinutes: inc.delayImpactMinutes,
      fromFreeFlowMinutes: Math.round((inc.delayImpactMinutes + freeFlowDelayMin) * 10) / 10,
      distance: 0,
    };
  }
  if (want('area')) {
    const d = 0.0005;
    const ring = [
      [inc.lat - d, inc.lon - d],
      [inc.lat - d, inc.lon + d],
      [inc.lat + d, inc.lon + d],
      [inc.lat + d, inc.lon - d],
      [inc.lat - d, inc.lon - d],
    ];
    out.area = `<gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>${ring.map((p) => `${p[0].toFixed(6)} ${p[1].toFixed(6)}`).join(' ')}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>`;
  }
  if (want('rds')) out.rds = { eventCode: inc.eventCode || DEFAULT_EVENT_CODE[inc.type], severity: inc.severity };
  if (want('shortdescription') || want('fulldescription')) {
    const descs: Array<{ type: string; lang: string; desc: string }> = [];
    if (want('shortdescription')) descs.push({ type: 'short', lang: 'en', desc: inc.shortDescription });
    if (want('fulldescription')) descs.push({ type: 'long', lang: 'en', desc: inc.fullDescription });
    out.descriptions = descs;
  }
  return out;
}

/** ISO 8601 UTC with seconds and Z. */
export function isoUtc(unixS: number): string {
  return new Date(Math.round(unixS) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Builds the view of a route leaving at `departS`. */
export function assembleRoute(
  engine: RoutingEngine,
  id: string,
  legs: Leg[],
  departS: number,
  nowS: number,
  mode: SpeedModeId,
  incidents: readonly Incident[],
  opt: OutputOptions,
): RouteView {
  const g: Graph = engine.graph;
  const times = routeTimes(engine, legs, departS, nowS, mode);
  const cur = times.current;
  const view = timesView(id, times, opt.units);
  const fields = opt.fields;
  const geom = routeGeometry(
    g,
    cur.timings,
    legs.map((l) => l.startFraction),
    legs.map((l) => l.endFraction),
  );
  if (fields.has('S') || fields.has('D')) {
    const summary = summarize(g, cur.timings);
    if (fields.has('S')) view.summary = summary;
    if (fields.has('D')) {
      view.description = describe(summary);
      const keep = new Set(majorRuns(g, cur.timings).map((r) => r.name));
      view.maneuvers = maneuvers(
        g,
        cur.timings,
        geom.points,
        geom.edgeStart,
        opt.units,
        opt.collapseManeuvers,
        legs.length,
        keep,
      );
    }
  }
  if (fields.has('B')) {
    const [minLat, minLon, maxLat, maxLon] = bboxOf(geom.points);
    view.boundingBox = { corner1: [minLon, maxLat], corner2: [maxLon, minLat] };
  }
  let kept: number[] | null = null;
  if (fields.has('P')) {
    kept = simplifyIndices(geom.points, opt.toleranceM);
    view.points = kept.map((i) => [geom.points[i][1], geom.points[i][0]]);
  }
  if (fields.has('U')) view.speedBuckets = speedBucketsOf(engine, cur.timings, geom, kept);
  if (fields.has('I')) {
    const ids = new Set<number>();
    for (const t of cur.timings)
      for (const iid of engine.model.incidentIdsOn(t.edge, t.enterS, t.enterS + t.durationS)) ids.add(iid);
    view.incidents = incidents.filter((i) => ids.has(i.id)).map((i) => incidentView(i, opt.incidentFields, 0));
  }
  return view;
}

/** The route's times, distance, speed and status fields (every view has them). */
function timesView(id: string, times: RouteTimes, units: Units): RouteView {
  const cur = times.current;
  const distanceM = cur.distanceM;
  const totalDistance = Math.round((units === 0 ? distanceM / 1609.344 : distanceM / 1000) * 100) / 100;
  const hours = cur.totalS / 3600;
  const speed = hours > 0 ? (units === 0 ? distanceM / 1609.344 : distanceM / 1000) / hours : 0;
  const view: RouteView = {
    id,
    uncongestedTravelTimeMinutes: minutes(times.freeFlowS),
    routeQuality: routeQuality(times.freeFlowS, cur.totalS),
    hasClosures: times.hasClosures,
    hasRestrictions: times.hasRestrictions,
    averageSpeed: times.hasClosures ? 0 : Math.round(speed),
    trafficConsidered: times.trafficConsidered,
    statusId: 0,
    totalDistance,
    routeTransportStatus: 0,
    travelTimeS: cur.totalS,
    typicalTimeS: times.typicalS,
    freeFlowTimeS: times.freeFlowS,
    distanceM,
  };
  if (!times.hasClosures && !times.hasRestrictions) view.travelTimeMinutes = minutes(cur.totalS);
  if (!times.hasClosures)
    view.abnormalityMinutes = times.trafficConsidered ? Math.round((cur.totalS - times.typicalS) / 60) : 0;
  return view;
}

/**
 * Runs of edges in one speed bucket (speed / free flow), as index ranges over the geometry points,
 * or over the returned simplified points when `kept` (the indices the simplification kept) is given.
 */
function speedBucketsOf(
  engine: RoutingEngine,
  timings: PathCost['timings'],
  geom: { edgeStart: number[]; edgeEnd: number[] },
  kept: number[] | null,
): SpeedBucketRun[] {
  const runs: SpeedBucketRun[] = [];
  for (let i = 0; i < timings.length; i++) {
    const t = timings[i];
    const ff = engine.model.freeFlowKph[t.edge];
    const sp = t.closed ? 0 : t.durationS > 0 ? (t.lengthM / t.durationS) * 3.6 : ff;
    const b = speedBucketOf(sp / ff);
    const last = runs[runs.length - 1];
    if (last && last.speedBucket === b) last.endIndex = geom.edgeEnd[i];
    else runs.push({ speedBucket: b, startIndex: geom.edgeStart[i], endIndex: geom.edgeEnd[i] });
  }
  if (!kept) return runs;
  const mapDown = (idx: number) => {
    let k = 0;
    while (k + 1 < kept.length && kept[k + 1] <= idx) k++;
    return k;
  };
  const mapUp = (idx: number) => {
    let k = kept.length - 1;
    while (k - 1 >= 0 && kept[k - 1] >= idx) k--;
    return k;
  };
  return runs.map((r) => ({
    speedBucket: r.speedBucket,
    startIndex: mapDown(r.startIndex),
    endIndex: mapUp(r.endIndex),
  }));
}
