/**
 * Clock-time and date helpers for products: `10:00am` / `22:30` parsing, lot-local dates, and the
 * contract's entry-time formats (`entry_dt` yyyy-mm-ddTHH:MM with Z = UTC else lot-local time;
 * `entry` ISO 8601 extended, UTC unless it carries an offset).
 */
import { DateTime } from 'luxon';
import { invalidParam } from '../errors.js';

/** Minutes in a day. */
export const MINUTES_PER_DAY = 1440;

/**
 * Parses a clock time of day into minutes after midnight: `10:00am`, `12:30 PM`, `22:00`, `7am`.
 * Returns undefined when the text is not a clock time.
 */
export function parseClockMin(text: string): number | undefined {
  const m = /^\s*(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?\s*$/i.exec(text);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const suffix = m[3]?.toLowerCase().replace(/\./g, '');
  if (minute > 59) return undefined;
  if (suffix) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (suffix === 'pm' ? 12 : 0);
  } else if (hour > 23 || m[2] === undefined) {
    return undefined;
  }
  return hour * 60 + minute;
}

/** Formats minutes after midnight as the contract's clock text, e.g. 600 → `10:00am`, 0 → `12:00am`. */
export function formatClock(min: number): string {
  const hour24 = Math.floor(min / 60) % 24;
  const minute = min % 60;
  const hour12 = hour24 % 12 === 0 ? 12 : hour24 % 12;
  return `${hour12}:${String(minute).padStart(2, '0')}${hour24 < 12 ? 'am' : 'pm'}`;
}

/**
 * Parses `entry_dt` / `entry_time`: `yyyy-mm-ddTHH:MM[:ss]`, trailing `Z` = UTC, otherwise local
 * time in `tz`. Returns unix milliseconds; throws PARKING_PARAM_INVALID naming `parameter`.
 */
export function parseEntryLocal(text: string, tz: string, parameter: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?(Z)?$/.exec(text.trim());
  if (!m) throw invalidParam(parameter, `expected yyyy-mm-ddTHH:MM (trailing Z for UTC), got "${text}"`);
  const dt = DateTime.fromObject(
    { year: +m[1], month: +m[2], day: +m[3], hour: +m[4], minute: +m[5], second: m[6] ? +m[6] : 0 },
    { zone: m[7] ? 'UTC' : tz },
  );
  if (!dt.isValid) throw invalidParam(parameter, `not a valid date-time: "${text}"`);
  return dt.toMillis();
}

/** Parses `entry`: ISO 8601 extended date-time, UTC unless an offset is given. Returns unix ms. */
export function parseEntryIso(text: string, parameter: string): number {
  const dt = DateTime.fromISO(text.trim(), { zone: 'UTC', setZone: true });
  if (!dt.isValid || !/T\d{2}:\d{2}/.test(text))
    throw invalidParam(parameter, `expected an ISO 8601 UTC date-time, got "${text}"`);
  return dt.toMillis();
}

/** Local calendar date `YYYY-MM-DD` of `ms` in `tz`. */
export function localDateKey(ms: number, tz: string): string {
  return DateTime.fromMillis(ms, { zone: tz }).toISODate() as string;
}

/** Unix ms of local midnight of the day containing `ms` in `tz`, plus `addDays` days. */
export function localMidnightMs(ms: number, tz: string, addDays = 0): number {
  return DateTime.fromMillis(ms, { zone: tz }).startOf('day').plus({ days: addDays }).toMillis();
}

/** Unix ms of `min` minutes after local midnight of `dayStartMs` (DST-safe: wall-clock time). */
export function atLocalMinute(dayStartMs: number, tz: string, min: number): number {
  const day = DateTime.fromMillis(dayStartMs, { zone: tz }).plus({ days: Math.floor(min / MINUTES_PER_DAY) });
  const rest = min % MINUTES_PER_DAY;
  return day.set({ hour: Math.floor(rest / 60), minute: rest % 60, second: 0, millisecond: 0 }).toMillis();
}

/** ISO weekday (1 Monday … 7 Sunday) of `ms` in `tz`. */
export function localWeekday(ms: number, tz: string): number {
  return DateTime.fromMillis(ms, { zone: tz }).weekday;
}

/** Formats unix ms as ISO 8601 UTC without fraction: `2026-11-23T09:00:00Z`. */
export function isoUtc(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** True when `tz` is an IANA zone luxon knows. */
export function isValidZone(tz: string): boolean {
  return DateTime.local().setZone(tz).isValid;
}
