import { describe, it, expect } from 'vitest';
import { DateTime } from 'luxon';
import { buildFrames, parseRateRules, type StructuredRateInput } from './rate-rule.js';
import { calculateRates, isOpenAt } from './calculated-rates.js';
import { holidayCalendar, usFederalHolidays } from './holidays.js';
import { renderRateCard } from './rate-card.js';

const TZ = 'America/New_York';
const opts = { tz: TZ, isHoliday: holidayCalendar('US'), permits: new Set<string>() };
/** unix seconds of a local New York wall-clock time */
const at = (iso: string): number => DateTime.fromISO(iso, { zone: TZ }).toSeconds();
const frames = (rates: StructuredRateInput[]) => buildFrames(parseRateRules(rates, 'structured_rates'));
const costs = (rates: StructuredRateInput[], entry: string, durations: number[], o = opts) =>
  calculateRates(frames(rates), at(entry), durations, o)?.map((r) => [r.rate_cost, r.quoted_duration]);

// 2026-11-23 is a Monday; 2026-11-26 is Thanksgiving.
describe('rate engine', () => {
  const meter: StructuredRateInput[] = [
    { dow_start: 1, dow_end: 5, time_in: '08:00', time_out: '18:00', rate: 2, increment: 60, repeats: true, max: 10 },
    { dow_start: 6, dow_end: 7, time_in: '00:00', time_out: '24:00', rate: 0 },
  ];

  it('charges a repeating increment per started hour and quotes the paid time', () => {
    expect(costs(meter, '2026-11-23T09:00', [30, 60, 61, 150])).toEqual([
      [2, '01:00:00'],
      [2, '01:00:00'],
      [4, '02:00:00'],
      [6, '03:00:00'],
    ]);
  });

  it('caps a frame occurrence at its daily maximum', () => {
    // 08:00-18:00 is 10 hours = $20 uncapped → $10
    expect(costs(meter, '2026-11-23T08:00', [600])).toEqual([[10, '24:00:00']]);
  });

  it('leaves time outside every frame free (evening after the meter window)', () => {
    // 17:00-18:00 paid ($2), 18:00-20:00 uncovered (free)
    expect(costs(meter, '2026-11-23T17:00', [180])).toEqual([[2, '03:00:00']]);
  });

  it('prices weekday and weekend differently', () => {
    expect(costs(meter, '2026-11-28T10:00', [120])).toEqual([[0, '02:00:00']]); // Saturday: free
    expect(costs(meter, '2026-11-27T10:00', [120])).toEqual([[4, '02:00:00']]); // Friday
  });

  it('walks a stay across a weekday-to-weekend boundary', () => {
    // Fri 17:00 → Sat 01:00: one paid hour on Friday, the rest uncovered or weekend-free
    expect(costs(meter, '2026-11-27T17:00', [480])).toEqual([[2, '08:00:00']]);
  });

  it('prices an overnight frame that passes midnight as one occurrence', () => {
    const rates: StructuredRateInput[] = [
      { dow_start: 1, dow_end: 7, time_in: '06:00', time_out: '18:00', rate: 3, increment: 60, repeats: true },
      { dow_start: 1, dow_end: 7, time_in: '18:00', time_out: '06:00', rate: 10, rate_line: 'Overnight 6pm-6am: $10' },
    ];
    // 20:00 → 02:00 next day: inside the overnight frame: flat $10
    expect(costs(rates, '2026-11-23T20:00', [360])).toEqual([[10, '06:00:00']]);
    // 02:00 Tuesday is still Monday's overnight window
    expect(costs(rates, '2026-11-24T02:00', [60])).toEqual([[10, '01:00:00']]);
    // 17:00 → 20:00: 1 h day ($3) + overnight ($10)
    expect(costs(rates, '2026-11-23T17:00', [180])).toEqual([[13, '03:00:00']]);
    // 05:00 → 07:00: overnight ($10) + 1 h day ($3)
    expect(costs(rates, '2026-11-23T05:00', [120])).toEqual([[13, '02:00:00']]);
  });

  it('applies tiers, then the repeating increment beyond the longest tier, then the daily max', () => {
    const garage: StructuredRateInput[] = [
      { dow_start: 1, dow_end: 7, rate: 8, increment: 60, rate_line: '1 Hr: $8' },
      { dow_start: 1, dow_end: 7, rate: 14, increment: 120, rate_line: '2 Hr: $14' },
      {
        dow_start: 1,
        dow_end: 7,
        rate: 5,
        increment: 60,
        repeats: true,
        max: 32,
        rate_line: 'Each add. Hr: $5, Daily Max $32',
      },
    ];
    expect(costs(garage, '2026-11-23T10:00', [45, 60, 90, 120, 150, 180, 300, 600])).toEqual([
      [8, '01:00:00'],
      [8, '01:00:00'],
      [14, '02:00:00'],
      [14, '02:00:00'],
      [19, '03:00:00'],
      [19, '03:00:00'],
      [29, '05:00:00'],
      [32, '24:00:00'],
    ]);
    // two days and one hour: 2 × $32 + $8 (one occurrence: the frame covers every minute)
    expect(costs(garage, '2026-11-23T10:00', [2 * 1440 + 60])).toEqual([[72, '49:00:00']]);
  });

  it('repeats a tier ladder without a repeating item (24 h tier)', () => {
    const daily: StructuredRateInput[] = [{ dow_start: 1, dow_end: 7, rate: 20, increment: 1440 }];
    expect(costs(daily, '2026-11-23T10:00', [60, 1440, 1500])).toEqual([
      [20, '24:00:00'],
      [20, '24:00:00'],
      [40, '48:00:00'],
    ]);
  });

  it('lets a holiday-only rate override an overridable rate on the holiday only', () => {
    const rates: StructuredRateInput[] = [
      {
        dow_start: 1,
        dow_end: 7,
        time_in: '08:00',
        time_out: '20:00',
        rate: 1.5,
        increment: 30,
        repeats: true,
        holidays: -1,
      },
      { dow_start: 1, dow_end: 7, time_in: '08:00', time_out: '20:00', rate: 0, holidays: 1 },
    ];
    expect(usFederalHolidays(2026)).toContain('2026-11-26');
    expect(costs(rates, '2026-11-26T10:00', [90])).toEqual([[0, '01:30:00']]); // Thanksgiving: free
    expect(costs(rates, '2026-11-25T10:00', [90])).toEqual([[4.5, '01:30:00']]); // Wednesday: 3 × $1.50
  });

  it('reports No Parking at entry as closed ([]) and later as -1', () => {
    const rates: StructuredRateInput[] = [
      {
        dow_start: 1,
        dow_end: 5,
        time_in: '07:00',
        time_out: '09:00',
        rate: -1,
        rate_line: 'No Parking 7-9am Mon-Fri',
      },
      { dow_start: 1, dow_end: 7, time_in: '09:00', time_out: '19:00', rate: 0.25, increment: 15, repeats: true },
    ];
    const f = frames(rates);
    expect(calculateRates(f, at('2026-11-23T08:00'), [60], opts)).toEqual([]);
    expect(isOpenAt(f, at('2026-11-23T08:00'), opts)).toBe(false);
    expect(isOpenAt(f, at('2026-11-23T10:00'), opts)).toBe(true);
    // 06:00 for 2 h runs into the 7-9 tow-away window; for 30 min it is free (uncovered time)
    expect(costs(rates, '2026-11-23T06:00', [30, 120])).toEqual([
      [0, '00:30:00'],
      [-1, '02:00:00'],
    ]);
    // 09:00 for 50 minutes: 4 started quarter hours × $0.25 = $1 (never floating drift)
    expect(costs(rates, '2026-11-23T09:00', [50])).toEqual([[1, '01:00:00']]);
  });

  it('treats a permit-only frame as No Parking unless the driver holds the permit', () => {
    const rates: StructuredRateInput[] = [
      { dow_start: 1, dow_end: 7, time_in: '18:00', time_out: '08:00', rate: 0, restriction: 'R' },
      { dow_start: 1, dow_end: 7, time_in: '08:00', time_out: '18:00', rate: 1, increment: 60, repeats: true },
    ];
    expect(costs(rates, '2026-11-23T19:00', [60])).toEqual([]);
    expect(costs(rates, '2026-11-23T19:00', [60], { ...opts, permits: new Set(['R']) })).toEqual([[0, '01:00:00']]);
  });

  it('accumulates 0.10 increments in exact cents', () => {
    const rates: StructuredRateInput[] = [{ dow_start: 1, dow_end: 7, rate: 0.1, increment: 1, repeats: true }];
    expect(costs(rates, '2026-11-23T00:00', [3])).toEqual([[0.3, '00:03:00']]);
  });

  it('distinguishes unknown rates (null) from free and closed', () => {
    expect(calculateRates(null, at('2026-11-23T10:00'), [60], opts)).toBeNull();
    expect(calculateRates(frames(meter), at('2026-11-23T10:00'), [], opts)).toBeNull();
  });

  it('uses the local clock across a DST change (2026-11-01 01:00 repeats in New York)', () => {
    // 00:00 → 03:00 local is 4 real hours on the fall-back night
    const rates: StructuredRateInput[] = [{ dow_start: 1, dow_end: 7, rate: 1, increment: 60, repeats: true }];
    expect(costs(rates, '2026-11-01T00:00', [240])).toEqual([[4, '04:00:00']]);
  });

  it('rejects malformed structured rates naming the field', () => {
    expect(() => parseRateRules([{ dow_start: 0, dow_end: 5, rate: 1 }], 'structured_rates')).toThrow(
      /structured_rates\[0\]\.dow_start/,
    );
    expect(() => parseRateRules([{ dow_start: 1, dow_end: 5, rate: -2 }], 'structured_rates')).toThrow(/rate/);
    expect(() => parseRateRules([{ dow_start: 1, dow_end: 5, rate: 1, time_in: '25:00' }], 'x')).toThrow(/time_in/);
  });

  it('renders rate-card lines from structured rates', () => {
    expect(renderRateCard(frames(meter), 'USD', 'en-US')).toEqual([
      'Mon-Fri 08:00-18:00: $2.00 per 1 Hr, Daily Max $10.00',
      'Sat-Sun 24 Hours: Free',
    ]);
    expect(
      renderRateCard(frames([{ dow_start: 1, dow_end: 7, time_in: '07:00-09:00', rate: -1 }]), 'EUR', 'fr-FR'),
    ).toEqual(['Lun-Dim 07:00-09:00: Stationnement interdit']);
  });
});
