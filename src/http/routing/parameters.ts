/**
 * The routing actions and the query parameters each takes: the table the parser checks names
 * against (1009 for the others) and the OpenAPI document lists.
 */
import { INCIDENT_FIELDS, RoutingError } from '../../routing/index.js';

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
