/**
 * Query-parameter parsing for the routing actions: names case-insensitive, every parameter of
 * the contract parsed and validated with the reference's status ids; parameters an action does
 * not take are rejected (1009) rather than ignored.
 */
import type { FastifyRequest } from 'fastify';
import {
  RoutingError,
  type FindRouteRequest,
  type GetRouteRequest,
  type TravelTimesRequest,
} from '../../routing/index.js';
import { bool, dateTime, int } from './param-values.js';
import { ACTIONS, type ActionName, MAX_WAYPOINTS, type Params } from './parameters.js';
import { criteria, output } from './route-options.js';

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
