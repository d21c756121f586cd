/**
 * Prices and fits a stay against a product: the rate table (cheapest tier that covers the stay,
 * whole multiples of the longest tier beyond it), the daily window in lot-local time, the days of
 * the week and the maximum duration.
 */
import { atLocalMinute, localMidnightMs, localWeekday, MINUTES_PER_DAY } from './clock.js';
import { windowLengthMin, type Product } from './product.js';

/** Why a stay does not fit a product. */
export type StayMisfit = 'duration_exceeds_max' | 'outside_hours' | 'day_unavailable';

/** Result of fitting a stay: its price in cents, or why it does not fit. */
export type StayFit =
  | { ok: true; priceCents: number; windowStartMs: number; windowEndMs: number }
  | { ok: false; reason: StayMisfit };

/**
 * Price in cents of a stay of `durationMin` minutes by the rate table alone: the cheapest tier
 * whose duration covers it; beyond the longest tier, whole multiples of it plus the remainder.
 * @example priceForDurationCents([{durationMin:60,priceCents:800},{durationMin:1440,priceCents:3200}], 90) // 3200
 */
export function priceForDurationCents(rateTable: Product['rateTable'], durationMin: number): number {
  const longest = rateTable[rateTable.length - 1];
  const cover = (d: number): number => {
    let best = Infinity;
    for (const t of rateTable) if (t.durationMin >= d && t.priceCents < best) best = t.priceCents;
    return best;
  };
  if (durationMin <= longest.durationMin) return cover(durationMin);
  const whole = Math.floor(durationMin / longest.durationMin);
  const rest = durationMin - whole * longest.durationMin;
  return whole * longest.priceCents + (rest > 0 ? cover(rest) : 0);
}

/**
 * Fits the stay [startMs, startMs + durationMin) to the product: the daily window that contains it
 * (the one starting on the stay's local day, or the previous day's when it runs past midnight),
 * whose weekday must be in `daysOfWeek`. A 24-hour product accepts stays over several days when
 * every day touched is available.
 */
export function fitStay(product: Product, startMs: number, durationMin: number): StayFit {
  if (durationMin > product.maxDurationMin) return { ok: false, reason: 'duration_exceeds_max' };
  const endMs = startMs + durationMin * 60_000;
  const priceCents = priceForDurationCents(product.rateTable, durationMin);
  const lengthMin = windowLengthMin(product);
  if (lengthMin === MINUTES_PER_DAY) {
    for (let day = localMidnightMs(startMs, product.tz); day < endMs; day = localMidnightMs(day, product.tz, 1)) {
      if (!product.daysOfWeek.includes(localWeekday(day, product.tz))) return { ok: false, reason: 'day_unavailable' };
    }
    const windowStartMs = atLocalMinute(localMidnightMs(startMs, product.tz), product.tz, product.startMin);
    return {
      ok: true,
      priceCents,
      windowStartMs,
      windowEndMs: atLocalMinute(localMidnightMs(endMs, product.tz), product.tz, product.startMin + MINUTES_PER_DAY),
    };
  }
  let sawHours = false;
  for (const back of [0, -1]) {
    const day = localMidnightMs(startMs, product.tz, back);
    const windowStartMs = atLocalMinute(day, product.tz, product.startMin);
    const windowEndMs = atLocalMinute(day, product.tz, product.startMin + lengthMin);
    if (startMs >= windowStartMs && endMs <= windowEndMs) {
      sawHours = true;
      if (product.daysOfWeek.includes(localWeekday(day, product.tz)))
        return { ok: true, priceCents, windowStartMs, windowEndMs };
    }
  }
  return { ok: false, reason: sawHours ? 'day_unavailable' : 'outside_hours' };
}

/**
 * The product's window on the local day of `dayMs` ([start, end) in unix ms), or undefined when
 * the product does not run that weekday.
 */
export function windowOnDay(product: Product, dayMs: number): { startMs: number; endMs: number } | undefined {
  const day = localMidnightMs(dayMs, product.tz);
  if (!product.daysOfWeek.includes(localWeekday(day, product.tz))) return undefined;
  return {
    startMs: atLocalMinute(day, product.tz, product.startMin),
    endMs: atLocalMinute(day, product.tz, product.startMin + windowLengthMin(product)),
  };
}

/**
 * Highest number of simultaneous stays among `intervals` within [fromMs, toMs) (sweep line).
 * Intervals are [startMs, endMs).
 */
export function peakConcurrency(intervals: Array<[number, number]>, fromMs: number, toMs: number): number {
  const events: Array<[number, number]> = [];
  for (const [s, e] of intervals) {
    const a = Math.max(s, fromMs);
    const b = Math.min(e, toMs);
    if (a < b) events.push([a, 1], [b, -1]);
  }
  // ends before starts at the same instant: back-to-back stays share a space
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let current = 0;
  let peak = 0;
  for (const [, delta] of events) {
    current += delta;
    if (current > peak) peak = current;
  }
  return peak;
}
