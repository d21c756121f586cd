/**
 * Routing error catalog. Ids and texts are the reference status registry (reference §5); the HTTP
 * status of each lives beside it so every API that raises it maps it the same way. Texts ending in
 * "for", "in" or ":" are prefixes: the offending parameter name is appended.
 */

/** One registry entry: statusId, statusText, HTTP status. */
export interface StatusEntry {
  statusId: number;
  text: string;
  http: number;
}

/** The registry entries routing raises, by name. */
export const RoutingStatus = {
  OK: { statusId: 0, text: 'OK', http: 200 },
  NO_ACTION: { statusId: 4, text: 'no action', http: 400 },
  BAD_ACTION: { statusId: 5, text: 'bad action', http: 400 },
  SERVICE_ERROR: { statusId: 8, text: 'unknown service error', http: 500 },
  NO_TOKEN: { statusId: 41, text: 'NoToken', http: 400 },
  BAD_TOKEN: { statusId: 42, text: 'BadToken', http: 400 },
  TOKEN_EXPIRED: { statusId: 43, text: 'TokenExpired', http: 401 },
  EXPECTED_BOOLEAN: { statusId: 50, text: 'boolean value expected for', http: 400 },
  EXPECTED_INTEGER: { statusId: 54, text: 'integer value expected for', http: 400 },
  MISSING_PARAMETER: { statusId: 56, text: 'Missing required parameter:', http: 400 },
  UNKNOWN_OUTPUT_FIELD: { statusId: 60, text: 'unknown output field value in', http: 400 },
  TIMEOUT: { statusId: 90, text: 'Service Call Timed Out', http: 500 },
  BAD_AMBIGUOUS_ORIGIN: { statusId: 105, text: 'bad isambiguousorigin', http: 400 },
  NO_ORIGIN: { statusId: 111, text: 'no waypoint', http: 400 },
  NO_DESTINATION: { statusId: 112, text: 'no waypoint', http: 400 },
  BAD_ORIGIN: { statusId: 113, text: 'bad waypoint', http: 400 },
  BAD_WAYPOINT: { statusId: 114, text: 'bad waypoint', http: 400 },
  NON_CONSECUTIVE_WAYPOINTS: { statusId: 118, text: 'NonConsecutiveWaypoints', http: 400 },
  BAD_MAX_ALTERNATES: { statusId: 119, text: 'BadMaxAlternates', http: 400 },
  UNROUTABLE_WAYPOINT: { statusId: 121, text: 'Unroutable Waypoint', http: 400 },
  NO_ROUTE_ID: { statusId: 131, text: 'no routeId', http: 400 },
  BAD_ROUTE_ID: { statusId: 132, text: 'bad routeId', http: 400 },
  ROUTE_ID_NOT_FOUND: { statusId: 133, text: 'routeId not found', http: 404 },
  ROUTE_NOT_FOUND: { statusId: 137, text: 'Route Not Found', http: 400 },
  ROUTE_UNRETRIEVABLE: { statusId: 138, text: 'Unable to retrieve route', http: 501 },
  BAD_DESCRIPTION: { statusId: 310, text: 'bad description', http: 400 },
  BAD_UNITS: { statusId: 440, text: 'bad units', http: 400 },
  BAD_INCIDENT_OUTPUT_FIELDS: { statusId: 442, text: 'bad IncidentOutputFields', http: 400 },
  SPEED_BUCKET_NOT_FOUND: { statusId: 468, text: 'SpeedBucket Id not found', http: 400 },
  BAD_SPEED_BUCKET: { statusId: 492, text: 'bad SpeedBucketId', http: 400 },
  BAD_USE_TRAFFIC: { statusId: 510, text: 'bad use traffic', http: 400 },
  BAD_DEPARTURE_TIME: { statusId: 511, text: 'bad departure time', http: 400 },
  BAD_ARRIVAL_TIME: { statusId: 512, text: 'bad arrival time', http: 400 },
  BAD_ROUTE_TYPE: { statusId: 513, text: 'bad route type', http: 400 },
  BAD_ROUTE_OUTPUT_FIELDS: { statusId: 514, text: 'bad route output fields', http: 400 },
  BAD_COLLAPSE_MANEUVERS: { statusId: 515, text: 'bad collapse maneuvers', http: 400 },
  BAD_LOCATION_ID: { statusId: 521, text: 'bad location id', http: 400 },
  BAD_LOCATION: { statusId: 522, text: 'bad location', http: 400 },
  BAD_GEOMETRY_TOLERANCE: { statusId: 936, text: 'BadGeometryTolerance', http: 400 },
  BAD_TRAVEL_TIME_COUNT: { statusId: 950, text: 'BadTravelTimeCount', http: 400 },
  BAD_TRAVEL_TIME_INTERVAL: { statusId: 951, text: 'BadTravelTimeInterval', http: 400 },
  NO_TRAVEL_TIME_COUNT: { statusId: 952, text: 'NoTravelTimeCount', http: 400 },
  NO_TRAVEL_TIME_INTERVAL: { statusId: 953, text: 'NoTravelTimeInterval', http: 400 },
  BAD_TIME_RANGE: { statusId: 954, text: 'BadTimeRange', http: 400 },
  PARSE_FAILED: { statusId: 1009, text: 'Failed to parse parameter', http: 400 },
  ENUM_EXPECTED: { statusId: 1011, text: 'Enum value expected for', http: 400 },
} as const satisfies Record<string, StatusEntry>;

/** Names of the registry entries. */
export type RoutingStatusName = keyof typeof RoutingStatus;

/** A routing failure: registry entry + the parameter it concerns + a human detail. */
export class RoutingError extends Error {
  readonly status: StatusEntry;
  constructor(
    readonly code: RoutingStatusName,
    readonly detail: string,
    readonly parameter?: string,
  ) {
    super(detail);
    this.name = 'RoutingError';
    this.status = RoutingStatus[code];
  }

  /** statusText with the parameter appended for prefix texts. */
  get statusText(): string {
    const t = this.status.text;
    if (this.parameter && (/ (for|in)$/.test(t) || t.endsWith(':'))) return `${t} ${this.parameter}`;
    return t;
  }
}
