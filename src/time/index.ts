/**
 * Time helpers: time zones from coordinates, local calendar parts, 15-minute bins of the week,
 * ISO 8601 parsing. Every function takes the instant explicitly (unix seconds); nothing reads the clock.
 */
import tzlookup from '@photostructure/tz-lookup';
import { DateTime } from 'luxon';

/** Minutes per profile bin. */
export const BIN_MINUTES = 15;
/** 15-minute bins per day. */
export const BINS_PER_DAY = 96;
/** 15-minute bins per week; bin 0 is Monday 00:00–00:15 local time. */
export const BINS_PER_WEEK = 672;

/** IANA time zone at a coordinate (e.g. 'America/New_York'). */
export function timeZoneAt(lat: number, lon: number): string {
  return tzlookup(lat, lon);
}

/** Local calendar parts of an instant in a zone. dayOfWeek: 1 = Monday … 7 = Sunday. */
export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  dayOfWeek: number;
  /** offset from UTC, minutes (e.g. -300 for EST) */
  offsetMinutes: number;
}

/** Offsets are looked up once per zone and 15-minute stretch of UTC (time zone changes fall on them). */
const OFFSET_BUCKET_MS = 15 * 60 * 1000;
/** Offsets remembered at most (then the memo starts over). */
const OFFSET_MEMO_MAX = 200_000;
/** zone → bucket → offset in minutes, or NaN when the offset changes inside the bucket */
const offsetMemo = new Map<string, Map<number, number>>();
let offsetMemoSize = 0;

/** The UTC offset of `tz` throughout the 15-minute bucket holding `ms`, minutes; NaN when it changes inside. */
function bucketOffset(ms: number, tz: string): number {
  let byBucket = offsetMemo.get(tz);
  if (byBucket === undefined) offsetMemo.set(tz, (byBucket = new Map()));
  const bucket = Math.floor(ms / OFFSET_BUCKET_MS);
  let off = byBucket.get(bucket);
  if (off === undefined) {
    const a = DateTime.fromMillis(bucket * OFFSET_BUCKET_MS, { zone: tz });
    if (!a.isValid) throw new Error(`unknown time zone ${tz}`);
    const b = DateTime.fromMillis((bucket + 1) * OFFSET_BUCKET_MS - 1, { zone: tz });
    off = a.offset === b.offset ? a.offset : NaN;
    if (++offsetMemoSize > OFFSET_MEMO_MAX) {
      offsetMemo.clear();
      offsetMemoSize = 1;
      offsetMemo.set(tz, (byBucket = new Map()));
    }
    byBucket.set(bucket, off);
  }
  return off;
}

/**
 * Local calendar parts of `unixS` (seconds) in time zone `tz`. Throws on an unknown zone. The
 * zone's offset is looked up once per 15-minute stretch and the parts computed from it (the same
 * as a full time-zone conversion; a stretch in which the offset changes is converted in full).
 */
export function localParts(unixS: number, tz: string): LocalParts {
  const ms = unixS * 1000;
  const off = bucketOffset(ms, tz);
  if (Number.isNaN(off)) {
    const dt = DateTime.fromMillis(ms, { zone: tz });
    return {
      year: dt.year,
      month: dt.month,
      day: dt.day,
      hour: dt.hour,
      minute: dt.minute,
      second: dt.second,
      dayOfWeek: dt.weekday,
      offsetMinutes: dt.offset,
    };
  }
  // luxon works in whole milliseconds
  const d = new Date(Math.floor(ms) + off * 60_000);
  const wd = d.getUTCDay();
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    dayOfWeek: wd === 0 ? 7 : wd,
    offsetMinutes: off,
  };
}

/** Second of the local week (0 = Monday 00:00:00) of `unixS` in `tz`. */
export function secondOfWeek(unixS: number, tz: string): number {
  const p = localParts(unixS, tz);
  return (p.dayOfWeek - 1) * 86400 + p.hour * 3600 + p.minute * 60 + p.second + (unixS % 1);
}

/** 15-minute bin of the local week (0..671) of `unixS` in `tz`. */
export function binOfWeek(unixS: number, tz: string): number {
  return Math.floor(secondOfWeek(unixS, tz) / (BIN_MINUTES * 60)) % BINS_PER_WEEK;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses an ISO 8601 date-time to unix seconds. A string with `Z` or an offset is absolute; one
 * without is local time in `defaultTz` (UTC when not given). Returns undefined when malformed.
 */
export function parseIsoToUnixS(text: string, defaultTz = 'UTC'): number | undefined {
  const s = text.trim();
  if (!ISO_RE.test(s)) return undefined;
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(s) && s.length > 10;
  const dt = hasZone
    ? DateTime.fromISO(s.replace(' ', 'T'), { setZone: true })
    : DateTime.fromISO(s.replace(' ', 'T'), { zone: defaultTz });
  if (!dt.isValid) return undefined;
  return dt.toMillis() / 1000;
}

/** Formats unix seconds as ISO 8601 in `tz` with its offset (no milliseconds), e.g. 2026-11-21T08:00:00-05:00. */
export function formatIso(unixS: number, tz = 'UTC'): string {
  return DateTime.fromMillis(Math.round(unixS) * 1000, { zone: tz }).toISO({ suppressMilliseconds: true })!;
}
