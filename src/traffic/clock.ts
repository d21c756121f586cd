/**
 * Local clock helpers for the traffic model: a departure instant is resolved once to its local
 * second of the week (Monday 00:00 = 0), later instants of the same trip are offsets from it.
 */
import { DateTime } from 'luxon';

/** Seconds in a week. */
export const SECONDS_PER_WEEK = 604_800;
/** Seconds per profile bin (15 minutes). */
export const BIN_SECONDS = 900;

/**
 * Local second of the week of `unixS` (unix seconds) in time zone `timeZone` (IANA); Monday 00:00
 * local is 0. Unknown zones fall back to UTC.
 */
export function localSecondOfWeek(unixS: number, timeZone: string): number {
  let dt = DateTime.fromSeconds(Math.floor(unixS), { zone: timeZone || 'UTC' });
  if (!dt.isValid) dt = DateTime.fromSeconds(Math.floor(unixS), { zone: 'UTC' });
  const frac = unixS - Math.floor(unixS);
  return (dt.weekday - 1) * 86_400 + dt.hour * 3600 + dt.minute * 60 + dt.second + frac;
}
