/**
 * Units of probe fields as feeds write them: speeds in m/s, km/h, mph or knots, timestamps as
 * ISO 8601 or epoch seconds / milliseconds. Pings are stored in km/h and unix seconds.
 */

/** Speed units understood in CSV headers, column mappings and JSON field names. */
export type SpeedUnit = 'mps' | 'kph' | 'mph' | 'knots';

/** km/h per unit: m/s × 3.6, statute mile 1.609344 km, nautical mile 1.852 km (exact SI definitions). */
export const KPH_PER_UNIT: Readonly<Record<SpeedUnit, number>> = { mps: 3.6, kph: 1, mph: 1.609344, knots: 1.852 };

const SPEED_UNIT_NAMES: Readonly<Record<string, SpeedUnit>> = {
  mps: 'mps',
  ms: 'mps',
  m_s: 'mps',
  'm/s': 'mps',
  meters_per_second: 'mps',
  metres_per_second: 'mps',
  kph: 'kph',
  kmh: 'kph',
  km_h: 'kph',
  'km/h': 'kph',
  kmph: 'kph',
  kilometers_per_hour: 'kph',
  kilometres_per_hour: 'kph',
  mph: 'mph',
  miles_per_hour: 'mph',
  knots: 'knots',
  knot: 'knots',
  kn: 'knots',
  kt: 'knots',
  kts: 'knots',
};

/** Reads a speed unit name (`mps`, `m/s`, `ms`, `kph`, `kmh`, `km/h`, `mph`, `knots`, `kn`, `kt`, …); undefined when unknown. */
export function speedUnitFromName(name: string): SpeedUnit | undefined {
  return SPEED_UNIT_NAMES[name.trim().toLowerCase()];
}

/** Names of the speed units, for messages. */
export const SPEED_UNIT_HINT = 'mps, kph, mph or knots';

/** How a timestamp column is written: `auto` = ISO 8601 or epoch (values ≥ 1e11 are milliseconds). */
export type TimeUnit = 'auto' | 'iso' | 'epoch_s' | 'epoch_ms';

const TIME_UNIT_NAMES: Readonly<Record<string, TimeUnit>> = {
  auto: 'auto',
  iso: 'iso',
  iso8601: 'iso',
  iso_8601: 'iso',
  s: 'epoch_s',
  sec: 'epoch_s',
  seconds: 'epoch_s',
  epoch: 'epoch_s',
  epoch_s: 'epoch_s',
  unix: 'epoch_s',
  unix_s: 'epoch_s',
  ms: 'epoch_ms',
  millis: 'epoch_ms',
  milliseconds: 'epoch_ms',
  epoch_ms: 'epoch_ms',
  unix_ms: 'epoch_ms',
};

/** Reads a time unit name (`iso`, `s`/`epoch_s`/`epoch`/`unix`, `ms`/`epoch_ms`, `auto`); undefined when unknown. */
export function timeUnitFromName(name: string): TimeUnit | undefined {
  return TIME_UNIT_NAMES[name.trim().toLowerCase()];
}

/** Names of the time units, for messages. */
export const TIME_UNIT_HINT = 'iso, s (epoch seconds), ms (epoch milliseconds) or auto';

/** Epoch values at or above this are read as milliseconds by `auto` (year 5138 in seconds). */
export const EPOCH_MS_THRESHOLD = 1e11;
/** Latest plausible timestamp with an explicit epoch unit: 2100-01-01T00:00:00Z, unix seconds. */
const MAX_EXPLICIT_EPOCH_S = 4_102_444_800;

const ISO_RE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const HAS_ZONE_RE = /(Z|[+-]\d{2}:?\d{2})$/i;
const NUMBER_RE = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Parses ISO 8601 (`2026-01-05T08:00:00Z`, with an offset, or without one = UTC; date only = midnight UTC) to unix seconds, or NaN. */
export function parseIsoS(value: string): number {
  const s = value.trim();
  if (!ISO_RE.test(s)) return NaN;
  const norm = s.length === 10 ? `${s}T00:00:00Z` : s.replace(' ', 'T');
  const ms = Date.parse(HAS_ZONE_RE.test(norm) ? norm : `${norm}Z`);
  return Number.isFinite(ms) ? ms / 1000 : NaN;
}

/**
 * Parses a timestamp written in `unit` to unix seconds; a string saying why when it cannot.
 * Explicit epoch units must land in 1970..2100, which catches milliseconds declared as seconds.
 */
export function parseTimeAs(value: string, unit: TimeUnit): number | string {
  const s = value.trim();
  if (s === '') return 'is empty';
  if (unit === 'iso') {
    const t = parseIsoS(s);
    return Number.isFinite(t) ? t : 'is not ISO 8601';
  }
  if (unit === 'auto') {
    const t = NUMBER_RE.test(s) ? autoEpochS(Number(s)) : parseIsoS(s);
    return Number.isFinite(t) ? t : 'is not epoch seconds/milliseconds or ISO 8601';
  }
  if (!NUMBER_RE.test(s)) return `is not a number of ${unit === 'epoch_s' ? 'epoch seconds' : 'epoch milliseconds'}`;
  const t = unit === 'epoch_ms' ? Number(s) / 1000 : Number(s);
  if (t < 0 || t >= MAX_EXPLICIT_EPOCH_S) {
    return `is outside 1970..2100 as ${unit === 'epoch_s' ? 'epoch seconds (milliseconds? use unit ms)' : 'epoch milliseconds'}`;
  }
  return t;
}

/** Epoch seconds or milliseconds (≥ 1e11) to unix seconds. */
export function autoEpochS(value: number): number {
  if (!Number.isFinite(value)) return NaN;
  return Math.abs(value) >= EPOCH_MS_THRESHOLD ? value / 1000 : value;
}
