/**
 * Local clock helpers for the traffic model: a departure instant is resolved once to its local
 * second of the week (Monday 00:00 = 0), later instants of the same trip are offsets from it.
 * UTC offsets are cached per zone and 15-minute bucket (zone transitions fall on such boundaries),
 * so resolving a departure costs a map lookup after the first time.
 */
import { DateTime } from 'luxon';

/** Seconds in a week. */
export const SECONDS_PER_WEEK = 604_800;
/** Seconds per profile bin (15 minutes). */
export const BIN_SECONDS = 900;

const offsetCache = new Map<string, number>();
const MAX_CACHED = 50_000;

/** UTC offset of `timeZone` at `unixS`, seconds (unknown zones: 0 = UTC). */
export function utcOffsetS(unixS: number, timeZone: string): number {
  const bucket = Math.floor(unixS / BIN_SECONDS);
  const key = `${timeZone}|${bucket}`;
  let off = offsetCache.get(key);
  if (off === undefined) {
    const dt = DateTime.fromSeconds(bucket * BIN_SECONDS, { zone: timeZone || 'UTC' });
    off = dt.isValid ? dt.offset * 60 : 0;
    if (offsetCache.size >= MAX_CACHED) offsetCache.clear();
    offsetCache.set(key, off);
  }
  return off;
}

/**
 * Local second of the week of `unixS` (unix seconds) in time zone `timeZone` (IANA); Monday 00:00
 * local is 0. Unknown zones fall back to UTC.
 */
export function localSecondOfWeek(unixS: number, timeZone: string): number {
  const local = unixS + utcOffsetS(unixS, timeZone);
  const days = Math.floor(local / 86_400);
  // 1970-01-01 was a Thursday: (days + 3) mod 7 = 0 on Mondays
  const dow = (((days + 3) % 7) + 7) % 7;
  return dow * 86_400 + (local - days * 86_400);
}
