/**
 * Park events (`POST /USS`): validation of the ParkEvent shape and persistence. Each measurement
 * becomes one row: a car parked (`parkedOut` false) or left (`parkedOut` true) at a position.
 */
import type { Queryable } from '../../../store/db.js';
import { invalidParam, missingParam } from '../errors.js';

/** Most measurements accepted in one request. */
export const MAX_MEASUREMENTS = 1000;

/** One validated measurement, ready to store. */
export interface ParkEventRow {
  sensorId: string;
  vendorId: string;
  vendorName: string;
  requestId: string;
  lat: number;
  lon: number;
  headingDeg: number | null;
  speedKph: number | null;
  parkedOut: boolean;
  observedMs: number;
  arrivalMs: number | null;
}

/** The ParkEvent as received, normalised to `{ data: { metaData, reports }, vendorId, … }`, plus its rows. */
export interface ParsedParkEvent {
  event: Record<string, unknown>;
  rows: ParkEventRow[];
}

const SPEED_TO_KPH: Record<string, number> = {
  kilometersperhour: 1,
  kph: 1,
  'km/h': 1,
  milesperhour: 1.609344,
  mph: 1.609344,
  meterspersecond: 3.6,
  'm/s': 3.6,
};

function str(v: unknown, name: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string' && typeof v !== 'number') throw invalidParam(name, 'must be a string');
  return String(v);
}

function num(v: unknown, name: string): number | null {
  if (v === undefined || v === null || v === '') return null;
  const n = Number(v);
  if (!Number.isFinite(n)) throw invalidParam(name, 'must be a number');
  return n;
}

function flag(v: unknown, name: string): boolean {
  if (v === true || v === 'true' || v === 'True' || v === '1' || v === 1) return true;
  if (v === false || v === 'false' || v === 'False' || v === '0' || v === 0) return false;
  throw invalidParam(name, 'must be "true" or "false"');
}

function time(v: unknown, name: string): number {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v))
    throw invalidParam(name, 'must be an ISO 8601 UTC date-time');
  const ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(v) ? v : `${v}Z`);
  if (Number.isNaN(ms)) throw invalidParam(name, 'must be an ISO 8601 UTC date-time');
  return ms;
}

/**
 * Validates a ParkEvent: the form field `data` (a JSON string) or a JSON body, either the full
 * event `{ data: { metaData, reports }, vendorId, vendorName, requestId, arrivalDtUtc }` or just
 * `{ metaData, reports }`. Throws PARKING_PARAM_INVALID naming the path of the first bad field.
 */
export function parseParkEvent(body: unknown): ParsedParkEvent {
  let root: unknown = body;
  if (typeof root === 'object' && root !== null && typeof (root as Record<string, unknown>).data === 'string') {
    try {
      root = JSON.parse((root as Record<string, string>).data);
    } catch {
      throw invalidParam('data', 'is not valid JSON');
    }
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) throw missingParam('data');
  let event = root as Record<string, unknown>;
  if (!(typeof event.data === 'object' && event.data !== null)) event = { data: event };
  const data = event.data as Record<string, unknown>;
  if (data.metaData !== undefined && data.metaData !== null && typeof data.metaData !== 'object')
    throw invalidParam('data.metaData', 'must be null or an object');
  const reports = data.reports;
  if (!Array.isArray(reports) || reports.length === 0) throw invalidParam('data.reports', 'must be a non-empty array');
  const vendorId = str(event.vendorId ?? data.vendorId, 'vendorId');
  const vendorName = str(event.vendorName ?? data.vendorName, 'vendorName');
  const requestId = str(event.requestId ?? data.requestId, 'requestId');
  const arrivalRaw = event.arrivalDtUtc ?? data.arrivalDtUtc;
  const arrivalMs = arrivalRaw === undefined || arrivalRaw === null ? null : time(arrivalRaw, 'arrivalDtUtc');
  const rows: ParkEventRow[] = [];
  reports.forEach((report: unknown, i: number) => {
    const rp = `data.reports[${i}]`;
    const r = report as Record<string, unknown>;
    const sensorId = str((r?.identity as Record<string, unknown> | undefined)?.sensorId, `${rp}.identity.sensorId`);
    if (sensorId === '') throw missingParam(`${rp}.identity.sensorId`);
    if (!Array.isArray(r.measurements) || r.measurements.length === 0)
      throw invalidParam(`${rp}.measurements`, 'must be a non-empty array');
    r.measurements.forEach((measurement: unknown, j: number) => {
      const mp = `${rp}.measurements[${j}]`;
      const m = measurement as Record<string, unknown>;
      const loc = m?.location as Record<string, unknown> | undefined;
      const coords = loc?.coordinates;
      if (!Array.isArray(coords) || coords.length !== 2)
        throw invalidParam(`${mp}.location.coordinates`, 'must be [latitude, longitude]');
      const lat = num(coords[0], `${mp}.location.coordinates[0]`);
      const lon = num(coords[1], `${mp}.location.coordinates[1]`);
      if (lat === null || lon === null || Math.abs(lat) > 90 || Math.abs(lon) > 180)
        throw invalidParam(`${mp}.location.coordinates`, 'latitude must be within ±90 and longitude within ±180');
      const heading = num(loc?.heading, `${mp}.location.heading`);
      if (heading !== null && (heading < 0 || heading >= 360))
        throw invalidParam(`${mp}.location.heading`, 'must be degrees in [0, 360)');
      const speed = num(loc?.speed, `${mp}.location.speed`);
      const metric = str(loc?.speedmetric, `${mp}.location.speedmetric`) || 'KilometersPerHour';
      const factor = SPEED_TO_KPH[metric.toLowerCase()];
      if (factor === undefined)
        throw invalidParam(`${mp}.location.speedmetric`, 'must be KilometersPerHour, MilesPerHour or MetersPerSecond');
      if (speed !== null && speed < 0) throw invalidParam(`${mp}.location.speed`, 'must not be negative');
      if (m.parkedOut === undefined) throw missingParam(`${mp}.parkedOut`);
      rows.push({
        sensorId,
        vendorId,
        vendorName,
        requestId,
        lat,
        lon,
        headingDeg: heading,
        speedKph: speed === null ? null : speed * factor,
        parkedOut: flag(m.parkedOut, `${mp}.parkedOut`),
        observedMs: time(m.observationTime, `${mp}.observationTime`),
        arrivalMs,
      });
      if (rows.length > MAX_MEASUREMENTS)
        throw invalidParam('data.reports', `at most ${MAX_MEASUREMENTS} measurements per request`);
    });
  });
  return { event, rows };
}

/** Stores validated measurements (one multi-row INSERT). */
export async function storeParkEvents(q: Queryable, rows: ParkEventRow[], nowMs: number): Promise<void> {
  if (rows.length === 0) return;
  const values: unknown[] = [];
  const tuples = rows.map((r, i) => {
    values.push(
      r.sensorId,
      r.vendorId,
      r.vendorName,
      r.requestId,
      r.lat,
      r.lon,
      r.headingDeg,
      r.speedKph,
      r.parkedOut,
      new Date(r.observedMs),
      r.arrivalMs === null ? null : new Date(r.arrivalMs),
      new Date(nowMs),
    );
    const b = i * 12;
    return `(${Array.from({ length: 12 }, (_, k) => `$${b + k + 1}`).join(',')})`;
  });
  await q.query(
    `INSERT INTO pk_park_event (sensor_id, vendor_id, vendor_name, request_id, lat, lon, heading_deg, speed_kph, parked_out, observed_at, arrival_at, received_at)
     VALUES ${tuples.join(',')}`,
    values,
  );
}
