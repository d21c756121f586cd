/**
 * The location parameter of a lots/blocks query (id, alias, box, point + radius, polygon, polyline,
 * geoId) parsed into a `LocationQuery`, enforcing the contract's rules: exactly one location
 * parameter; radius only with point; radius never with box or geoId.
 */
import { ParkingError, invalidParam } from '../errors.js';
import { geodesicDistanceM, polylineLengthM } from '../../geo/index.js';
import {
  CORRIDOR_HALF_WIDTH_M,
  DEFAULT_RADIUS_M,
  MAX_AREA_DIAGONAL_M,
  MAX_LIMIT,
  MAX_POLYLINE_M,
  MAX_RADIUS_M,
} from './inventory-limits.js';
import type { InventoryOperation } from './params.js';
import { decodeLine } from './polyline.js';

/** Where to look. Coordinates in degrees, distances in metres. */
export type LocationQuery =
  | { kind: 'id'; ids: number[] }
  | { kind: 'alias'; alias: string }
  | { kind: 'box'; minLat: number; minLon: number; maxLat: number; maxLon: number }
  | { kind: 'circle'; lat: number; lon: number; radiusM: number }
  | { kind: 'polygon'; ring: Array<[number, number]> }
  | { kind: 'polyline'; line: Array<[number, number]>; widthM: number };

/** Location parameters (lower-cased) of each operation. */
export const LOCATION_PARAMS: Record<InventoryOperation, string[]> = {
  lots: ['id', 'alias', 'box', 'point', 'polygon', 'polyline'],
  blocks: ['id', 'alias', 'box', 'point'],
  'blocks-v3': ['point', 'box', 'geoid'],
};

function num(name: string, v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw invalidParam(name, `a number expected, got "${v}"`);
  return n;
}

/** Parses "lat|lon" (degrees). */
export function parsePair(name: string, s: string): [number, number] {
  const parts = s.split('|');
  if (parts.length !== 2) throw invalidParam(name, `"<lat>|<lon>" expected, got "${s}"`);
  const lat = num(name, parts[0]),
    lon = num(name, parts[1]);
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180) throw invalidParam(name, `coordinates out of range: ${s}`);
  return [lat, lon];
}

function pairs(name: string, s: string, min: number, max: number): Array<[number, number]> {
  const list = s
    .split(',')
    .filter((x) => x.trim() !== '')
    .map((p) => parsePair(name, p));
  if (list.length < min) throw invalidParam(name, `at least ${min} "<lat>|<lon>" pairs expected, got ${list.length}`);
  if (list.length > max)
    throw new ParkingError('PARKING_AREA_TOO_LARGE', `${name}: at most ${max} points, got ${list.length}`, name);
  return list;
}

function diagonalCheck(name: string, minLat: number, minLon: number, maxLat: number, maxLon: number): void {
  const d = geodesicDistanceM(minLat, minLon, maxLat, maxLon);
  if (d > MAX_AREA_DIAGONAL_M)
    throw new ParkingError(
      'PARKING_AREA_TOO_LARGE',
      `${name}: diagonal ${Math.round(d)} m exceeds ${MAX_AREA_DIAGONAL_M} m`,
      name,
    );
}

/** The one location parameter given, checking conflicts: at most one, radius only with point. */
function locationParam(op: InventoryOperation, params: Record<string, string>): string {
  const present = LOCATION_PARAMS[op].filter((k) => params[k] !== undefined);
  if (present.length > 1) {
    throw new ParkingError(
      'PARKING_PARAM_CONFLICT',
      `only one location parameter may be used, got ${present.join(' and ')}`,
      present[1],
    );
  }
  if (params.radius !== undefined && present[0] !== 'point') {
    const with_ = present[0];
    const msg =
      with_ === 'box' || with_ === 'geoid' ? `radius cannot be combined with ${with_}` : 'radius requires point';
    throw new ParkingError('PARKING_PARAM_CONFLICT', msg, 'radius');
  }
  if (present.length === 0) {
    throw new ParkingError(
      'PARKING_LOCATION_MISSING',
      `one location parameter is required: ${LOCATION_PARAMS[op].join(', ')}`,
      LOCATION_PARAMS[op][0],
    );
  }
  return present[0];
}

function idLocation(v: string): LocationQuery {
  const ids = v.split('|').map((x) => x.trim());
  if (ids.length > MAX_LIMIT) throw new ParkingError('PARKING_AREA_TOO_LARGE', `id: at most ${MAX_LIMIT} ids`, 'id');
  return {
    kind: 'id',
    ids: ids.map((x) => {
      if (!/^\d+$/.test(x)) throw invalidParam('id', `positive integer ids separated by | expected, got "${x}"`);
      return Number(x);
    }),
  };
}

function boxLocation(v: string): LocationQuery {
  const p = v.split(',');
  if (p.length !== 2)
    throw invalidParam(
      'box',
      `"<lat1>|<lon1>,<lat2>|<lon2>" (north-west corner, south-east corner) expected, got "${v}"`,
    );
  const [a, b] = p.map((x) => parsePair('box', x));
  const minLat = Math.min(a[0], b[0]),
    maxLat = Math.max(a[0], b[0]),
    minLon = Math.min(a[1], b[1]),
    maxLon = Math.max(a[1], b[1]);
  if (minLat === maxLat || minLon === maxLon)
    throw invalidParam('box', 'the two corners must differ in latitude and longitude');
  diagonalCheck('box', minLat, minLon, maxLat, maxLon);
  return { kind: 'box', minLat, minLon, maxLat, maxLon };
}

function circleLocation(v: string, radius: string | undefined): LocationQuery {
  const [lat, lon] = parsePair('point', v);
  const r = radius === undefined ? DEFAULT_RADIUS_M : num('radius', radius);
  if (!(r > 0)) throw invalidParam('radius', `positive metres expected, got ${radius}`);
  if (r > MAX_RADIUS_M)
    throw new ParkingError('PARKING_AREA_TOO_LARGE', `radius: ${r} m exceeds ${MAX_RADIUS_M} m`, 'radius');
  return { kind: 'circle', lat, lon, radiusM: r };
}

function polygonLocation(v: string): LocationQuery {
  const ring = pairs('polygon', v, 3, 1000);
  const lats = ring.map((q) => q[0]),
    lons = ring.map((q) => q[1]);
  diagonalCheck('polygon', Math.min(...lats), Math.min(...lons), Math.max(...lats), Math.max(...lons));
  return { kind: 'polygon', ring };
}

function polylineLocation(v: string): LocationQuery {
  let line: Array<[number, number]>;
  // encoded polylines use characters 63–126 only: never digits, '-', '.' or ','
  if (/^[-0-9.|,\s+]+$/.test(v)) line = pairs('polyline', v, 2, 5000);
  else {
    try {
      line = decodeLine(v);
    } catch {
      throw invalidParam('polyline', 'comma-separated "<lat>|<lon>" pairs or an encoded polyline expected');
    }
    if (line.length < 2) throw invalidParam('polyline', 'at least 2 points expected');
  }
  const len = polylineLengthM(line, geodesicDistanceM);
  if (len > MAX_POLYLINE_M)
    throw new ParkingError(
      'PARKING_AREA_TOO_LARGE',
      `polyline: ${Math.round(len)} m exceeds ${MAX_POLYLINE_M} m`,
      'polyline',
    );
  return { kind: 'polyline', line, widthM: CORRIDOR_HALF_WIDTH_M };
}

/** Parses the location of one operation's query (`params` keys lower-cased). */
export function parseLocation(op: InventoryOperation, params: Record<string, string>): LocationQuery {
  const loc = locationParam(op, params);
  const v = params[loc];
  switch (loc) {
    case 'id':
      return idLocation(v);
    case 'alias':
      if (!/^[^|]+\|[^|]+$/.test(v.trim()))
        throw invalidParam('alias', `"<data_source_key>|<lot_id>" expected, got "${v}"`);
      return { kind: 'alias', alias: v.trim() };
    case 'box':
      return boxLocation(v);
    case 'point':
      return circleLocation(v, params.radius);
    case 'polygon':
      return polygonLocation(v);
    case 'polyline':
      return polylineLocation(v);
    case 'geoid':
      throw new ParkingError(
        'PARKING_PARAM_UNSUPPORTED',
        'geoId: this server has no geography table; use point and radius, or box',
        'geoId',
      );
    default:
      throw new ParkingError('PARKING_PARAM_INVALID', `unknown location parameter ${loc}`, loc);
  }
}
