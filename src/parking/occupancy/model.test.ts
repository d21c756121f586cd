import { describe, it, expect } from 'vitest';
import { bucketOf, estimateOccupancy, expectedPct, freeSpaceProbability, weekBin } from './model.js';

const NY_WINTER = -5 * 3600;
// Monday 2026-11-23 10:00 New York = 15:00 UTC
const MON_10 = Date.UTC(2026, 10, 23, 15) / 1000;

describe('occupancy model', () => {
  it('puts bin 0 at Monday 00:00 local and counts 15-minute bins', () => {
    expect(weekBin(Date.UTC(2026, 10, 23, 5) / 1000, NY_WINTER)).toBe(0); // Monday 00:00 New York
    expect(weekBin(MON_10, NY_WINTER)).toBe(40);
    expect(weekBin(Date.UTC(2026, 10, 30, 4, 59) / 1000, NY_WINTER)).toBe(671); // Sunday 23:59
  });

  it('interpolates the hourly profile into 15-minute bins, weekday vs weekend', () => {
    expect(expectedPct('Public Parking', 40)).toBe(85); // Monday 10:00
    expect(expectedPct('Public Parking', 42)).toBe(86.5); // Monday 10:30, halfway to 88
    expect(expectedPct('Public Parking', 5 * 96 + 40)).toBe(55); // Saturday 10:00
    expect(expectedPct('Park N Ride', 32)).toBe(90); // Monday 08:00
    expect(expectedPct('No Such Category', 40)).toBe(85); // falls back to the generic profile
  });

  it('maps probability to the three colour buckets at 35 % and 70 %', () => {
    expect([0, 34, 35, 69, 70, 100].map(bucketOf)).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('gives the chance of at least one free space from occupancy and capacity', () => {
    expect(freeSpaceProbability(50, 100)).toBe(100);
    expect(freeSpaceProbability(100, 100)).toBe(0);
    expect(freeSpaceProbability(95, 10)).toBe(50); // few spaces: a coin toss
    expect(freeSpaceProbability(95, 400)).toBe(100); // 20 free spaces on average
    expect(freeSpaceProbability(99, 400)).toBe(93);
    expect(freeSpaceProbability(80, 0)).toBe(0);
  });

  it('predicts from the category and capacity without observations (rank 2)', () => {
    expect(estimateOccupancy('Public Parking', 200, MON_10, NY_WINTER, [])).toEqual({
      pct: 85,
      available: 30,
      probability: 100,
      bucket: 3,
      rank: 2,
    });
  });

  it('knows nothing of a facility without a capacity unless an observation brings one', () => {
    expect(estimateOccupancy('Public Parking', null, MON_10, NY_WINTER, [])).toBeNull();
    // an operator count 1 h old with its own capacity (120 of 150 = 80 %, the profile's 09:00 value):
    // residual 0, so the prediction at 10:00 is the profile's 85 % of 150 spaces
    const counted = { observedAtS: MON_10 - 3600, occupied: 120, capacity: 150, source: 'operator' };
    expect(estimateOccupancy('Public Parking', null, MON_10, NY_WINTER, [counted])).toEqual({
      pct: 85,
      available: 23,
      probability: 100,
      bucket: 3,
      rank: 5,
    });
    // a count without a capacity, or one older than 3 h, does not give one
    expect(estimateOccupancy('Public Parking', null, MON_10, NY_WINTER, [{ ...counted, capacity: null }])).toBeNull();
    expect(
      estimateOccupancy('Public Parking', null, MON_10, NY_WINTER, [{ ...counted, observedAtS: MON_10 - 4 * 3600 }]),
    ).toBeNull();
  });

  it('corrects with the latest observation, decaying over 90 minutes, ranked by its source', () => {
    const full = { observedAtS: MON_10 - 3600, occupied: 200, capacity: 200, source: 'feed' };
    // at 09:00 the profile says 80 %: residual 20 × e^(-60/90) = 10.27 → 95 %
    expect(estimateOccupancy('Public Parking', 200, MON_10, NY_WINTER, [full])).toMatchObject({
      pct: 95,
      available: 10,
      rank: 3,
    });
    const manual = { observedAtS: MON_10, occupied: 20, capacity: null, source: 'operator' };
    expect(estimateOccupancy('Public Parking', 200, MON_10, NY_WINTER, [full, manual])).toMatchObject({
      pct: 10,
      available: 180,
      rank: 5,
    });
    // observations after the entry time or older than 3 h are ignored
    const future = { ...manual, observedAtS: MON_10 + 60 };
    const stale = { ...full, observedAtS: MON_10 - 4 * 3600 };
    expect(estimateOccupancy('Public Parking', 200, MON_10, NY_WINTER, [future, stale])?.rank).toBe(2);
  });

  it('never estimates fewer occupied spaces than reservations hold', () => {
    expect(estimateOccupancy('Public Parking', 200, MON_10, NY_WINTER, [], 196)).toMatchObject({
      pct: 98,
      available: 4,
    });
    expect(estimateOccupancy('Public Parking', 200, MON_10, NY_WINTER, [], 10)?.pct).toBe(85);
  });
});
