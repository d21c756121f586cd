/**
 * Query parameters of GET /lots, /blocks and /blocks/v3 parsed into an `InventoryQuery`, enforcing
 * the contract's location rules: exactly one location parameter; radius only with point; radius
 * never with box or geoId. Every violation is a ParkingError naming the parameter.
 */
import { ParkingError, invalidParam } from '../errors.js';
import { DEFAULT_LIMIT, MAX_DURATION_MIN, MAX_LIMIT, V3_MAX_AHEAD_H, V3_MAX_PAST_MIN } from './inventory-limits.js';
import { LOCATION_PARAMS, type LocationQuery, parseLocation } from './location-params.js';

/** Which operation is being parsed. */
export type InventoryOperation = 'lots' | 'blocks' | 'blocks-v3';

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

function int(name: string, v: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(v.trim())) throw invalidParam(name, `an integer expected, got "${v}"`);
  const n = Number(v);
  if (n < min || n > max) throw invalidParam(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
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

/** Rejects parameters another operation knows but `op` does not take. */
function rejectForeign(op: InventoryOperation, params: Record<string, string>): void {
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
}

function operatorsOf(params: Record<string, string>): Set<string> | null {
  if (params.operator === undefined) return null;
  const names = params.operator
    .split('|')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) throw invalidParam('operator', 'one or more operator names separated by | expected');
  return new Set(names);
}

function sortOf(params: Record<string, string>): 'distance' | null {
  if (params.sort === undefined) return null;
  if (params.sort.trim().toLowerCase() !== 'distance')
    throw invalidParam('sort', `only "distance" is supported, got "${params.sort}"`);
  return 'distance';
}

function outputFieldsOf(op: InventoryOperation, params: Record<string, string>): Set<string> | null {
  if (params.outputfields === undefined) return null;
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
  return new Set(names.map((n) => byLower.get(n.toLowerCase())!));
}

function restrictionsOf(params: Record<string, string>): Set<string> | null {
  if (params.restrictions === undefined) return null;
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
  return new Set(codes);
}

function localeOf(params: Record<string, string>): string {
  if (params.locale === undefined) return 'en-US';
  if (!/^[a-zA-Z]{2,3}([-_][a-zA-Z]{2})?$/.test(params.locale.trim()))
    throw invalidParam('locale', `an ISO 15897 locale like en-US expected, got "${params.locale}"`);
  return params.locale.trim().replace('_', '-');
}

function entryOf(op: InventoryOperation, params: Record<string, string>, nowS: number): EntryTime | null {
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
  return entry;
}

function durationsOf(params: Record<string, string>): number[] {
  const durationsMin =
    params.duration !== undefined
      ? params.duration.split('|').map((d) => int('duration', d.trim(), 1, MAX_DURATION_MIN))
      : [];
  if (durationsMin.length > 20) throw invalidParam('duration', 'at most 20 durations');
  return durationsMin;
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
  rejectForeign(op, params);
  const location = parseLocation(op, params);
  const operators = operatorsOf(params);
  const limit = params.limit !== undefined ? int('limit', params.limit, 1, MAX_LIMIT) : DEFAULT_LIMIT;
  const offset = params.offset !== undefined ? int('offset', params.offset, 0, 1_000_000) : 0;
  const sort = sortOf(params);
  const outputFields = outputFieldsOf(op, params);
  const restrictions = restrictionsOf(params);
  const locale = localeOf(params);
  if (params.units !== undefined && params.units !== '1')
    throw invalidParam('units', 'only 1 (metric; distances are metres) is supported');
  const entry = entryOf(op, params, nowS);
  const durationsMin = durationsOf(params);
  return { location, operators, limit, offset, sort, outputFields, restrictions, locale, entry, durationsMin };
}
