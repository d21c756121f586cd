import { describe, it, expect } from 'vitest';
import { parkEventObservations, type SnappedSegment } from './park-events.js';
import type { OccupancyObservation } from './model.js';

// Monday 2026-11-23 03:00 UTC; with offset 0 the On-street weekday profile is 40 % from 03:00 to 04:00
const T = Date.UTC(2026, 10, 23, 3, 0) / 1000;
const seg: SnappedSegment = { segmentID: '77-R1', spacesTotal: 10, offsetAt: () => 0 };
const snap = (lat: number): SnappedSegment | null =>
  lat === 1 ? seg : lat === 2 ? { ...seg, segmentID: '77-L1', spacesTotal: 0 } : null;

describe('park events as segment observations', () => {
  it('adds a car per park-in from the expected count (4 of 10 at 40 %), clamped to the spaces', () => {
    const ev = (parkedOut: boolean, dtS = 0) => ({ lat: 1, lon: 0, parkedOut, observedAtS: T + dtS });
    const obs = parkEventObservations([ev(false), ev(false), ev(false)], snap, new Map());
    expect(obs.map((o) => o.occupied)).toEqual([5, 6, 7]);
    expect(obs[0]).toEqual({
      kind: 'segment',
      targetId: '77-R1',
      observedAtS: T,
      occupied: 5,
      capacity: 10,
      source: 'park_events',
    });
    const full = parkEventObservations(
      Array.from({ length: 9 }, () => ev(false)),
      snap,
      new Map(),
    );
    expect(full.map((o) => o.occupied)).toEqual([5, 6, 7, 8, 9, 10, 10, 10, 10]);
  });
  it('starts from the latest stored observation, decayed to the event time', () => {
    const stored: OccupancyObservation[] = [{ observedAtS: T, occupied: 7, capacity: 10, source: 'operator' }];
    // an hour later: 40 + (70 − 40)·e^(−60/90) = 55.4 % → 6 cars; one leaves → 5
    const obs = parkEventObservations(
      [{ lat: 1, lon: 0, parkedOut: true, observedAtS: T + 3600 }],
      snap,
      new Map([['77-R1', stored]]),
    );
    expect(obs.map((o) => o.occupied)).toEqual([5]);
  });
  it('orders events by time and never goes below zero', () => {
    const stored: OccupancyObservation[] = [{ observedAtS: T, occupied: 1, capacity: 10, source: 'feed' }];
    const obs = parkEventObservations(
      [
        { lat: 1, lon: 0, parkedOut: false, observedAtS: T + 20 },
        { lat: 1, lon: 0, parkedOut: true, observedAtS: T + 10 },
        { lat: 1, lon: 0, parkedOut: true, observedAtS: T + 10 },
      ],
      snap,
      new Map([['77-R1', stored]]),
    );
    expect(obs.map((o) => [o.observedAtS - T, o.occupied])).toEqual([
      [10, 0],
      [10, 0],
      [20, 1],
    ]);
  });
  it('ignores events off every countable curb', () => {
    expect(
      parkEventObservations(
        [
          { lat: 2, lon: 0, parkedOut: false, observedAtS: T },
          { lat: 3, lon: 0, parkedOut: false, observedAtS: T },
        ],
        snap,
        new Map(),
      ),
    ).toEqual([]);
  });
});
