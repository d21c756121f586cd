import { describe, it, expect } from 'vitest';
import { createProgress, formatDuration, progressLine } from './progress.js';

describe('progress lines', () => {
  it('say done of total, share, rate, elapsed and time left; bytes in MB', () => {
    expect(progressLine(25_000_000, 100_000_000, 'bytes', 5)).toBe(
      '25.0/100.0 MB (25%), 5.0 MB/s, 5.0 s elapsed, 15 s left',
    );
    expect(progressLine(300, 1200, 'sim min', 60)).toBe(
      '300/1200 sim min (25%), 5 sim min/s, 1 min 00 s elapsed, 3 min 00 s left',
    );
    expect(progressLine(1200, 1200, 'traces', 12)).toBe('1200/1200 traces (100%), 100 traces/s, 12 s elapsed');
    expect(progressLine(42, undefined, 'pings', 2)).toBe('42 pings, 21 pings/s, 2.0 s elapsed');
  });

  it('formats durations for people', () => {
    expect([0.5, 42, 185, 7620].map(formatDuration)).toEqual(['0.5 s', '42 s', '3 min 05 s', '2 h 07 min']);
  });

  it('logs the first update at once and the final count once when not a terminal', () => {
    const lines: string[] = [];
    const stream = { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
    const p = createProgress('match', 'traces', stream);
    p.update(0, 10);
    p.update(10, 10);
    p.stop();
    p.stop();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^match: 0\/10 traces \(0%\), 0 traces\/s, [\d.]+ s elapsed\n$/);
    expect(lines[1]).toMatch(/^match: 10\/10 traces \(100%\), \d+ traces\/s, [\d.]+ s elapsed\n$/);
  });
});
