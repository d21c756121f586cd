/**
 * Probe records as read from any input format, before they reach the database: one ping of one
 * trace, or a problem with one input line. Parsers never throw on bad rows; they report them.
 */
import type { Ping } from '../trajectory.js';
import { autoEpochS, KPH_PER_UNIT, parseTimeAs, type SpeedUnit, type TimeUnit } from './units.js';

/** One ping of one trace, as parsed from an input file or request body. */
export interface ProbeRecord {
  traceId: string;
  ping: Ping;
}

/**
 * A malformed input row and why: CSV, NDJSON and FCD rows carry their 1-based `line`, JSON pings
 * their 0-based `index` in the pings array.
 */
export interface ParseIssue {
  line?: number;
  index?: number;
  message: string;
}

/** Input formats understood by the ingestion path. */
export const PROBE_FORMATS = ['json', 'ndjson', 'csv', 'fcd'] as const;

/** One input format: a JSON body, JSON lines, CSV or SUMO FCD XML. */
export type ProbeFormat = (typeof PROBE_FORMATS)[number];

/** A format name as callers may write it: the formats plus `jsonl`, another name of `ndjson`. */
export type ProbeFormatName = ProbeFormat | 'jsonl';

/** Reads a format name (`jsonl` → `ndjson`); undefined when unknown. */
export function probeFormatFromName(name: string): ProbeFormat | undefined {
  const n = name.trim().toLowerCase();
  if (n === 'jsonl') return 'ndjson';
  return (PROBE_FORMATS as readonly string[]).includes(n) ? (n as ProbeFormat) : undefined;
}

/**
 * Parses a timestamp: epoch seconds or milliseconds (number or numeric string; ≥ 1e11 means ms)
 * or ISO 8601 (a time without an offset is read as UTC). Returns unix seconds, or NaN.
 */
export function parseTimestampS(value: unknown): number {
  if (typeof value === 'number') return autoEpochS(value);
  if (typeof value !== 'string') return NaN;
  const t = parseTimeAs(value, 'auto');
  return typeof t === 'number' ? t : NaN;
}

/** Reads an optional number: undefined for '', null or absent; NaN when present but not numeric. */
export function optionalNumber(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  return Number.isFinite(n) ? n : NaN;
}

/** How the timestamp and speed of a row are written, and their source names for messages. */
export interface FieldUnits {
  /** default `auto`: ISO 8601 or epoch seconds/milliseconds */
  time?: TimeUnit;
  /** default `kph` */
  speed?: SpeedUnit;
  /** the timestamp's column or field name in messages (default `timestamp`) */
  timeName?: string;
  /** the speed's column or field name in messages (default `speed`) */
  speedName?: string;
}

const SPEED_UNIT_LABEL: Readonly<Record<SpeedUnit, string>> = { mps: 'm/s', kph: 'km/h', mph: 'mph', knots: 'knots' };

/** Largest stored speed, km/h. */
const MAX_SPEED_KPH = 500;

/**
 * Validates the fields of one ping and builds the record, or returns the reason it is malformed.
 * The speed (converted to km/h from `units.speed`) and heading are optional; heading is
 * normalised to [0, 360).
 */
export function makeRecord(
  traceId: unknown,
  timestamp: unknown,
  lat: unknown,
  lon: unknown,
  speed?: unknown,
  headingDeg?: unknown,
  units: FieldUnits = {},
): ProbeRecord | string {
  const id = traceId === undefined || traceId === null ? '' : String(traceId).trim();
  if (id === '') return 'trace_id is empty';
  if (id.length > 200) return 'trace_id is longer than 200 characters';
  const timeUnit = units.time ?? 'auto';
  const t =
    typeof timestamp === 'number' && timeUnit === 'auto'
      ? autoEpochS(timestamp)
      : typeof timestamp === 'number' || typeof timestamp === 'string'
        ? parseTimeAs(String(timestamp), timeUnit)
        : NaN;
  if (typeof t !== 'number' || !Number.isFinite(t)) {
    return `${units.timeName ?? 'timestamp'} ${JSON.stringify(timestamp)} ${typeof t === 'string' ? t : 'is not epoch seconds/milliseconds or ISO 8601'}`;
  }
  const la = optionalNumber(lat);
  const lo = optionalNumber(lon);
  if (la === undefined || Number.isNaN(la) || la < -90 || la > 90)
    return `lat ${JSON.stringify(lat)} is not a latitude in [-90, 90]`;
  if (lo === undefined || Number.isNaN(lo) || lo < -180 || lo > 180)
    return `lon ${JSON.stringify(lon)} is not a longitude in [-180, 180]`;
  const ping: ProbeRecord['ping'] = { tS: t, lat: la, lon: lo };
  const sp = optionalNumber(speed);
  if (sp !== undefined) {
    const unit = units.speed ?? 'kph';
    const kph = sp * KPH_PER_UNIT[unit];
    if (Number.isNaN(sp) || kph < 0 || kph > MAX_SPEED_KPH) {
      const max = Math.round((MAX_SPEED_KPH / KPH_PER_UNIT[unit]) * 10) / 10;
      return `${units.speedName ?? 'speed'} ${JSON.stringify(speed)} is not a speed in ${SPEED_UNIT_LABEL[unit]} (0..${max})`;
    }
    ping.speedKph = kph;
  }
  const hd = optionalNumber(headingDeg);
  if (hd !== undefined) {
    if (Number.isNaN(hd)) return `heading ${JSON.stringify(headingDeg)} is not a number of degrees`;
    ping.headingDeg = ((hd % 360) + 360) % 360;
  }
  return { traceId: id, ping };
}
