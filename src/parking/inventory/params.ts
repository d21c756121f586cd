/**
 * Query parameters of GET /lots, /blocks and /blocks/v3 parsed into an `InventoryQuery`, enforcing
 * the contract's location rules: exactly one location parameter; radius only with point; radius
 * never with box or geoId. Every violation is a ParkingError naming the parameter.
 */
import { ParkingError, invalidParam } from '../errors.js';
import { decodeLine } from './polyline.js';
import { geodesicDistanceM, polylineLengthM } from './geodesic.js';

/** Which operation is being parsed. */
export type InventoryOperation = 'lots' | 'blocks' | 'blocks-v3';

/** Where to look. Coordinates in degrees, distances in metres. */
export type LocationQuery =
  | { kind: 'id'; ids: number[] }
  | { kind: 'alias'; alias: string }
  | { kind: 'box'; minLat: number; minLon: number; maxLat: number; maxLon: number }
  | { kind: 'circle'; lat: number; lon: number; radiusM: number }
  | { kind: 'polygon'; ring: Array<[number, number]> }
  | { kind: 'polyline'; line: Array<[number, number]>; widthM: number };

/** A parsed entry time: UTC instant, or local wall-clock fields resolved per facility. */
export type EntryTime =
  | { utc: true; unixS: number }
  | { utc: false; year: number; month: number; day: number; hour: number; minute: number; second: number };

/** Everything a lots/blocks query asks for. */
export interface InventoryQuery {
  location: LocationQuery;
  /** lower-cased operator names (pipe list of `operator`); null = all */
  operators: Set<string> | null;
  limit: number;
  offset: number;
  sort: 'distance' | null;
  /** requested top-level fields; null = all */
  outputFields: Set<string> | null;
  /** permit codes held by the driver (blocks `restrictions`); null = none */
  restrictions: Set<string> | null;
  locale: string;
  /** entry time; null = now */
  entry: EntryTime | null;
  /** durations in minutes; empty = none asked */
  durationsMin: number[];
}

/** Default page size when `limit` is absent. */
export const DEFAULT_LIMIT = 100;
/** Largest accepted `limit`. */
export const MAX_LIMIT = 1000;
/** Radius used when `point` comes without `radius`, metres. */
export const DEFAULT_RADIUS_M = 1000;
/** Largest accepted `radius`, metres. */
export const MAX_RADIUS_M = 10_000;
/** Largest accepted diagonal of a box or polygon, metres. */
export const MAX_AREA_DIAGONAL_M = 50_000;
/** Half-width of the corridor around a `polyline`, metres. */
export const CORRIDOR_HALF_WIDTH_M = 100;
/** Longest accepted `polyline`, metres. */
export const MAX_POLYLINE_M = 500_000;
/** Longest accepted stay in `duration`, minutes (30 days). */
export const MAX_DURATION_MIN = 43_200;
/** blocks/v3 accepts entry times from this many minutes in the past … */
export const V3_MAX_PAST_MIN = 15;
/** … up to this many hours ahead. */
export const V3_MAX_AHEAD_H = 24;

const LOCATION_PARAMS: Record<InventoryOperation, string[]> = {
  lots: ['id', 'alias', 'box', 'point', 'polygon', 'polyline'],
  blocks: ['id', 'alias', 'box', 'point'],
  'blocks-v3': ['point', 'box', 'geoid'],
};
const OTHER_PARAMS: Record<InventoryOperation, string[]> = {
  lots: [
    'accesstoken',
    'radius',
    'entry_time',
    'duration',
    'limit',
    'offset',
    'outputfields',
    'locale',
    'sort',
    'operator',
    'units',
  ],
  blocks: [
    'accesstoken',
    'radius',
    'entry_time',
    'duration',
    'limit',
    'offset',
    'outputfields',
    'restrictions',
    'locale',
    'sort',
    'operator',
  ],
  'blocks-v3': ['radius', 'entry_time', 'duration', 'limit', 'locale', 'operator'],
};
/** Query parameters (lower-cased) an operation accepts: its location parameters, then the others. */
export function inventoryParameters(op: InventoryOperation): string[] {
  return [...LOCATION_PARAMS[op], ...OTHER_PARAMS[op]];
}

/** Parameter names any of the three operations knows: others are ignored, these are rejected where they do not belong. */
const KNOWN = new Set([
  'id',
  'alias',
  'box',
  'point',
  'polygon',
  'polyline',
  'geoid',
  'accesstoken',
  'radius',
  'entry_time',
  'duration',
  'limit',
  'offset',
  'outputfields',
  'restrictions',
  'locale',
  'sort',
  'operator',
  'units',
  'entry_dt',
]);

/** Top-level lot fields `outputfields` may name. */
export const LOT_OUTPUT_FIELDS = [
  'id',
  'alias',
  'name',
  'operator',
  'lotCategory',
  'format',
  'type',
  'spacesTotal',
  'handicapSpacesTotal',
  'distance',
  'url',
  'hrs',
  'offset',
  'tz',
  'isOpen',
  'costIndex',
  'currency',
  'currencyIso',
  'pmtTypes',
  'rateCard',
  'structured_rates',
  'calculatedRates',
  'note',
  'reviewCount',
  'reviewScore',
  'reviews',
  'reservations',
  'pois',
  'paymentID',
  'paymentIDs',
  'amenities',
  'ev_chargers',
  'point',
  'polygon',
  'navigationAddress',
  'buildingAddress',
  'phone',
  'phones',
  'occupancy',
  'peps',
  'photoThumbs',
  'photos',
];
/** Top-level block fields `outputfields` may name. */
export const BLOCK_OUTPUT_FIELDS = [
  'blockID',
  'name',
  'address',
  'polyline',
  'polyline6',
  'distance',
  'probability',
  'bucket',
  'currency',
  'pmtTypes',
  'photoThumbs',
  'operator',
  'offset',
  'geojson',
  'reservations',
  'amenities',
  'segments',
  'note',
];

function num(name: string, v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw invalidParam(name, `a number expected, got "${v}"`);
  return n;
}

function int(name: string, v: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(v.trim())) throw invalidParam(name, `an integer expected, got "${v}"`);
  const n = Number(v);
  if (n < min || n > max) throw invalidParam(name, `must be between ${min} and ${max}, got ${n}`);
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

/** Parses `entry_time` "yyyy-mm-ddTHH:MM[:ss]" with trailing Z = UTC (or an explicit offset), else local. */
export function parseEntryTime(name: string, s: string): EntryTime {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s.trim());
  if (!m) throw invalidParam(name, `yyyy-mm-ddTHH:MM (trailing Z for UTC) expected, got "${s}"`);
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const second = m[6] ? Number(m[6]) : 0;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    throw invalidParam(name, `not a valid date-time: "${s}"`);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCDate() !== day) throw invalidParam(name, `not a valid date: "${s}"`);
  if (m[7]) {
    let offsetMin = 0;
    if (m[7] !== 'Z') {
      const sign = m[7][0] === '-' ? -1 : 1;
      const digits = m[7].slice(1).replace(':', '');
      offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
    }
    return { utc: true, unixS: Date.UTC(year, month - 1, day, hour, minute, second) / 1000 - offsetMin * 60 };
  }
  return { utc: false, year, month, day, hour, minute, second };
}

/**
 * Parses the query of one operation (`params` keys lower-cased, one value each) at `nowS` (unix s).
 * @example parseInventoryQuery('lots', { point: '39.29|-76.61', radius: '500', sort: 'distance' }, 1767000000)
 */
export function parseInventoryQuery(
  op: InventoryOperation,
  params: Record<string, string>,
  nowS: number,
): InventoryQuery {
  const allowed = new Set([...LOCATION_PARAMS[op], ...OTHER_PARAMS[op]]);
  for (const k of Object.keys(params)) {
    if (KNOWN.has(k) && !allowed.has(k)) {
      throw new ParkingError(
        'PARKING_PARAM_UNSUPPORTED',
        `${k}: not a parameter of ${op === 'blocks-v3' ? 'GET /blocks/v3' : `GET /${op}`}`,
        k,
      );
    }
  }
  const present = LOCATION_PARAMS[op].filter((k) => params[k] !== undefined);
  if (present.length > 1) {
    throw new ParkingError(
      'PARKING_PARAM_CONFLICT',
      `only one location parameter may be used, got ${present.join(' and ')}`,
      present[1],
    );
  }
  const radius = params.radius;
  if (radius !== undefined && present[0] !== 'point') {
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
  const loc = present[0];
  const v = params[loc];
  let location: LocationQuery;
  switch (loc) {
    case 'id': {
      const ids = v.split('|').map((x) => x.trim());
      if (ids.length > MAX_LIMIT)
        throw new ParkingError('PARKING_AREA_TOO_LARGE', `id: at most ${MAX_LIMIT} ids`, 'id');
      location = {
        kind: 'id',
        ids: ids.map((x) => {
          if (!/^\d+$/.test(x)) throw invalidParam('id', `positive integer ids separated by | expected, got "${x}"`);
          return Number(x);
        }),
      };
      break;
    }
    case 'alias': {
      if (!/^[^|]+\|[^|]+$/.test(v.trim()))
        throw invalidParam('alias', `"<data_source_key>|<lot_id>" expected, got "${v}"`);
      location = { kind: 'alias', alias: v.trim() };
      break;
    }
    case 'box': {
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
      location = { kind: 'box', minLat, minLon, maxLat, maxLon };
      break;
    }
    case 'point': {
      const [lat, lon] = parsePair('point', v);
      const r = radius === undefined ? DEFAULT_RADIUS_M : num('radius', radius);
      if (!(r > 0)) throw invalidParam('radius', `positive metres expected, got ${radius}`);
      if (r > MAX_RADIUS_M)
        throw new ParkingError('PARKING_AREA_TOO_LARGE', `radius: ${r} m exceeds ${MAX_RADIUS_M} m`, 'radius');
      location = { kind: 'circle', lat, lon, radiusM: r };
      break;
    }
    case 'polygon': {
      const ring = pairs('polygon', v, 3, 1000);
      const lats = ring.map((q) => q[0]),
        lons = ring.map((q) => q[1]);
      diagonalCheck('polygon', Math.min(...lats), Math.min(...lons), Math.max(...lats), Math.max(...lons));
      location = { kind: 'polygon', ring };
      break;
    }
    case 'polyline': {
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
      const len = polylineLengthM(line);
      if (len > MAX_POLYLINE_M)
        throw new ParkingError(
          'PARKING_AREA_TOO_LARGE',
          `polyline: ${Math.round(len)} m exceeds ${MAX_POLYLINE_M} m`,
          'polyline',
        );
      location = { kind: 'polyline', line, widthM: CORRIDOR_HALF_WIDTH_M };
      break;
    }
    case 'geoid':
      throw new ParkingError(
        'PARKING_PARAM_UNSUPPORTED',
        'geoId: this server has no geography table; use point and radius, or box',
        'geoId',
      );
    default:
      throw new ParkingError('PARKING_PARAM_INVALID', `unknown location parameter ${loc}`, loc);
  }

  let operators: Set<string> | null = null;
  if (params.operator !== undefined) {
    const names = params.operator
      .split('|')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    if (names.length === 0) throw invalidParam('operator', 'one or more operator names separated by | expected');
    operators = new Set(names);
  }
  const limit = params.limit !== undefined ? int('limit', params.limit, 1, MAX_LIMIT) : DEFAULT_LIMIT;
  const offset = params.offset !== undefined ? int('offset', params.offset, 0, 1_000_000) : 0;
  let sort: 'distance' | null = null;
  if (params.sort !== undefined) {
    if (params.sort.trim().toLowerCase() !== 'distance')
      throw invalidParam('sort', `only "distance" is supported, got "${params.sort}"`);
    sort = 'distance';
  }
  let outputFields: Set<string> | null = null;
  if (params.outputfields !== undefined) {
    const catalog = op === 'lots' ? LOT_OUTPUT_FIELDS : BLOCK_OUTPUT_FIELDS;
    const byLower = new Map(catalog.map((f) => [f.toLowerCase(), f]));
    const names = params.outputfields
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (names.length === 0) throw invalidParam('outputfields', 'comma-separated field names expected');
    const unknown = names.filter((n) => !byLower.has(n.toLowerCase()));
    if (unknown.length > 0)
      throw invalidParam('outputfields', `unknown field(s) ${unknown.join(', ')}; known: ${catalog.join(', ')}`);
    outputFields = new Set(names.map((n) => byLower.get(n.toLowerCase())!));
  }
  let restrictions: Set<string> | null = null;
  if (params.restrictions !== undefined) {
    const codes = params.restrictions
      .split(',')
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean);
    const badCode = codes.find((c) => !['D', 'R', 'C', 'E'].includes(c));
    if (codes.length === 0 || badCode !== undefined)
      throw invalidParam(
        'restrictions',
        `comma-separated restriction ids D, R, C, E expected${badCode ? `, got "${badCode}"` : ''}`,
      );
    restrictions = new Set(codes);
  }
  let locale = 'en-US';
  if (params.locale !== undefined) {
    if (!/^[a-zA-Z]{2,3}([-_][a-zA-Z]{2})?$/.test(params.locale.trim()))
      throw invalidParam('locale', `an ISO 15897 locale like en-US expected, got "${params.locale}"`);
    locale = params.locale.trim().replace('_', '-');
  }
  if (params.units !== undefined && params.units !== '1')
    throw invalidParam('units', 'only 1 (metric; distances are metres) is supported');
  const entry = params.entry_time !== undefined ? parseEntryTime('entry_time', params.entry_time) : null;
  if (op === 'blocks-v3' && entry) {
    // v3 is for the near future only (contract, Limits 3): judge with the widest time-zone spread
    const approx = entry.utc
      ? entry.unixS
      : Date.UTC(entry.year, entry.month - 1, entry.day, entry.hour, entry.minute, entry.second) / 1000;
    const slack = entry.utc ? 0 : 14 * 3600;
    if (approx + slack < nowS - V3_MAX_PAST_MIN * 60)
      throw invalidParam('entry_time', 'historical queries are not supported by /blocks/v3');
    if (approx - slack > nowS + V3_MAX_AHEAD_H * 3600)
      throw invalidParam('entry_time', `/blocks/v3 supports at most ${V3_MAX_AHEAD_H} h ahead`);
  }
  const durationsMin =
    params.duration !== undefined
      ? params.duration.split('|').map((d) => int('duration', d.trim(), 1, MAX_DURATION_MIN))
      : [];
  if (durationsMin.length > 20) throw invalidParam('duration', 'at most 20 durations');
  return { location, operators, limit, offset, sort, outputFields, restrictions, locale, entry, durationsMin };
}
