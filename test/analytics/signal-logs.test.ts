/**
 * Controller hi-res event logs: parsing, the channel/phase map, signal timing for arrivals on
 * green, split failures and the Purdue coordination diagram, on a hand-written log of one
 * intersection. Phase 2 runs a 90 s cycle from 08:00:00 local time: green 0–30 s, yellow 30–33 s,
 * red clearance 33–34 s, red to 90 s (then green 90–120 s, 180–210 s). Stop-bar detector channel 5
 * is occupied 0–36 s and 88–130 s; advance detector channel 9 lies 100 m upstream (36 km/h: 10 s).
 */
import { describe, expect, it } from 'vitest';
import type { CatalogMovement } from '../../src/analytics/index.js';
import { parseChannelMap, parseEventLog, phaseTimeline } from '../../src/analytics/signals/event-log.js';
import {
  coordinationDiagram,
  type IntersectionLog,
  signalTimingFromLogs,
  splitFailures,
} from '../../src/analytics/signals/measures.js';
import { nyS } from './fixture.js';

const TZ = 'America/New_York';
const T0 = nyS('2026-11-16T08:00:00');
const at = (s: number): string => {
  const mm = String(Math.floor(s / 60)).padStart(2, '0');
  const ss = (s % 60).toFixed(1).padStart(4, '0');
  return `2026-11-16 08:${mm}:${ss}`;
};
const rows: Array<[number, number, number]> = [
  [0, 1, 2],
  [0, 82, 5],
  [5, 82, 9],
  [5.5, 81, 9],
  [30, 8, 2],
  [33, 9, 2],
  [33, 10, 2],
  [34, 11, 2],
  [36, 81, 5],
  [40, 82, 9],
  [40.4, 81, 9],
  [88, 82, 5],
  [90, 1, 2],
  [90, 82, 9],
  [90.5, 81, 9],
  [120, 8, 2],
  [123, 9, 2],
  [123, 10, 2],
  [124, 11, 2],
  [130, 81, 5],
  [180, 1, 2],
  [210, 8, 2],
  [213, 9, 2],
  [213, 10, 2],
  [214, 11, 2],
  [220, 82, 9],
];
const CSV = `Timestamp,EventCode,EventParam\n${rows.map(([s, c, p]) => `${at(s)},${c},${p}`).join('\n')}\n`;
const KEY = '39.29000_-76.61000';
const movements = new Set(['7', '8']);
const map = parseChannelMap(
  {
    intersectionId: KEY,
    phases: [{ phase: 2, movements: ['7'] }],
    detectors: [
      { channel: 5, phase: 2, kind: 'stopbar' },
      { channel: 9, phase: 2, kind: 'advance', distanceM: 100, speedKph: 36 },
    ],
  },
  movements,
);
const log: IntersectionLog = { map, events: parseEventLog(CSV, TZ) };

describe('parseEventLog', () => {
  it('reads timestamp,code,parameter lines in local time, skipping the header', () => {
    expect(log.events).toHaveLength(rows.length);
    // at one instant a detector event comes before Begin Green (a green begins after the rest)
    expect(log.events[0]).toEqual({ tS: T0, code: 82, param: 5 });
    expect(log.events[1]).toEqual({ tS: T0, code: 1, param: 2 });
    expect(log.events[3]).toEqual({ tS: T0 + 5.5, code: 81, param: 9 });
  });

  it('reads an ATSPM export (controller id first, US dates) and sorts by time', () => {
    const ev = parseEventLog('1001,11/16/2026 08:00:10.5,8,2\n1001,11/16/2026 08:00:00.0,1,2\n', TZ);
    expect(ev).toEqual([
      { tS: T0, code: 1, param: 2 },
      { tS: T0 + 10.5, code: 8, param: 2 },
    ]);
  });

  it('names the first bad line', () => {
    expect(() => parseEventLog(`${at(0)},1,2\n${at(1)},x,2\n`, TZ)).toThrow(/line 2: event code/);
    expect(() => parseEventLog(`${at(0)},1,2\nyesterday,1,2\n`, TZ)).toThrow(/line 2: timestamp/);
    expect(() => parseEventLog(`${at(0)},1\n`, TZ)).toThrow(/line 1: expected/);
  });
});

describe('parseChannelMap', () => {
  it('rejects movements of another intersection and malformed detectors', () => {
    expect(() =>
      parseChannelMap({ intersectionId: KEY, phases: [{ phase: 2, movements: ['99'] }] }, movements),
    ).toThrow(/map.phases\[0\].movements\[0\]/);
    expect(() =>
      parseChannelMap(
        {
          intersectionId: KEY,
          phases: [{ phase: 2, movements: ['7'] }],
          detectors: [{ channel: 9, phase: 2, kind: 'advance' }],
        },
        movements,
      ),
    ).toThrow(/map.detectors\[0\].distanceM/);
    expect(() => parseChannelMap({ intersectionId: KEY, phases: [{ movements: ['7'] }] }, movements)).toThrow(
      /exactly one of phase, overlap/,
    );
  });
});

describe('signal timing from the log', () => {
  const timing = signalTimingFromLogs(new Map([[KEY, log]]));
  const mv = (id: string): CatalogMovement => ({ id, intersectionKey: KEY }) as CatalogMovement;

  it('is green from Begin Green to Begin Yellow of the mapped phase', () => {
    expect(phaseTimeline(log.events, 2).greens).toEqual([
      { startS: T0, endS: T0 + 30 },
      { startS: T0 + 90, endS: T0 + 120 },
      { startS: T0 + 180, endS: T0 + 210 },
    ]);
    expect(timing(mv('7'), T0 + 10)).toBe(true);
    expect(timing(mv('7'), T0 + 31)).toBe(false); // yellow
    expect(timing(mv('7'), T0 + 50)).toBe(false); // red
    expect(timing(mv('7'), T0 + 95)).toBe(true);
  });

  it('knows nothing outside the log or for a movement the map does not name', () => {
    expect(timing(mv('7'), T0 - 60)).toBeUndefined();
    expect(timing(mv('7'), T0 + 300)).toBeUndefined();
    expect(timing(mv('8'), T0 + 10)).toBeUndefined();
  });
});

describe('split failures', () => {
  it('needs the stop bar occupied through the green and the first 5 s of red', () => {
    const cycles = splitFailures(log, 2);
    // green 1: GOR 1, red from 33 s occupied until 36 s: ROR5 0.6; green 2: occupied 88–130 s
    expect(cycles.map((c) => [c.redStartS - T0, c.gor, c.ror5, c.splitFailure])).toEqual([
      [33, 1, 0.6, false],
      [123, 1, 1, true],
      [213, 0, 0, false],
    ]);
  });
});

describe('Purdue coordination diagram', () => {
  it('places advance-detector and probe arrivals in their cycles', () => {
    const pcd = coordinationDiagram(log, 2, T0, T0 + 300, [T0 + 125, T0 + 185]);
    expect(pcd.cycles.map((c) => [c.startS - T0, c.greenS - T0, c.yellowS - T0, c.endS - T0])).toEqual([
      [33, 90, 120, 123],
      [123, 180, 210, 213],
    ]);
    // detector actuations at 40 s and 90 s reach the stop bar 10 s later (the ones at 5 s and
    // 220 s fall outside any whole cycle)
    expect(pcd.arrivals.map((a) => [a.tS - T0, a.inCycleS, a.onGreen, a.source])).toEqual([
      [50, 17, false, 'detector'],
      [100, 67, true, 'detector'],
      [125, 2, false, 'probe'],
      [185, 62, true, 'probe'],
    ]);
    expect(pcd.percentOnGreen).toBe(50);
  });
});
