/**
 * The rate engine: prices a stay (entry instant + duration) against a lot's or segment's rate
 * frames, in the facility's local time.
 *
 * Model (docs/parking.md, "Rate engine"): the stay is walked from entry to exit and cut at local
 * midnights and at every window boundary. Consecutive pieces priced by the same frame form one
 * *occurrence*; an occurrence of m minutes costs, per started 24 h of it, its ladder price capped by
 * the frame's `max`. The ladder: the first tier ("up to N minutes") covering m; beyond the longest
 * tier, the repeating item adds `rate` per started increment (or, without one, the tier ladder starts
 * again). Time covered by no frame is free. A No Parking frame (rate -1, or a permit the driver does
 * not hold) at entry closes the facility; met later, it makes the stay impossible (rate_cost -1).
 */
import { DateTime } from 'luxon';
import { dowInRange, type RateFrame } from './rate-rule.js';

/** Outcome of pricing one stay. */
export type StayQuote =
  | { kind: 'closed' }
  | { kind: 'no_parking' }
  | { kind: 'priced'; costCents: number; quotedMin: number };

/** What the quote needs besides the frames. */
export interface QuoteOptions {
  /** IANA time zone of the facility */
  tz: string;
  /** true on a public holiday (ISO date "YYYY-MM-DD") */
  isHoliday: (isoDate: string) => boolean;
  /** permits the driver holds (D, R, C, E) */
  permits: ReadonlySet<string>;
}

/** Active frame at a local time: a frame, nothing (free), or a No Parking marker. */
type Active = RateFrame | null | 'no_parking';

const EPS = 1e-9;

/** A local wall-clock position: ISO weekday, minutes after midnight, and lazily its ISO date and the day before. */
export interface LocalClock {
  dow: number;
  mod: number;
  date: () => string;
  prevDate: () => string;
}

/** Local clock of a DateTime (any zone). */
export function clockOfDateTime(t: DateTime): LocalClock {
  return {
    dow: t.weekday,
    mod: t.hour * 60 + t.minute + t.second / 60,
    date: () => t.toISODate() as string,
    prevDate: () => t.minus({ days: 1 }).toISODate() as string,
  };
}

/** Local clock of "local seconds" (unix seconds + UTC offset): pure arithmetic, no time-zone lookups. */
export function clockOfLocalSeconds(localS: number): LocalClock {
  const days = Math.floor(localS / 86_400);
  const iso = (d: number): string => new Date(d * 86_400_000).toISOString().slice(0, 10);
  return {
    dow: ((((days + 3) % 7) + 7) % 7) + 1,
    mod: (localS - days * 86_400) / 60,
    date: () => iso(days),
    prevDate: () => iso(days - 1),
  };
}

/** Frame pricing the local instant `t`, applying holiday precedence and permits. */
export function activeFrame(frames: readonly RateFrame[], t: DateTime | LocalClock, opts: QuoteOptions): Active {
  const c = t instanceof DateTime ? clockOfDateTime(t) : t;
  const mod = c.mod;
  const dow = c.dow;
  const prevDow = dow === 1 ? 7 : dow - 1;
  let holidayOnly: RateFrame | null = null;
  let held: RateFrame | null = null;
  let open: RateFrame | null = null;
  let overridable: RateFrame | null = null;
  let permitOnly = false;
  for (const f of frames) {
    let anchor: (() => string) | null = null;
    if (f.fromMin < f.toMin) {
      if (dowInRange(dow, f.dowStart, f.dowEnd) && mod >= f.fromMin && mod < f.toMin) anchor = c.date;
    } else if (dowInRange(dow, f.dowStart, f.dowEnd) && mod >= f.fromMin) {
      anchor = c.date;
    } else if (dowInRange(prevDow, f.dowStart, f.dowEnd) && mod < f.toMin) {
      anchor = c.prevDate;
    }
    if (anchor === null) continue;
    if (f.holidays === 1 && !opts.isHoliday(anchor())) continue;
    if (f.restriction && !opts.permits.has(f.restriction)) {
      permitOnly = true;
      continue;
    }
    if (f.holidays === 1) holidayOnly ??= f;
    else if (f.restriction) held ??= f;
    else if (f.holidays === -1) overridable ??= f;
    else open ??= f;
  }
  const chosen = holidayOnly ?? held ?? open ?? overridable;
  if (chosen) return chosen.noParking ? 'no_parking' : chosen;
  return permitOnly ? 'no_parking' : null;
}

/** Ladder price of m minutes in one frame: cents and minutes paid for. */
export function ladder(f: RateFrame, m: number): { cents: number; billedMin: number } {
  const T = f.tiers;
  const R = f.repeating;
  if (T.length > 0 && m <= T[T.length - 1].incrementMin + EPS) {
    const t = T.find((x) => m <= x.incrementMin + EPS)!;
    return { cents: t.rateCents, billedMin: Number.isFinite(t.incrementMin) ? t.incrementMin : m };
  }
  if (R) {
    const baseCents = T.length > 0 ? T[T.length - 1].rateCents : 0;
    const baseMin = T.length > 0 ? T[T.length - 1].incrementMin : 0;
    const n = Math.ceil((m - baseMin) / R.incrementMin - EPS);
    return { cents: baseCents + n * R.rateCents, billedMin: baseMin + n * R.incrementMin };
  }
  if (T.length === 0) return { cents: 0, billedMin: m };
  const last = T[T.length - 1];
  const k = Math.floor((m + EPS) / last.incrementMin);
  const rest = m - k * last.incrementMin;
  const r = rest > EPS ? ladder(f, rest) : { cents: 0, billedMin: 0 };
  return { cents: k * last.rateCents + r.cents, billedMin: k * last.incrementMin + r.billedMin };
}

/** Price of one occurrence of m minutes: per started 24 h, the ladder capped by `max`. */
export function occurrenceCost(f: RateFrame, m: number): { cents: number; billedMin: number } {
  const DAY = 1440;
  const full = Math.floor((m + EPS) / DAY);
  const rem = m - full * DAY;
  let cents = 0;
  let billedMin = 0;
  if (full > 0) {
    const day = ladder(f, DAY);
    const capped = f.maxCents !== null && day.cents > f.maxCents;
    cents += full * (capped ? f.maxCents! : day.cents);
    billedMin += full * DAY;
  }
  if (rem > EPS) {
    const part = ladder(f, rem);
    if (f.maxCents !== null && part.cents >= f.maxCents) {
      cents += f.maxCents;
      billedMin += DAY;
    } else {
      cents += part.cents;
      billedMin += part.billedMin;
    }
  }
  return { cents, billedMin };
}

/** Sorted clock boundaries (minutes after midnight) at which the active frame may change. */
export function frameBoundaries(frames: readonly RateFrame[]): number[] {
  const s = new Set<number>([0, 1440]);
  for (const f of frames) {
    s.add(f.fromMin);
    s.add(f.toMin);
  }
  return [...s].sort((a, b) => a - b);
}

/**
 * Prices a stay of `durationMin` minutes entering at `entryUnixS` (unix seconds).
 * @example quoteStay(buildFrames(parseRateRules(rates, 'r')), 1767000000, 120, { tz: 'America/New_York', isHoliday: () => false, permits: new Set() })
 */
export function quoteStay(
  frames: readonly RateFrame[],
  entryUnixS: number,
  durationMin: number,
  opts: QuoteOptions,
  boundaries = frameBoundaries(frames),
): StayQuote {
  const exitS = entryUnixS + durationMin * 60;
  const offEntryS = DateTime.fromSeconds(entryUnixS, { zone: opts.tz }).offset * 60;
  const offExitS = DateTime.fromSeconds(exitS, { zone: opts.tz }).offset * 60;
  if (offEntryS === offExitS && durationMin <= 10_080)
    return quoteFixedOffset(frames, entryUnixS, exitS, offEntryS, durationMin, opts, boundaries);
  let t = DateTime.fromSeconds(entryUnixS, { zone: opts.tz });
  let tS = entryUnixS;
  let cur: RateFrame | null = null;
  let curMin = 0;
  let costCents = 0;
  let last = { usedMin: 0, billedMin: 0 };
  let first = true;
  const close = (): void => {
    if (cur && curMin > EPS) {
      const c = occurrenceCost(cur, curMin);
      costCents += c.cents;
      last = { usedMin: curMin, billedMin: c.billedMin };
    } else if (curMin > EPS) {
      last = { usedMin: curMin, billedMin: curMin };
    }
    curMin = 0;
  };
  while (tS < exitS) {
    const a = activeFrame(frames, t, opts);
    if (a === 'no_parking') return first ? { kind: 'closed' } : { kind: 'no_parking' };
    first = false;
    // next boundary after the current local clock time
    const mod = t.hour * 60 + t.minute + t.second / 60;
    const next = boundaries.find((b) => b > mod + EPS) ?? 1440;
    let nextT =
      next >= 1440
        ? t.startOf('day').plus({ days: 1 })
        : t.startOf('day').set({ hour: Math.floor(next / 60), minute: next % 60 });
    let nextS = Math.round(nextT.toSeconds());
    if (nextS <= tS) {
      nextS = tS + 60;
      nextT = DateTime.fromSeconds(nextS, { zone: opts.tz });
    }
    const endS = Math.min(nextS, exitS);
    if (a !== cur) {
      close();
      cur = a;
    }
    curMin += (endS - tS) / 60;
    tS = endS;
    t = endS === nextS ? nextT : DateTime.fromSeconds(endS, { zone: opts.tz });
  }
  close();
  const slack = Number.isFinite(last.billedMin) ? Math.max(0, last.billedMin - last.usedMin) : 0;
  return { kind: 'priced', costCents, quotedMin: Math.round(durationMin + slack) };
}

/** Accumulates occurrences of a walk and turns them into a quote. */
class Walk {
  cur: RateFrame | null = null;
  curMin = 0;
  costCents = 0;
  last = { usedMin: 0, billedMin: 0 };
  first = true;
  close(): void {
    if (this.cur && this.curMin > EPS) {
      const c = occurrenceCost(this.cur, this.curMin);
      this.costCents += c.cents;
      this.last = { usedMin: this.curMin, billedMin: c.billedMin };
    } else if (this.curMin > EPS) {
      this.last = { usedMin: this.curMin, billedMin: this.curMin };
    }
    this.curMin = 0;
  }
  result(durationMin: number): StayQuote {
    this.close();
    const slack = Number.isFinite(this.last.billedMin) ? Math.max(0, this.last.billedMin - this.last.usedMin) : 0;
    return { kind: 'priced', costCents: this.costCents, quotedMin: Math.round(durationMin + slack) };
  }
}

/**
 * The walk when the UTC offset is the same at entry and exit (no DST change inside a stay of at most
 * a week — DST changes are months apart): local time is unix time + offset, no zone lookups.
 */
function quoteFixedOffset(
  frames: readonly RateFrame[],
  entryS: number,
  exitS: number,
  offsetS: number,
  durationMin: number,
  opts: QuoteOptions,
  boundaries: number[],
): StayQuote {
  const w = new Walk();
  let local = entryS + offsetS;
  const localExit = exitS + offsetS;
  while (local < localExit) {
    const clock = clockOfLocalSeconds(local);
    const a = activeFrame(frames, clock, opts);
    if (a === 'no_parking') return w.first ? { kind: 'closed' } : { kind: 'no_parking' };
    w.first = false;
    const next = boundaries.find((b) => b > clock.mod + EPS) ?? 1440;
    const nextLocal = local - clock.mod * 60 + next * 60;
    const end = Math.min(nextLocal, localExit);
    if (a !== w.cur) {
      w.close();
      w.cur = a;
    }
    w.curMin += (end - local) / 60;
    local = end;
  }
  return w.result(durationMin);
}

/** "hh:mm:ss" of a duration in minutes (hours may exceed 24). */
export function formatDuration(minutes: number): string {
  const total = Math.round(minutes * 60);
  const h = Math.floor(total / 3600),
    m = Math.floor((total % 3600) / 60),
    s = total % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}
