/** Route criteria and the output options shared by FindRoute and GetRoute. */
import {
  RoutingError,
  INCIDENT_FIELDS,
  NO_CRITERIA,
  type Criteria,
  type OutputOptions,
  type RouteField,
} from '../../routing/index.js';
import { int } from './param-values.js';
import type { Params } from './parameters.js';

const ROUTE_FIELD_NAMES: Record<string, RouteField> = {
  d: 'D',
  descriptions: 'D',
  description: 'D',
  s: 'S',
  summary: 'S',
  w: 'W',
  waypoints: 'W',
  b: 'B',
  boundingbox: 'B',
  p: 'P',
  points: 'P',
  i: 'I',
  incidents: 'I',
  u: 'U',
  routespeedbucket: 'U',
};

function routeFields(p: Params): Set<RouteField> {
  const v = p.get('routeoutputfields');
  if (v === undefined) return new Set<RouteField>(['D', 'S', 'W', 'B', 'I', 'U']);
  const out = new Set<RouteField>();
  const items = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0)
    throw new RoutingError('BAD_ROUTE_OUTPUT_FIELDS', 'RouteOutputFields is empty', 'RouteOutputFields');
  for (const it of items) {
    const l = it.toLowerCase();
    if (l === 'all') {
      for (const f of ['D', 'S', 'W', 'B', 'P', 'I', 'U'] as RouteField[]) out.add(f);
      continue;
    }
    const f = ROUTE_FIELD_NAMES[l];
    if (!f)
      throw new RoutingError(
        'BAD_ROUTE_OUTPUT_FIELDS',
        `unknown RouteOutputFields value "${it}" (D,S,W,B,P,I,U,All)`,
        'RouteOutputFields',
      );
    out.add(f);
  }
  return out;
}

function incidentFields(p: Params): Set<string> {
  const v = p.get('incidentoutputfields');
  if (v === undefined) return new Set(['all']);
  const items = v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (items.length === 0)
    throw new RoutingError('BAD_INCIDENT_OUTPUT_FIELDS', 'IncidentOutputFields is empty', 'IncidentOutputFields');
  const allowed = new Set<string>(['all', ...INCIDENT_FIELDS]);
  for (const it of items)
    if (!allowed.has(it))
      throw new RoutingError(
        'BAD_INCIDENT_OUTPUT_FIELDS',
        `unknown IncidentOutputFields value "${it}"`,
        'IncidentOutputFields',
      );
  return new Set(items);
}

const CRITERIA: Record<string, keyof Criteria | null> = {
  norestrictions: null,
  avoidtollroads: 'avoidTollRoads',
  t: 'avoidTollRoads',
  avoidhighways: 'avoidHighways',
  h: 'avoidHighways',
  avoidferries: 'avoidFerries',
  f: 'avoidFerries',
  avoidvignette: 'avoidVignette',
  v: 'avoidVignette',
  preferexpress: 'preferExpress',
  e: 'preferExpress',
  prefercarpool: 'preferCarPool',
  c: 'preferCarPool',
};

export function criteria(p: Params): Criteria {
  const v = p.get('criteria');
  const out: Criteria = { ...NO_CRITERIA };
  if (v === undefined) return out;
  const items = v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (items.length === 0) throw new RoutingError('ENUM_EXPECTED', 'Criteria is empty', 'Criteria');
  for (const it of items) {
    if (!(it in CRITERIA))
      throw new RoutingError(
        'ENUM_EXPECTED',
        `unknown Criteria value "${it}" (NoRestrictions, T, H, F, V, E, C or full names)`,
        'Criteria',
      );
    const k = CRITERIA[it];
    if (k) out[k] = true;
  }
  return out;
}

/** Output options shared by FindRoute and GetRoute. */
export function output(p: Params, collapse: boolean): OutputOptions {
  const units = (int(p, 'Units', 'BAD_UNITS', 0, 1) ?? 0) as 0 | 1;
  const tol = int(p, 'GeometryTolerance', 'BAD_GEOMETRY_TOLERANCE', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const bucketRaw = p.get('speedbucketid');
  let bucket = 1;
  if (bucketRaw !== undefined) {
    if (!/^\d+$/.test(bucketRaw.trim()))
      throw new RoutingError(
        'BAD_SPEED_BUCKET',
        `SpeedBucketID must be an integer, got "${bucketRaw}"`,
        'SpeedBucketID',
      );
    bucket = Number(bucketRaw);
    if (bucket !== 1)
      throw new RoutingError(
        'SPEED_BUCKET_NOT_FOUND',
        `speed bucket set ${bucket} does not exist (only the default set 1)`,
        'SpeedBucketID',
      );
  }
  return {
    fields: routeFields(p),
    incidentFields: incidentFields(p),
    units,
    toleranceM: units === 0 ? tol * 0.9144 : tol,
    speedBucketId: bucket,
    collapseManeuvers: collapse,
  };
}
