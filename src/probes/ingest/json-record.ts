/**
 * One ping as a JSON object, shared by the JSON and NDJSON readers and the NATS feed. Field names
 * (first present wins): trace id `traceId`/`trace_id`/`id`/`vehicle_id`/`vehicleId`/`device_id`/
 * `deviceId`/`trip_id`/`tripId`; time `timestamp`/`time`/`t`/`tS` (epoch s or ms, or ISO 8601),
 * `epoch`/`epoch_s` (seconds), `timestamp_ms`/`epoch_ms` (milliseconds); `lat`/`latitude`;
 * `lon`/`lng`/`longitude`; speed `speedKph`/`speed_kph`/`speed` (km/h), `speedMps`/`speed_mps`
 * (m/s), `speedMph`/`speed_mph`, `speedKnots`/`speed_knots`; heading `headingDeg`/`heading_deg`/
 * `heading`/`bearing`/`course` (degrees).
 */
import { makeRecord, type ProbeRecord } from './records.js';
import type { SpeedUnit, TimeUnit } from './units.js';

const TRACE_KEYS = [
  'traceId',
  'trace_id',
  'id',
  'vehicle_id',
  'vehicleId',
  'device_id',
  'deviceId',
  'trip_id',
  'tripId',
];
const TIME_KEYS: ReadonlyArray<readonly [string, TimeUnit]> = [
  ['timestamp', 'auto'],
  ['time', 'auto'],
  ['t', 'auto'],
  ['tS', 'auto'],
  ['epoch', 'epoch_s'],
  ['epoch_s', 'epoch_s'],
  ['timestamp_ms', 'epoch_ms'],
  ['epoch_ms', 'epoch_ms'],
];
const LAT_KEYS = ['lat', 'latitude'];
const LON_KEYS = ['lon', 'lng', 'longitude'];
// A bare `speed` has always been km/h in this API's JSON (documented); CSV headers have no such contract.
const SPEED_KEYS: ReadonlyArray<readonly [string, SpeedUnit]> = [
  ['speedKph', 'kph'],
  ['speed_kph', 'kph'],
  ['speed', 'kph'],
  ['speedKmh', 'kph'],
  ['speed_kmh', 'kph'],
  ['speedMps', 'mps'],
  ['speed_mps', 'mps'],
  ['speedMph', 'mph'],
  ['speed_mph', 'mph'],
  ['speedKnots', 'knots'],
  ['speed_knots', 'knots'],
];
const HEADING_KEYS = ['headingDeg', 'heading_deg', 'heading', 'bearing', 'course'];

/** The first field present among aliases. */
function pick(o: Record<string, unknown>, names: readonly string[]): unknown {
  for (const n of names) if (o[n] !== undefined) return o[n];
  return undefined;
}

/** The first field present among aliases that carry a unit, with that unit and name. */
function pickWithUnit<U>(
  o: Record<string, unknown>,
  keys: ReadonlyArray<readonly [string, U]>,
): { value: unknown; unit?: U; name?: string } {
  for (const [k, unit] of keys) if (o[k] !== undefined) return { value: o[k], unit, name: k };
  return { value: undefined };
}

/** Builds a record from one JSON object, or returns why it is malformed. */
export function recordFromObject(o: unknown): ProbeRecord | string {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return 'expected a JSON object';
  const obj = o as Record<string, unknown>;
  const time = pickWithUnit(obj, TIME_KEYS);
  const speed = pickWithUnit(obj, SPEED_KEYS);
  return makeRecord(
    pick(obj, TRACE_KEYS),
    time.value,
    pick(obj, LAT_KEYS),
    pick(obj, LON_KEYS),
    speed.value,
    pick(obj, HEADING_KEYS),
    {
      time: time.unit,
      speed: speed.unit,
      timeName: time.name,
      speedName: speed.name,
    },
  );
}
