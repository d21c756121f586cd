import { describe, expect, it } from 'vitest';
import { localSecondOfWeek, utcOffsetS } from './clock.js';

describe('localSecondOfWeek', () => {
  it('Monday 08:00 in Baltimore (EST, UTC−5) is 8 h into the week', () => {
    expect(localSecondOfWeek(Date.UTC(2026, 10, 23, 13, 0, 0) / 1000, 'America/New_York')).toBe(8 * 3600);
  });
  it('follows daylight saving time (EDT, UTC−4 in July) and keeps fractions of seconds', () => {
    expect(utcOffsetS(Date.UTC(2026, 6, 6, 12) / 1000, 'America/New_York')).toBe(-4 * 3600);
    // Monday 2026-07-06 12:00:00.5 UTC = 08:00:00.5 EDT
    expect(localSecondOfWeek(Date.UTC(2026, 6, 6, 12) / 1000 + 0.5, 'America/New_York')).toBe(8 * 3600 + 0.5);
  });
  it('Sunday 23:59 UTC is the last minute of the week; unknown zones are UTC', () => {
    expect(localSecondOfWeek(Date.UTC(2026, 10, 29, 23, 59) / 1000, 'UTC')).toBe(604_800 - 60);
    expect(localSecondOfWeek(Date.UTC(2026, 10, 23, 0, 0) / 1000, 'Not/AZone')).toBe(0);
  });
});
