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

describe('localParts with its offset memo', () => {
  it('equals a full luxon conversion, also every 20 s across DST changes (Lord Howe shifts by 30 min, Kathmandu is +05:45)', async () => {
    const { DateTime } = await import('luxon');
    const zones = [
      'America/New_York',
      'Europe/Monaco',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'America/St_Johns',
      'Pacific/Chatham',
    ];
    const instants: number[] = [];
    let seed = 20261125;
    const rnd = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    for (let i = 0; i < 5000; i++)
      instants.push(Date.UTC(2025, 0, 1) / 1000 + rnd() * 2 * 365 * 86400 + (i % 3 === 0 ? 0.25 : 0));
    let checked = 0;
    for (const tz of zones) {
      const around: number[] = [];
      // every offset change of 2026 in this zone, found hour by hour, then sampled every 20 s around it
      for (let h = Date.UTC(2026, 0, 1) / 1000; h < Date.UTC(2027, 0, 1) / 1000; h += 3600) {
        if (DateTime.fromSeconds(h, { zone: tz }).offset !== DateTime.fromSeconds(h + 3600, { zone: tz }).offset) {
          for (let s = h - 1800; s <= h + 5400; s += 20) around.push(s);
        }
      }
      if (tz !== 'Asia/Kathmandu') expect(around.length, tz).toBeGreaterThan(0);
      for (const s of [...instants, ...around]) {
        const dt = DateTime.fromMillis(s * 1000, { zone: tz });
        const p = localParts(s, tz);
        expect(
          [p.year, p.month, p.day, p.hour, p.minute, p.second, p.dayOfWeek, p.offsetMinutes],
          `${tz} ${s}`,
        ).toEqual([dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.weekday, dt.offset]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30_000);
  });
});
