/**
 * Structured rates: the upload / OSM form (`structured_rates` of lots, `structuredRates` of block
 * segments) parsed into `RateRule`s, and rules grouped into `RateFrame`s — all rules sharing the
 * same days, clock window, holiday flag and permit restriction. A frame prices a stretch of a stay
 * by its tiers (non-repeating items, "up to N minutes") and its repeating item ("per N minutes").
 */
import { ParkingError } from '../errors.js';

/** One structured-rate item as uploaded (lots use time_in + time_out, segments may use a "HH:MM-HH:MM" time_in). */
export interface StructuredRateInput {
  dow_start: number;
  dow_end: number;
  /** start of the clock window "HH:MM", or a whole window "HH:MM-HH:MM" */
  time_in?: string;
  /** end of the clock window "HH:MM" ("24:00" = midnight at the end of the day) */
  time_out?: string;
  /** currency units per increment; 0 free; -1 No Parking */
  rate: number;
  /** minutes per increment (tier length when not repeating) */
  increment?: number;
  /** true: charged again for every started increment */
  repeats?: boolean;
  /** D disabled, R residential, C commercial, E electric permit only */
  restriction?: string;
  /** 1 holiday-only rate; -1 overridden by a holiday rate; 0/absent: every day */
  holidays?: number;
  /** cap in currency units per 24 h of a frame occurrence */
  max?: number | null;
  rate_line?: string;
  additional?: number;
}

/** A parsed structured-rate item. Money in integer cents, times in minutes. */
export interface RateRule {
  /** ISO weekday 1 Monday … 7 Sunday; dowStart > dowEnd wraps over Sunday */
  dowStart: number;
  dowEnd: number;
  /** clock window start, minutes after local midnight (0..1439) */
  fromMin: number;
  /** clock window end, minutes after local midnight (1..1440); ≤ fromMin means the window passes midnight */
  toMin: number;
  /** cents per increment; 0 free; -1 No Parking */
  rateCents: number;
  /** minutes; Infinity for a flat non-repeating item without an increment */
  incrementMin: number;
  repeats: boolean;
  /** '' or one of D R C E */
  restriction: string;
  holidays: -1 | 0 | 1;
  /** cap per 24 h of a frame occurrence, cents; null when none */
  maxCents: number | null;
  /** the rate-card line this item mirrors ('' when none) */
  line: string;
}

/** Rules sharing one window: the unit the quote walks through. */
export interface RateFrame {
  key: string;
  dowStart: number;
  dowEnd: number;
  fromMin: number;
  toMin: number;
  restriction: string;
  holidays: -1 | 0 | 1;
  /** any item with rate -1: No Parking during this window */
  noParking: boolean;
  /** non-repeating items, ascending increment */
  tiers: RateRule[];
  /** the repeating item (first one listed), if any */
  repeating: RateRule | null;
  /** smallest cap of the frame's items, cents */
  maxCents: number | null;
  rules: RateRule[];
}

const RESTRICTIONS = new Set(['', 'D', 'R', 'C', 'E']);

/** Parses "HH:MM" (or "H:MM", "24:00", "HHMM") into minutes after midnight; throws on junk. */
export function parseClockMin(s: string, field: string): number {
  const m = /^\s*(\d{1,2}):?(\d{2})\s*$/.exec(s);
  if (!m) throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}: expected HH:MM, got "${s}"`, field);
  const h = Number(m[1]),
    min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && min !== 0))
    throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}: clock time out of range: "${s}"`, field);
  return h * 60 + min;
}

/** Converts a decimal currency amount to integer cents exactly (2 decimals; more is rejected). */
export function toCents(amount: number, field: string): number {
  if (typeof amount !== 'number' || !Number.isFinite(amount))
    throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}: expected a number`, field);
  const cents = Math.round(amount * 100);
  if (Math.abs(cents - amount * 100) > 1e-6)
    throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}: at most 2 decimals, got ${amount}`, field);
  return cents;
}

/** Parses one structured-rate item; `field` names it in errors (e.g. "structured_rates[2]"). */
export function parseRateRule(input: StructuredRateInput, field: string): RateRule {
  if (!input || typeof input !== 'object')
    throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}: expected an object`, field);
  const dowStart = input.dow_start ?? 1;
  const dowEnd = input.dow_end ?? 7;
  for (const [k, v] of [
    ['dow_start', dowStart],
    ['dow_end', dowEnd],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 7)
      throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}.${k}: ISO weekday 1..7 expected`, `${field}.${k}`);
  }
  let fromMin = 0,
    toMin = 1440;
  const timeIn = input.time_in ?? '';
  if (timeIn.includes('-')) {
    const [a, b] = timeIn.split('-');
    fromMin = parseClockMin(a, `${field}.time_in`);
    toMin = parseClockMin(b, `${field}.time_in`);
  } else {
    if (timeIn) fromMin = parseClockMin(timeIn, `${field}.time_in`);
    if (input.time_out) toMin = parseClockMin(input.time_out, `${field}.time_out`);
  }
  if (fromMin === 1440) fromMin = 0;
  if (toMin === 0) toMin = 1440;
  if (typeof input.rate !== 'number' || (input.rate < 0 && input.rate !== -1)) {
    throw new ParkingError(
      'PARKING_UPLOAD_INVALID',
      `${field}.rate: a non-negative amount, or -1 for No Parking`,
      `${field}.rate`,
    );
  }
  const rateCents = input.rate === -1 ? -1 : toCents(input.rate, `${field}.rate`);
  const repeats = input.repeats === true;
  let incrementMin = input.increment ?? (repeats ? 60 : Infinity);
  if (!(incrementMin > 0))
    throw new ParkingError(
      'PARKING_UPLOAD_INVALID',
      `${field}.increment: positive minutes expected`,
      `${field}.increment`,
    );
  if (incrementMin === 0) incrementMin = Infinity;
  const restriction = (input.restriction ?? '').toUpperCase();
  if (!RESTRICTIONS.has(restriction))
    throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}.restriction: one of D, R, C, E`, `${field}.restriction`);
  const holidays = input.holidays ?? 0;
  if (holidays !== 0 && holidays !== 1 && holidays !== -1)
    throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}.holidays: 1, -1 or 0`, `${field}.holidays`);
  const maxCents = input.max === undefined || input.max === null ? null : toCents(input.max, `${field}.max`);
  return {
    dowStart,
    dowEnd,
    fromMin,
    toMin,
    rateCents,
    incrementMin,
    repeats,
    restriction,
    holidays,
    maxCents,
    line: input.rate_line ?? '',
  };
}

/** Parses a whole list; throws PARKING_UPLOAD_INVALID naming the first bad item. */
export function parseRateRules(list: unknown, field: string): RateRule[] {
  if (!Array.isArray(list)) throw new ParkingError('PARKING_UPLOAD_INVALID', `${field}: expected an array`, field);
  return list.map((r, i) => parseRateRule(r as StructuredRateInput, `${field}[${i}]`));
}

/** Groups rules into frames (same days, window, holiday flag and restriction), in first-listed order. */
export function buildFrames(rules: readonly RateRule[]): RateFrame[] {
  const frames = new Map<string, RateFrame>();
  for (const r of rules) {
    const key = `${r.dowStart}-${r.dowEnd}|${r.fromMin}-${r.toMin}|${r.holidays}|${r.restriction}`;
    let f = frames.get(key);
    if (!f) {
      f = {
        key,
        dowStart: r.dowStart,
        dowEnd: r.dowEnd,
        fromMin: r.fromMin,
        toMin: r.toMin,
        restriction: r.restriction,
        holidays: r.holidays,
        noParking: false,
        tiers: [],
        repeating: null,
        maxCents: null,
        rules: [],
      };
      frames.set(key, f);
    }
    f.rules.push(r);
    if (r.rateCents < 0) f.noParking = true;
    else if (r.repeats) f.repeating ??= r;
    else f.tiers.push(r);
    if (r.maxCents !== null) f.maxCents = f.maxCents === null ? r.maxCents : Math.min(f.maxCents, r.maxCents);
  }
  for (const f of frames.values()) f.tiers.sort((a, b) => a.incrementMin - b.incrementMin);
  return [...frames.values()];
}

/** true when ISO weekday `dow` lies in [start, end], wrapping over Sunday when start > end. */
export function dowInRange(dow: number, start: number, end: number): boolean {
  return start <= end ? dow >= start && dow <= end : dow >= start || dow <= end;
}
