/**
 * Query-parameter parsing for the routing actions: names case-insensitive, every parameter of
 * the contract parsed and validated with the reference's status ids; parameters an action does
 * not take are rejected (1009) rather than ignored.
 */
import type { FastifyRequest } from 'fastify';
import {
  RoutingError,
  INCIDENT_FIELDS,
  NO_CRITERIA,
  type Criteria,
  type FindRouteRequest,
  type GetRouteRequest,
  type OutputOptions,
  type RouteField,
  type TravelTimesRequest,
} from '../../routing/index.js';

/** Lower-cased name → value. Repeated names are rejected. */
export type Params = Map<string, string>;

/** The three actions, by lower-cased name. */
export const ACTIONS = {
  findroute: 'FindRoute',
  getroute: 'GetRoute',
  getroutetraveltimes: 'GetRouteTravelTimes',
} as const;
/** Canonical action names. */
export type ActionName = (typeof ACTIONS)[keyof typeof ACTIONS];

/** Reads the query string into a case-insensitive map. */
export function readParams(req: FastifyRequest): Params {
  const out: Params = new Map();
  const q = (req.query ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(q)) {
    const key = k.toLowerCase();
    if (Array.isArray(v) || out.has(key))
      throw new RoutingError('PARSE_FAILED', `parameter ${k} is given more than once`, k);
    out.set(key, String(v ?? ''));
  }
  return out;
}

/**
 * The answer format and action a request asks for, read leniently before the strict parse so an
 * error found by `readParams` (a repeated parameter) is still answered in the requested format:
 * JSON when every Format value says JSON; the action when it names one of the three.
 */
export function requestedFormatAndAction(req: FastifyRequest): { json: boolean; action?: ActionName } {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const values = (name: string) =>
    Object.entries(q)
      .filter(([k]) => k.toLowerCase() === name)
      .flatMap(([, v]) => (Array.isArray(v) ? v : [v]))
      .map((v) =>
        String(v ?? '')
          .trim()
          .toLowerCase(),
      );
  const formats = values('format');
  const actions = [...new Set(values('action'))];
  return {
    json: formats.length > 0 && formats.every((f) => f === 'json'),
    action: actions.length === 1 ? ACTIONS[actions[0] as keyof typeof ACTIONS] : undefined,
  };
}

/** One query parameter of the routing actions: the parser's and the OpenAPI document's definition. */
export interface RoutingParameter {
  /** canonical spelling (names are matched case-insensitively) */
  name: string;
  /** actions taking it */
  actions: readonly ActionName[];
  description: string;
}

const ALL: readonly ActionName[] = ['FindRoute', 'GetRoute', 'GetRouteTravelTimes'];
const FIND: readonly ActionName[] = ['FindRoute'];
const ROUTES: readonly ActionName[] = ['FindRoute', 'GetRoute'];
const STORED: readonly ActionName[] = ['GetRoute', 'GetRouteTravelTimes'];
/** Waypoints of FindRoute: WP_1 … WP_10. */
export const MAX_WAYPOINTS = 10;

const waypointParams: RoutingParameter[] = [];
for (let n = 1; n <= MAX_WAYPOINTS; n++) {
  waypointParams.push({
    name: `WP_${n}`,
    actions: FIND,
    description:
      n === 1
        ? '"lat,lon" or "lat,lon,heading" (heading 0–359, 90 = due east): origin; required'
        : n === 2
          ? 'next waypoint "lat,lon[,heading]"; required'
          : `waypoint ${n} "lat,lon[,heading]"; waypoints are consecutive`,
  });
}
for (let n = 1; n <= MAX_WAYPOINTS; n++)
  waypointParams.push({
    name: `WP_${n}description`,
    actions: FIND,
    description: `text attached to waypoint ${n} (at most 256 characters), echoed in the route`,
  });
for (let n = 1; n <= MAX_WAYPOINTS; n++)
  waypointParams.push({
    name: `WP_${n}ID`,
    actions: FIND,
    description: `saved location id (CreateLocation) of waypoint ${n}: not supported, answered 522 bad location`,
  });

/**
 * Every query parameter of `GET /traffic/<handler>.ashx`, by action. `checkKnown` rejects the
 * others (1009) and the OpenAPI document lists exactly these.
 */
export const ROUTING_PARAMETERS: readonly RoutingParameter[] = [
  { name: 'Action', actions: ALL, description: 'FindRoute, GetRoute or GetRouteTravelTimes (any case); required' },
  {
    name: 'Token',
    actions: ALL,
    description: 'app token from GET /v1/AppToken (or accessToken, or Authorization: Bearer)',
  },
  { name: 'accessToken', actions: ALL, description: 'same as Token' },
  { name: 'Format', actions: ALL, description: 'XML (default) or JSON' },
  ...waypointParams,
  {
    name: 'WP_Heading',
    actions: FIND,
    description: 'heading at the origin, 0–359 degrees (90 = due east), when WP_1 has none',
  },
  {
    name: 'DepartureTime',
    actions: ALL,
    description:
      'ISO 8601 (YYYY-MM-DDTHH:MM:SSZ or with an offset; no zone = UTC); default now. A past time gets typical (predicted and learned) speeds and no live speeds',
  },
  {
    name: 'ArrivalTime',
    actions: ALL,
    description: 'ISO 8601 like DepartureTime; plans backwards to arrive then; ignored when DepartureTime is given',
  },
  { name: 'MaxAlternates', actions: FIND, description: '0 (default) one route, 1 up to two, 2 up to three' },
  {
    name: 'UseTraffic',
    actions: ROUTES,
    description: 'true (default) or false (free-flow speeds); ignored when RouteType is 1',
  },
  { name: 'RouteType', actions: ROUTES, description: '0 fastest (default), 1 shortest' },
  { name: 'Units', actions: ALL, description: '0 miles and yards (default), 1 kilometres and metres' },
  {
    name: 'RouteOutputFields',
    actions: ROUTES,
    description:
      'comma-separated D Descriptions, S Summary, W Waypoints, B BoundingBox, P Points, I Incidents, U RouteSpeedBucket, All (full names or first letters); default D,S,W,B,I,U',
  },
  {
    name: 'IncidentOutputFields',
    actions: ROUTES,
    description: `comma-separated All (default) or ${INCIDENT_FIELDS.join(', ')}`,
  },
  {
    name: 'GeometryTolerance',
    actions: ROUTES,
    description:
      'integer ≥ 0, yards (Units 0) or metres (Units 1): route points closer than this are dropped; default 0 keeps all',
  },
  {
    name: 'IsAmbiguousOrigin',
    actions: FIND,
    description: 'true lets the service choose the direction of travel at an inexact origin; default false',
  },
  {
    name: 'Criteria',
    actions: FIND,
    description:
      'comma-separated NoRestrictions (default), AvoidTollRoads T, AvoidHighways H, AvoidFerries F, AvoidVignette V, PreferExpress E, PreferCarPool C',
  },
  {
    name: 'SpeedBucketID',
    actions: ROUTES,
    description: 'speed bucket set of the U output field; only the default set 1 exists',
  },
  {
    name: 'RouteId',
    actions: STORED,
    description: 'id of a route returned by FindRoute (valid ROUTE_TTL_HOURS); required',
  },
  {
    name: 'CollapseManeuvers',
    actions: ['GetRoute'],
    description: 'true (default) merges minor maneuvers into the next one',
  },
  { name: 'TravelTimeCount', actions: ['GetRouteTravelTimes'], description: 'number of travel times, 1–96; required' },
  {
    name: 'TravelTimeInterval',
    actions: ['GetRouteTravelTimes'],
    description: 'minutes between them, 1–1440; required',
  },
];

const allowedByAction = new Map<ActionName, Set<string>>(
  ALL.map((a) => [
    a,
    new Set(ROUTING_PARAMETERS.filter((p) => p.actions.includes(a)).map((p) => p.name.toLowerCase())),
  ]),
);

/** Rejects parameters the action does not take. */
export function checkKnown(p: Params, action: ActionName): void {
  const allowed = allowedByAction.get(action)!;
  for (const k of p.keys()) {
    if (allowed.has(k)) continue;
    // WP_11 and beyond: parseFindRoute names the waypoint limit (114) rather than 1009
    if (action === 'FindRoute' && /^wp_\d+(description|id)?$/.test(k)) continue;
    throw new RoutingError('PARSE_FAILED', `${action} does not take parameter ${k}`, k);
  }
}

/** Parses a boolean literal (true/false, any case). */
function bool(p: Params, name: string, code: ConstructorParameters<typeof RoutingError>[0], dflt: boolean): boolean;
function bool(
  p: Params,
  name: string,
  code: ConstructorParameters<typeof RoutingError>[0],
  dflt: undefined,
): boolean | undefined;
function bool(
  p: Params,
  name: string,
  code: ConstructorParameters<typeof RoutingError>[0],
  dflt: boolean | undefined,
): boolean | undefined {
  const v = p.get(name.toLowerCase());
  if (v === undefined) return dflt;
  const l = v.toLowerCase();
  if (l === 'true') return true;
  if (l === 'false') return false;
  throw new RoutingError(code, `${name} must be true or false, got "${v}"`, name);
}

/** Parses an integer in [min, max]. */
function int(
  p: Params,
  name: string,
  code: ConstructorParameters<typeof RoutingError>[0],
  min: number,
  max: number,
): number | undefined {
  const v = p.get(name.toLowerCase());
  if (v === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(v.trim())) throw new RoutingError(code, `${name} must be an integer, got "${v}"`, name);
  const n = Number(v.trim());
  if (n < min || n > max) throw new RoutingError(code, `${name} must be between ${min} and ${max}, got ${n}`, name);
  return n;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Parses an ISO 8601 date-time (Z, offset, or no zone = UTC) to unix seconds. */
export function parseDateTime(v: string): number | undefined {
  const m = ISO.exec(v.trim());
  if (!m) return undefined;
  let zone = m[7] ?? 'Z';
  if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${zone.toUpperCase()}`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  // reject rolled-over dates such as 2026-02-30
  const mon = Number(m[2]),
    day = Number(m[3]),
    hh = Number(m[4]),
    mm = Number(m[5]),
    ss = Number(m[6] ?? 0);
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 59) return undefined;
  const check = new Date(Date.UTC(Number(m[1]), mon - 1, day));
  if (check.getUTCDate() !== day) return undefined;
  return ms / 1000;
}

function dateTime(p: Params, name: 'DepartureTime' | 'ArrivalTime'): number | undefined {
  const v = p.get(name.toLowerCase());
  if (v === undefined) return undefined;
  const t = parseDateTime(v);
  if (t === undefined) {
    throw new RoutingError(
      name === 'DepartureTime' ? 'BAD_DEPARTURE_TIME' : 'BAD_ARRIVAL_TIME',
      `${name} must be YYYY-MM-DDTHH:MM:SSZ (or with an offset), got "${v}"`,
      name,
    );
  }
  return t;
}

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

function criteria(p: Params): Criteria {
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
function output(p: Params, collapse: boolean): OutputOptions {
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

/** Parses a waypoint value "lat,lon[,heading]". */
function waypoint(
  v: string,
  name: string,
  bad: 'BAD_ORIGIN' | 'BAD_WAYPOINT',
): { lat: number; lon: number; headingDeg?: number } {
  const parts = v.split(',').map((s) => s.trim());
  const num = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
  if (parts.length < 2 || parts.length > 3 || !parts.every((x) => num.test(x))) {
    throw new RoutingError(bad, `${name} must be "lat,lon" or "lat,lon,heading", got "${v}"`, name);
  }
  const lat = Number(parts[0]),
    lon = Number(parts[1]);
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180)
    throw new RoutingError(bad, `${name} is outside -90..90 / -180..180`, name);
  if (parts.length === 3) {
    const h = Number(parts[2]);
    if (!Number.isInteger(h) || h < 0 || h > 359)
      throw new RoutingError(bad, `${name} heading must be an integer 0..359`, name);
    return { lat, lon, headingDeg: h };
  }
  return { lat, lon };
}

/** Parses FindRoute parameters. */
export function parseFindRoute(p: Params): FindRouteRequest {
  const present: number[] = [];
  for (const k of p.keys()) {
    const m = /^wp_(\d+)$/.exec(k);
    if (m) present.push(Number(m[1]));
  }
  for (const n of present)
    if (n < 1 || n > MAX_WAYPOINTS)
      throw new RoutingError('BAD_WAYPOINT', `WP_${n}: waypoints are WP_1 to WP_${MAX_WAYPOINTS}`, `WP_${n}`);
  if (!p.has('wp_1')) throw new RoutingError('NO_ORIGIN', 'WP_1 (origin) is required', 'WP_1');
  if (!p.has('wp_2')) throw new RoutingError('NO_DESTINATION', 'WP_2 is required', 'WP_2');
  const count = Math.max(...present);
  for (let n = 1; n <= count; n++) {
    if (!p.has(`wp_${n}`))
      throw new RoutingError('NON_CONSECUTIVE_WAYPOINTS', `WP_${n} is missing but WP_${count} is given`, `WP_${n}`);
  }
  const waypoints: FindRouteRequest['waypoints'] = [];
  for (let n = 1; n <= count; n++)
    waypoints.push(waypoint(p.get(`wp_${n}`)!, `WP_${n}`, n === 1 ? 'BAD_ORIGIN' : 'BAD_WAYPOINT'));
  const heading = int(p, 'WP_Heading', 'BAD_ORIGIN', 0, 359);
  if (heading !== undefined && waypoints[0].headingDeg === undefined) waypoints[0].headingDeg = heading;
  for (const k of p.keys()) {
    const d = /^wp_(\d+)description$/.exec(k);
    if (d) {
      const n = Number(d[1]);
      const v = p.get(k)!;
      if (n < 1 || n > count)
        throw new RoutingError('BAD_DESCRIPTION', `WP_${n}description refers to no waypoint`, `WP_${n}description`);
      if (v.length > 256)
        throw new RoutingError(
          'BAD_DESCRIPTION',
          `WP_${n}description is longer than 256 characters`,
          `WP_${n}description`,
        );
      waypoints[n - 1].description = v;
    }
    const i = /^wp_(\d+)id$/.exec(k);
    if (i) {
      const v = p.get(k)!;
      if (!/^\d+$/.test(v.trim()))
        throw new RoutingError('BAD_LOCATION_ID', `WP_${i[1]}ID must be an integer location id`, `WP_${i[1]}ID`);
      throw new RoutingError(
        'BAD_LOCATION',
        `WP_${i[1]}ID: saved locations (CreateLocation) are not supported; pass coordinates in WP_${i[1]}`,
        `WP_${i[1]}ID`,
      );
    }
  }
  const routeType = int(p, 'RouteType', 'BAD_ROUTE_TYPE', 0, 1) ?? 0;
  return {
    waypoints,
    departS: dateTime(p, 'DepartureTime'),
    arriveS: dateTime(p, 'ArrivalTime'),
    maxAlternates: int(p, 'MaxAlternates', 'BAD_MAX_ALTERNATES', 0, 2) ?? 0,
    useTraffic: bool(p, 'UseTraffic', 'BAD_USE_TRAFFIC', true),
    shortest: routeType === 1,
    criteria: criteria(p),
    ambiguousOrigin: bool(p, 'IsAmbiguousOrigin', 'BAD_AMBIGUOUS_ORIGIN', false),
    output: output(p, true),
  };
}

function routeId(p: Params): string {
  const v = p.get('routeid');
  if (v === undefined || v.trim() === '') throw new RoutingError('NO_ROUTE_ID', 'RouteId is required', 'RouteId');
  if (!/^[A-Za-z0-9-]{1,64}$/.test(v.trim()))
    throw new RoutingError('BAD_ROUTE_ID', `RouteId "${v}" is not a route id`, 'RouteId');
  return v.trim();
}

/** Parses GetRoute parameters. */
export function parseGetRoute(p: Params): GetRouteRequest {
  const id = routeId(p);
  const rt = int(p, 'RouteType', 'BAD_ROUTE_TYPE', 0, 1);
  return {
    routeId: id,
    departS: dateTime(p, 'DepartureTime'),
    arriveS: dateTime(p, 'ArrivalTime'),
    useTraffic: bool(p, 'UseTraffic', 'BAD_USE_TRAFFIC', undefined),
    shortest: rt === undefined ? undefined : rt === 1,
    output: output(p, bool(p, 'CollapseManeuvers', 'BAD_COLLAPSE_MANEUVERS', true)),
  };
}

/** Parses GetRouteTravelTimes parameters. */
export function parseTravelTimes(p: Params): TravelTimesRequest {
  const id = routeId(p);
  if (!p.has('traveltimecount'))
    throw new RoutingError('NO_TRAVEL_TIME_COUNT', 'TravelTimeCount is required (1..96)', 'TravelTimeCount');
  if (!p.has('traveltimeinterval'))
    throw new RoutingError(
      'NO_TRAVEL_TIME_INTERVAL',
      'TravelTimeInterval is required (1..1440 minutes)',
      'TravelTimeInterval',
    );
  return {
    routeId: id,
    departS: dateTime(p, 'DepartureTime'),
    arriveS: dateTime(p, 'ArrivalTime'),
    count: int(p, 'TravelTimeCount', 'BAD_TRAVEL_TIME_COUNT', 1, 96)!,
    intervalMinutes: int(p, 'TravelTimeInterval', 'BAD_TRAVEL_TIME_INTERVAL', 1, 1440)!,
    units: (int(p, 'Units', 'BAD_UNITS', 0, 1) ?? 0) as 0 | 1,
  };
}
