/**
 * `calculatedRates` of a lot or segment for one entry time and each requested duration, with the
 * reference's null / empty / zero semantics: `null` = rates unknown (or no duration asked),
 * `[]` = closed at entry, `rate_cost: 0` = free, `> 0` = paid, `-1` = the stay runs into No Parking.
 */
import { DateTime } from 'luxon';
import { activeFrame, formatDuration, frameBoundaries, quoteStay, type QuoteOptions } from './quote.js';
import type { RateFrame } from './rate-rule.js';

/** One item of `calculatedRates`. `rate_type` B = base (drive-up) price. */
export interface CalculatedRate {
  /** currency units (exact: computed in integer cents) */
  rate_cost: number;
  /** hh:mm:ss of the time paid for */
  quoted_duration: string;
  rate_type: 'B' | 'M' | 'R';
}

/**
 * Prices every duration (minutes) of a stay entering at `entryUnixS`; `frames` null = unknown rates.
 * @example calculateRates(frames, entryS, [60, 120], opts) // [{ rate_cost: 2, quoted_duration: '01:00:00', rate_type: 'B' }, …]
 */
export function calculateRates(
  frames: readonly RateFrame[] | null,
  entryUnixS: number,
  durationsMin: readonly number[],
  opts: QuoteOptions,
): CalculatedRate[] | null {
  if (frames === null || durationsMin.length === 0) return null;
  const boundaries = frameBoundaries(frames);
  const out: CalculatedRate[] = [];
  for (const d of durationsMin) {
    const q = quoteStay(frames, entryUnixS, d, opts, boundaries);
    if (q.kind === 'closed') return [];
    if (q.kind === 'no_parking') out.push({ rate_cost: -1, quoted_duration: formatDuration(d), rate_type: 'B' });
    else out.push({ rate_cost: q.costCents / 100, quoted_duration: formatDuration(q.quotedMin), rate_type: 'B' });
  }
  return out;
}

/** true when parking is allowed at the entry instant under the frames (null frames: unknown → null). */
export function isOpenAt(frames: readonly RateFrame[] | null, entryUnixS: number, opts: QuoteOptions): boolean | null {
  if (frames === null) return null;
  return activeFrame(frames, DateTime.fromSeconds(entryUnixS, { zone: opts.tz }), opts) !== 'no_parking';
}

/** Price in cents of a one-hour stay at the entry (null unknown/closed): input of `costIndex`. */
export function hourlyPriceCents(
  frames: readonly RateFrame[] | null,
  entryUnixS: number,
  opts: QuoteOptions,
): number | null {
  if (frames === null) return null;
  const q = quoteStay(frames, entryUnixS, 60, opts);
  return q.kind === 'priced' ? q.costCents : null;
}
