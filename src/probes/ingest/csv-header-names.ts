/**
 * The header names CSV probe files use for each ping field (`vehicle_id`, `timestamp_iso_utc`,
 * `epoch_ms`, `latitude`, `speed_mps`, `bearing`, …), compared after `normalizeHeader`.
 */
import { speedUnitFromName, type SpeedUnit, type TimeUnit } from './units.js';

/**
 * Normalises a header cell for alias lookup: `Speed (km/h)` → `speed_km_h`, `vehicleID` →
 * `vehicle_id`, `timestampMs` → `timestamp_ms`.
 */
export function normalizeHeader(name: string): string {
  return name
    .replace(/^\uFEFF/, '')
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

// Header names per field, best first: when several are present the earliest in the list is read.
export const TRACE_NAMES = [
  'trace_id',
  'traceid',
  'trace',
  'trip_id',
  'tripid',
  'trip',
  'vehicle_id',
  'vehicleid',
  'vehicle',
  'veh_id',
  'device_id',
  'deviceid',
  'device',
  'unit_id',
  'car_id',
  'object_id',
  'id',
];
export const TIME_NAMES: ReadonlyArray<readonly [string, TimeUnit]> = [
  ...[
    'timestamp',
    'time',
    't',
    'ts',
    'datetime',
    'date_time',
    'timestamp_utc',
    'time_utc',
    'utc_time',
    'gps_time',
    'fix_time',
    'recorded_at',
  ].map((n) => [n, 'auto'] as const),
  ...[
    'timestamp_iso',
    'timestamp_iso_utc',
    'iso_timestamp',
    'ts_iso',
    'ts_iso_utc',
    'ts_iso8601',
    'time_iso',
    'iso_time',
    'iso8601',
    'timestamp_iso8601',
    'datetime_iso',
    'datetime_utc',
  ].map((n) => [n, 'iso'] as const),
  ...[
    'epoch',
    'epoch_s',
    'epoch_sec',
    'epoch_seconds',
    'unix',
    'unix_s',
    'unix_time',
    'unixtime',
    'unix_timestamp',
    'timestamp_s',
    'time_s',
    't_s',
    'ts_s',
  ].map((n) => [n, 'epoch_s'] as const),
  ...[
    'epoch_ms',
    'epoch_millis',
    'epoch_milliseconds',
    'unix_ms',
    'unix_time_ms',
    'timestamp_ms',
    'time_ms',
    't_ms',
    'ts_ms',
  ].map((n) => [n, 'epoch_ms'] as const),
];
export const LAT_NAMES = ['lat', 'latitude', 'lat_deg', 'y'];
export const LON_NAMES = ['lon', 'lng', 'long', 'longitude', 'lon_deg', 'x'];
export const HEADING_NAMES = [
  'heading',
  'heading_deg',
  'bearing',
  'bearing_deg',
  'course',
  'course_deg',
  'direction',
  'dir',
  'azimuth',
  'angle',
];
/** A speed column: one of these names, then `_<unit>` (`speed_mps`) or the unit glued on (`speedkph`). */
const SPEED_RE = /^(?:gps_|ground_)?(?:speed|velocity|spd)(?:_?(.+))?$/;

/** Speed unit of a normalised header name: a unit, 'none' for a bare `speed`, undefined when it is no speed column. */
export function speedColumnUnit(norm: string): SpeedUnit | 'none' | undefined {
  const m = SPEED_RE.exec(norm);
  if (m === null) return undefined;
  if (m[1] === undefined) return 'none';
  return speedUnitFromName(m[1].replace(/^_/, ''));
}

/** The names a missing required column was looked for under, for messages. */
export const REQUIRED_HINT: Readonly<Record<'trace' | 'time' | 'lat' | 'lon', string>> = {
  trace: 'trace_id, vehicle_id, device_id, trip_id, id, …',
  time: 'timestamp, time, t, timestamp_iso_utc, epoch, epoch_ms, …',
  lat: 'lat, latitude',
  lon: 'lon, lng, longitude',
};
