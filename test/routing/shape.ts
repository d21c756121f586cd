/**
 * A tiny structural schema checker for response shapes: a schema is a type name
 * ('string' | 'number' | 'integer' | 'boolean' | 'any'), an object of field schemas (a field name
 * ending in '?' is optional; no other fields allowed), or a one-element array (every item).
 */
export type Shape = string | { [field: string]: Shape } | [Shape];

/** Problems found (empty when `value` matches `shape`). */
export function checkShape(value: unknown, shape: Shape, path = '$'): string[] {
  if (typeof shape === 'string') {
    if (shape === 'any') return [];
    if (shape === 'integer')
      return Number.isInteger(value) ? [] : [`${path}: expected integer, got ${JSON.stringify(value)}`];
    return typeof value === shape ? [] : [`${path}: expected ${shape}, got ${JSON.stringify(value)}`];
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path}: expected array`];
    return value.flatMap((v, i) => checkShape(v, shape[0], `${path}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: expected object`];
  const out: string[] = [];
  const obj = value as Record<string, unknown>;
  const known = new Set<string>();
  for (const [k, s] of Object.entries(shape)) {
    const optional = k.endsWith('?');
    const name = optional ? k.slice(0, -1) : k;
    known.add(name);
    if (!(name in obj)) {
      if (!optional) out.push(`${path}.${name}: missing`);
      continue;
    }
    out.push(...checkShape(obj[name], s, `${path}.${name}`));
  }
  for (const k of Object.keys(obj)) if (!known.has(k)) out.push(`${path}.${k}: unexpected field`);
  return out;
}

const point: Shape = { type: 'string', coordinates: ['number'] };

/** JSON shape of a route. */
export const ROUTE_SHAPE: Shape = {
  id: 'string',
  uncongestedTravelTimeMinutes: 'integer',
  routeQuality: 'integer',
  hasClosures: 'boolean',
  hasRestrictions: 'boolean',
  'travelTimeMinutes?': 'integer',
  'abnormalityMinutes?': 'integer',
  averageSpeed: 'integer',
  trafficConsidered: 'boolean',
  statusId: 'integer',
  totalDistance: 'number',
  routeTransportStatus: 'integer',
  'summary?': { text: 'string', roads: [{ roadClass: 'integer', name: 'string' }] },
  'description?': 'string',
  'maneuvers?': [{ text: 'string', turnType: 'string', distance: 'number', roadName: 'string', point }],
  'incidents?': [
    {
      'id?': 'integer',
      'version?': 'integer',
      'type?': 'integer',
      'severity?': 'integer',
      'eventCode?': 'integer',
      'impacting?': 'string',
      'geometry?': point,
      'schedule?': 'any',
      'delayImpact?': { fromTypicalMinutes: 'number', fromFreeFlowMinutes: 'number', distance: 'number' },
      'area?': 'string',
      'rds?': 'any',
      'descriptions?': [{ type: 'string', lang: 'string', desc: 'string' }],
    },
  ],
  'boundingBox?': { corner1: point, corner2: point },
  'points?': { type: 'string', coordinates: [['number']] },
  'speedBuckets?': [{ speedBucket: 'integer', startIndex: 'integer', endIndex: 'integer' }],
};

const ENVELOPE = {
  docType: 'string',
  copyright: 'string',
  versionNumber: 'string',
  createdDate: 'string',
  statusId: 'integer',
  statusText: 'string',
  responseId: 'string',
};

/** JSON shape of FindRoute / GetRoute answers. */
export const TRIP_RESPONSE_SHAPE: Shape = {
  ...ENVELOPE,
  result: {
    trip: {
      tripId: 'string',
      'wayPoints?': [{ id: 'integer', geometry: point, 'description?': 'string' }],
      routes: [ROUTE_SHAPE],
    },
  },
};

/** JSON shape of an error answer. */
export const ERROR_SHAPE: Shape = { ...ENVELOPE, statusDetail: 'string' };

/** JSON shape of GetRouteTravelTimes answers. */
export const TRAVEL_TIMES_SHAPE: Shape = {
  ...ENVELOPE,
  result: {
    trip: {
      id: 'string',
      statusId: 'integer',
      origin: { latitude: 'number', longitude: 'number' },
      destination: { latitude: 'number', longitude: 'number' },
      route: {
        id: 'string',
        routeInstanceId: 'string',
        uncongestedTravelTimeMinutes: 'integer',
        travelTimes: [
          {
            departureTime: 'string',
            'travelTimeMinutes?': 'integer',
            'abnormalityMinutes?': 'integer',
            averageSpeed: 'integer',
            routeHasClosures: 'boolean',
            routeRestricted: 'boolean',
          },
        ],
      },
    },
  },
};
