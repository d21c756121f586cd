import { describe, it, expect } from 'vitest';
import { timeZoneAt, localParts, binOfWeek, parseIsoToUnixS, formatIso, secondOfWeek } from './index.js';

describe('time', () => {
  it('finds the time zone of Baltimore and Monaco', () => {
    expect(timeZoneAt(39.29, -76.61)).toBe('America/New_York');
    expect(timeZoneAt(43.73, 7.42)).toBe('Europe/Monaco');
  });
  it('gives local parts with Monday = 1', () => {
    // 2026-11-23 is a Monday; 13:30 UTC = 08:30 EST
    const t = Date.UTC(2026, 10, 23, 13, 30) / 1000;
    expect(localParts(t, 'America/New_York')).toMatchObject({ dayOfWeek: 1, hour: 8, minute: 30, offsetMinutes: -300 });
    expect(binOfWeek(t, 'America/New_York')).toBe(34);
    expect(secondOfWeek(t, 'America/New_York')).toBe(8.5 * 3600);
  });
  it('parses ISO with and without offsets', () => {
    expect(parseIsoToUnixS('2026-11-23T13:30:00Z')).toBe(Date.UTC(2026, 10, 23, 13, 30) / 1000);
    expect(parseIsoToUnixS('2026-11-23T08:30:00', 'America/New_York')).toBe(Date.UTC(2026, 10, 23, 13, 30) / 1000);
    expect(parseIsoToUnixS('2026-11-23T08:30:00-05:00')).toBe(Date.UTC(2026, 10, 23, 13, 30) / 1000);
    expect(parseIsoToUnixS('yesterday')).toBeUndefined();
    expect(parseIsoToUnixS('2026-13-45T99:00')).toBeUndefined();
  });
  it('formats ISO in a zone', () => {
    expect(formatIso(Date.UTC(2026, 10, 23, 13, 30) / 1000, 'America/New_York')).toBe('2026-11-23T08:30:00-05:00');
  });
});
