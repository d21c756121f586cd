/**
 * README and docs/demo.md say which day and hours the demo's congestion covers; the statement must
 * match the simulator's peak windows (src/sim/demo-simulation.ts).
 */
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { lastWeekdayPeakStartS, lastWeekdayPeaksS } from '../../src/sim/demo-simulation.js';

const TZ = 'America/New_York';
/** A first start on Friday 2026-11-27 at 07:45, before that morning's peak has ended. */
const FRIDAY_MORNING_S = DateTime.fromISO('2026-11-27T07:45', { zone: TZ }).toSeconds();

function local(s: number): string {
  return DateTime.fromSeconds(s, { zone: TZ }).toFormat('cccc HH:mm');
}

describe("the demo's congestion as the docs state it", () => {
  it('is the last weekday morning (3 h from 06:30) and evening (2 h from 16:30) peaks', () => {
    expect(local(lastWeekdayPeakStartS(FRIDAY_MORNING_S, TZ, 3))).toBe('Thursday 06:30');
    expect(local(lastWeekdayPeakStartS(FRIDAY_MORNING_S, TZ, 2, '16:30:00'))).toBe('Thursday 16:30');
  });

  it('takes both peaks from one day, whatever the hour of the start', () => {
    const at = (iso: string) => lastWeekdayPeaksS(DateTime.fromISO(iso, { zone: TZ }).toSeconds(), TZ, 2);
    const both = (iso: string) => {
      const { morningS, eveningS } = at(iso);
      return `${local(morningS)} / ${local(eveningS)}`;
    };
    expect(both('2026-11-27T07:45')).toBe('Thursday 06:30 / Thursday 16:30');
    // after Friday's morning peak, before its evening peak: still Thursday's morning, not Friday's
    expect(both('2026-11-27T10:50')).toBe('Thursday 06:30 / Thursday 16:30');
    expect(both('2026-11-27T18:30')).toBe('Friday 06:30 / Friday 16:30');
    expect(both('2026-11-29T12:00')).toBe('Friday 06:30 / Friday 16:30');
  });

  for (const file of ['README.md', 'docs/demo.md']) {
    it(`${file} states the day and the hours of the congestion`, () => {
      const text = readFileSync(file, 'utf8').replace(/\s+/g, ' ');
      const statement = /The demo's congestion is [^.]*\./.exec(text)?.[0] ?? '';
      expect(statement).toContain('06:30–09:30');
      expect(statement).toContain('16:30–18:30');
      expect(statement).toContain(TZ);
      expect(statement).toContain("Thursday's for a start on Friday morning");
      expect(statement).toContain('every other day and hour is free flow');
    });
  }
});
