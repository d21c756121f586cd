/**
 * Probe records as read from any input format, before they reach the database: one ping of one
 * trace, or a problem with one input line. Parsers never throw on bad rows; they report them.
 */
import type { Ping } from '../trajectory.js';

/** One ping of one trace, as parsed from an input file or request body. */
export interface ProbeRecord {
  traceId: string;
  ping: Ping;
}

/** A malformed input row: 1-based line number (or array index for request bodies) and why. */
export interface ParseIssue {
  line: number;
  message: string;
}

/** Input formats understood by the ingestion path. */
export type ProbeFormat = 'csv' | 'jsonl' | 'fcd';

/** Epoch values at or above this are read as milliseconds (year 5138 in seconds). */
const EPOCH_MS_THRESHOLD = 1e11;
const ISO_RE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const HAS_ZONE_RE = /(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Parses a timestamp: epoch seconds or milliseconds (number or numeric string; ≥ 1e11 means ms)
 * or ISO 8601 (a time without an offset is read as UTC). Returns unix seconds, or NaN.
 */
export function parseTimestampS(value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return NaN;
    return Math.abs(value) >= EPOCH_MS_THRESHOLD ? value / 1000 : value;
  }
  if (typeof value !== 'string') return NaN;
  const s = value.trim();
  if (s === '') return NaN;
  if (/^-?\d+(\.\d+)?$/.test(s)) return parseTimestampS(Number(s));
  if (!ISO_RE.test(s)) return NaN;
  const norm = s.length === 10 ? `${s}T00:00:00Z` : s.replace(' ', 'T');
  const ms = Date.parse(HAS_ZONE_RE.test(norm) ? norm : `${norm}Z`);
  return Number.isFinite(ms) ? ms / 1000 : NaN;
}

/** Reads an optional number: undefined for '', null or absent; NaN when present but not numeric. */
export function optionalNumber(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  return Number.isFinite(n) ? n : NaN;
}

/**
 * Validates the fields of one ping and builds the record, or returns the reason it is malformed.
 * `speedKph` and `headingDeg` are optional; heading is normalised to [0, 360).
 */
export function makeRecord(
  traceId: unknown, timestamp: unknown, lat: unknown, lon: unknown, speedKph?: unknown, headingDeg?: unknown,
): ProbeRecord | string {
  const id = traceId === undefined || traceId === null ? '' : String(traceId).trim();
  if (id === '') return 'trace_id is empty';
  if (id.length > 200) return 'trace_id is longer than 200 characters';
  const tS = parseTimestampS(timestamp);
  if (!Number.isFinite(tS)) return `timestamp ${JSON.stringify(timestamp)} is not epoch seconds/milliseconds or ISO 8601`;
  const la = optionalNumber(lat);
  const lo = optionalNumber(lon);
  if (la === undefined || Number.isNaN(la) || la < -90 || la > 90) return `lat ${JSON.stringify(lat)} is not a latitude in [-90, 90]`;
  if (lo === undefined || Number.isNaN(lo) || lo < -180 || lo > 180) return `lon ${JSON.stringify(lon)} is not a longitude in [-180, 180]`;
  const ping: ProbeRecord['ping'] = { tS, lat: la, lon: lo };
  const sp = optionalNumber(speedKph);
  if (sp !== undefined) {
    if (Number.isNaN(sp) || sp < 0 || sp > 500) return `speed ${JSON.stringify(speedKph)} is not a speed in km/h (0..500)`;
    ping.speedKph = sp;
  }
  const hd = optionalNumber(headingDeg);
  if (hd !== undefined) {
    if (Number.isNaN(hd)) return `heading ${JSON.stringify(headingDeg)} is not a number of degrees`;
    ping.headingDeg = ((hd % 360) + 360) % 360;
  }
  return { traceId: id, ping };
}
