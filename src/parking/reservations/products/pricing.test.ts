import { describe, expect, it } from 'vitest';
import { parseClockMin, formatClock, parseEntryLocal } from './clock.js';
import { fitStay, peakConcurrency, priceForDurationCents } from './pricing.js';
import { productFromInput, type Product } from './product.js';

const TABLE = [
  { durationMin: 60, priceCents: 800 },
  { durationMin: 120, priceCents: 1400 },
  { durationMin: 1440, priceCents: 3200 },
];

function product(overrides: Record<string, unknown> = {}): Product {
  return productFromInput(
    {
      f_id: 1,
      name: 'P',
      rates: [
        { duration: 60, rate: 8 },
        { duration: 120, rate: 14 },
        { duration: 1440, rate: 32 },
      ],
      capacity: 5,
      tz: 'America/New_York',
      ...overrides,
    },
    [],
    0,
  );
}

describe('rate table', () => {
  it('charges the cheapest tier that covers the stay', () => {
    expect(priceForDurationCents(TABLE, 1)).toBe(800);
    expect(priceForDurationCents(TABLE, 60)).toBe(800);
    expect(priceForDurationCents(TABLE, 61)).toBe(1400);
    expect(priceForDurationCents(TABLE, 121)).toBe(3200);
  });

  it('beyond the longest tier charges whole multiples of it plus the remainder', () => {
    // 2 days + 90 min = 2 × 32 + 14
    expect(priceForDurationCents(TABLE, 2 * 1440 + 90)).toBe(2 * 3200 + 1400);
    expect(priceForDurationCents(TABLE, 2 * 1440)).toBe(6400);
  });

  it('a cheaper longer tier wins over a dearer shorter one', () => {
    expect(
      priceForDurationCents(
        [
          { durationMin: 60, priceCents: 900 },
          { durationMin: 180, priceCents: 700 },
        ],
        30,
      ),
    ).toBe(700);
  });
});

describe('fitting a stay to a product', () => {
  const at = (local: string) => parseEntryLocal(local, 'America/New_York', 'entry_time');

  it('accepts a stay inside the daily window and refuses one that runs past its end', () => {
    const p = product({ start_time: '6:00am', end_time: '11:00am' });
    expect(fitStay(p, at('2026-11-24T06:00'), 300)).toMatchObject({ ok: true, priceCents: 3200 });
    expect(fitStay(p, at('2026-11-24T08:00'), 300)).toEqual({ ok: false, reason: 'outside_hours' });
    expect(fitStay(p, at('2026-11-24T05:59'), 60)).toEqual({ ok: false, reason: 'outside_hours' });
  });

  it('handles an overnight window (10:00pm–6:00am) from the day it starts', () => {
    // overnight product runs Friday nights only (the window starts Friday)
    const p = product({ start_time: '10:00pm', end_time: '6:00am', days_available: ['Fri'] });
    expect(fitStay(p, at('2026-11-27T23:00'), 360)).toMatchObject({ ok: true });
    // Saturday 02:00 belongs to Friday's window
    expect(fitStay(p, at('2026-11-28T02:00'), 240)).toMatchObject({ ok: true });
    // Saturday 23:00 starts Saturday's window, not offered
    expect(fitStay(p, at('2026-11-28T23:00'), 60)).toEqual({ ok: false, reason: 'day_unavailable' });
  });

  it('refuses stays longer than max_duration and days not offered by a 24-hour product', () => {
    const p = product({ max_duration: 120, days_available: [1, 2, 3, 4, 5] });
    expect(fitStay(p, at('2026-11-24T09:00'), 121)).toEqual({ ok: false, reason: 'duration_exceeds_max' });
    expect(fitStay(p, at('2026-11-28T09:00'), 60)).toEqual({ ok: false, reason: 'day_unavailable' });
    // Friday 23:00 + 2 h touches Saturday
    expect(fitStay(p, at('2026-11-27T23:00'), 120)).toEqual({ ok: false, reason: 'day_unavailable' });
  });

  it('uses wall-clock hours across the DST change (New York, 2026-03-08)', () => {
    const p = product({ start_time: '6:00am', end_time: '11:00am' });
    const fit = fitStay(p, at('2026-03-08T06:00'), 300);
    expect(fit).toMatchObject({ ok: true });
    if (fit.ok) expect(new Date(fit.windowStartMs).toISOString()).toBe('2026-03-08T10:00:00.000Z');
  });
});

describe('peak concurrency', () => {
  it('counts simultaneous stays only; back-to-back stays share a space', () => {
    expect(
      peakConcurrency(
        [
          [0, 10],
          [10, 20],
          [5, 15],
        ],
        0,
        20,
      ),
    ).toBe(2);
    expect(
      peakConcurrency(
        [
          [0, 10],
          [10, 20],
        ],
        0,
        20,
      ),
    ).toBe(1);
    expect(
      peakConcurrency(
        [
          [0, 10],
          [20, 30],
        ],
        12,
        18,
      ),
    ).toBe(0);
  });
});

describe('clock times', () => {
  it('parses and formats the contract clock texts', () => {
    expect(parseClockMin('10:00am')).toBe(600);
    expect(parseClockMin('12:00am')).toBe(0);
    expect(parseClockMin('12:30 PM')).toBe(750);
    expect(parseClockMin('7pm')).toBe(1140);
    expect(parseClockMin('22:15')).toBe(1335);
    expect(parseClockMin('13:00pm')).toBeUndefined();
    expect(parseClockMin('noon')).toBeUndefined();
    expect(formatClock(0)).toBe('12:00am');
    expect(formatClock(1335)).toBe('10:15pm');
  });

  it('rejects uploads with a bad field, naming it', () => {
    expect(() => product({ start_time: '25:00' })).toThrow(/products\[0\]\.start_time/);
    expect(() => product({ capacity: -1 })).toThrow(/capacity/);
    expect(() => productFromInput({ f_id: 1, name: 'x', rates: [5], capacity: 1, tz: 'UTC' }, [], 0)).toThrow(
      /durations/,
    );
  });
});
