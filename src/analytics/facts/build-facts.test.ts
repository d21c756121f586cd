import { describe, expect, it } from 'vitest';
import { buildFacts, ZONE_DOWNSTREAM_M, ZONE_UPSTREAM_M } from './build-facts.js';
import { slowBetweenPings } from './stops.js';
import { buildFixture, makeTrajectory, N, nyS } from '../../../test/analytics/fixture.js';

// Fixture: W --400-- C --120-- E --20-- D ; C (1001) signalized, D (1002) 140 m east of C.
// 1st Ave crosses C with one lane each way (6.5 m): C's stop lines and far sides lie 7.25 m from C.
const fx = buildFixture();
const t0 = nyS('2026-11-16T08:00:00'); // a Monday
const SETBACK_M = 7.25;

describe('buildFacts', () => {
  it('gives a vehicle stopped 40 s at red a control delay of 40 s', () => {
    const traj = makeTrajectory(fx, 'a', [N.W, N.C, N.E], t0, [
      { distanceM: 400, speedMps: 10 },
      { stopS: 40 },
      { distanceM: 120, speedMps: 10 },
    ]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts).toHaveLength(1);
    const f = facts[0];
    expect(f.intersectionId).toBe(1001);
    expect(f.intersectionKey).toBe('39.29000_-76.61000');
    const mv = fx.region.intersections[0].movements.find((m) => m.id === f.movementId)!;
    expect([mv.inEdge, mv.outEdge, mv.turnType]).toEqual([fx.edge(N.W, N.C), fx.edge(N.C, N.E), 'through']);
    expect(f.zoneLengthM).toBeCloseTo(ZONE_UPSTREAM_M + 2 * SETBACK_M + ZONE_DOWNSTREAM_M, 5);
    expect(f.entryS).toBeCloseTo(t0 + 24.275, 5);
    expect(f.exitS).toBeCloseTo(t0 + 85.725, 5);
    expect(f.travelTimeS).toBeCloseTo(61.45, 5);
    expect(f.freeFlowS).toBeCloseTo(21.45, 5);
    expect(f.controlDelayS).toBeCloseTo(40, 5);
    expect(f.stopped).toBe(true);
    expect(f.stopDurationS).toBeCloseTo(40, 6);
    expect(f.approachSpeedKph).toBeCloseTo(36, 6);
    expect([f.localDay, f.localMinute, f.localDow]).toEqual(['2026-11-16', 8 * 60, 1]);
  });

  it('records a vehicle that goes straight through without delay or stop', () => {
    const traj = makeTrajectory(fx, 'b', [N.W, N.C, N.E], t0, [{ distanceM: 520, speedMps: 10 }], { withSpeed: true });
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.controlDelayS).toBeCloseTo(0, 6);
    expect(f.stopped).toBe(false);
    expect(f.stopDurationS).toBe(0);
  });

  it('does not count a slow crawl as a stop but charges its delay', () => {
    const traj = makeTrajectory(fx, 'c', [N.W, N.C, N.E], t0, [{ distanceM: 520, speedMps: 5 }]);
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.travelTimeS).toBeCloseTo(42.9, 5);
    expect(f.controlDelayS).toBeCloseTo(21.45, 5);
    expect(f.stopped).toBe(false);
    expect(f.approachSpeedKph).toBeCloseTo(18, 5);
  });

  it('ignores a pause shorter than 2 s and counts one of 3 s (reported speeds at 1 s pings)', () => {
    const short = makeTrajectory(
      fx,
      's',
      [N.W, N.C, N.E],
      t0,
      [{ distanceM: 350, speedMps: 10 }, { stopS: 1 }, { distanceM: 170, speedMps: 10 }],
      { withSpeed: true },
    );
    const long = makeTrajectory(
      fx,
      'l',
      [N.W, N.C, N.E],
      t0,
      [{ distanceM: 350, speedMps: 10 }, { stopS: 3 }, { distanceM: 170, speedMps: 10 }],
      { withSpeed: true },
    );
    expect(buildFacts(fx.region, [short])[0].stopped).toBe(false);
    const [f] = buildFacts(fx.region, [long]);
    expect(f.stopped).toBe(true);
    // the pings at 36, 37 and 38 s report 0: 35–38 s is slow (35 s reports 10 m/s, but no ramp at
    // 3 m/s² fits between it and the stop: the vehicle stopped at once), and 0.2 s of the pull-away
    // (ramp steepened 4× to fit 10 m in 1 s: 8 m/s above 2 m/s takes 0.8 s of the second)
    expect(f.stopDurationS).toBeCloseTo(3.2, 5);
    expect(f.controlDelayS).toBeCloseTo(3, 5);
  });

  it('does not clip a zone at the neighbouring intersection', () => {
    // W → C → E → D → DS: D's zone reaches back past C (140 m away); C's zone runs past E
    const traj = makeTrajectory(fx, 'd', [N.W, N.C, N.E, N.D, N.DS], t0, [{ distanceM: 640, speedMps: 10 }]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts.map((f) => f.intersectionId)).toEqual([1001, 1002]);
    expect(facts[0].zoneLengthM).toBeCloseTo(214.5, 5);
    // D: 2nd Ave crosses Main St: stop line 7.25 m before D (540 m), entry 150 m before that; the
    // right turn onto 2nd Ave drives a quarter circle of 7.25 m instead of the 14.5 m of legs
    expect(facts[1].zoneLengthM).toBeCloseTo(200 + (Math.PI / 2) * 7.25, 3);
    expect(facts[1].entryS).toBeCloseTo(t0 + 38.275, 5);
  });

  it('skips a crossing whose zone the trace does not cover', () => {
    // starts 100 m before C: the zone (157.25 m before C) is not covered
    const traj = makeTrajectory(fx, 'e', [N.W, N.C, N.E], t0, [{ distanceM: 520, speedMps: 10 }]);
    traj.traversals[0].coveredFraction = 0.25;
    for (const p of traj.traversals[0].pings) p.offsetM = Math.max(p.offsetM, 300);
    traj.traversals[0].pings = traj.traversals[0].pings.filter((p) => p.offsetM > 300 || p.tS >= t0 + 30);
    expect(buildFacts(fx.region, [traj])).toHaveLength(0);
  });

  it('numbers repeated crossings of one intersection', () => {
    // W → C → N → C → E (a loop back through C)
    const traj = makeTrajectory(fx, 'f', [N.W, N.C, N.N, N.C, N.E], t0, [{ distanceM: 1320, speedMps: 10 }]);
    const facts = buildFacts(fx.region, [traj]).filter((f) => f.intersectionId === 1001);
    expect(facts.map((f) => f.occurrence)).toEqual([0, 1]);
  });
});

describe('stops between 3 s pings', () => {
  // a vehicle slowing from 10 m/s, standing 1 s and pulling away, pinged every 3 s with speeds:
  // second by second 8.5, 5.5, 2.5 m/s, standing, 1.25, 3.75, 6.25, 8.75 m/s (2 s below 2 m/s)
  const stopAndGo = [
    { distanceM: 330, speedMps: 10 },
    { distanceM: 8.5, speedMps: 8.5 },
    { distanceM: 5.5, speedMps: 5.5 },
    { distanceM: 2.5, speedMps: 2.5 },
    { stopS: 1 },
    { distanceM: 1.25, speedMps: 1.25 },
    { distanceM: 3.75, speedMps: 3.75 },
    { distanceM: 6.25, speedMps: 6.25 },
    { distanceM: 8.75, speedMps: 8.75 },
    { distanceM: 153.5, speedMps: 10 },
  ];

  it('finds a short stop whose pings on either side both report more than 2 m/s', () => {
    // pings at 36 s (2.5 m/s, 346.5 m) and 39 s (3.75 m/s, 351.5 m): 5 m in 3 s gives a trough of
    // 1.08 m/s; below 2 m/s: 3 − 0.5/3 − 1.75/2.5 = 2.133 s
    const traj = makeTrajectory(fx, 'g', [N.W, N.C, N.E], t0, stopAndGo, { pingEveryS: 3, withSpeed: true });
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.stopped).toBe(true);
    expect(f.stopDurationS).toBeCloseTo(3 - 0.5 / 3 - 1.75 / 2.5, 5);
  });

  it('does not stop a vehicle that rolls through at 3 m/s', () => {
    const traj = makeTrajectory(
      fx,
      'h',
      [N.W, N.C, N.E],
      t0,
      [
        { distanceM: 330, speedMps: 10 },
        { distanceM: 8.5, speedMps: 8.5 },
        { distanceM: 5.5, speedMps: 5.5 },
        { distanceM: 9, speedMps: 3 },
        { distanceM: 5, speedMps: 5 },
        { distanceM: 7, speedMps: 7 },
        { distanceM: 9, speedMps: 9 },
        { distanceM: 146, speedMps: 10 },
      ],
      { pingEveryS: 3, withSpeed: true },
    );
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.stopped).toBe(false);
    expect(f.stopDurationS).toBe(0);
  });

  it('models the trough speed from the distance between the pings', () => {
    // 4 → 3 m/s in 3 s over 5 m: trough 0.727 m/s held 1 s; below 2 m/s 1 + 1.273/3 + 1.273/2.5 s
    const [slow, fromStart, toEnd] = slowBetweenPings(4, 3, 3, 5);
    expect(slow).toBeCloseTo(1 + (2 - 8 / 11) / 3 + (2 - 8 / 11) / 2.5, 5);
    expect(fromStart).toBeCloseTo(2 / 3, 5);
    expect(toEnd).toBeCloseTo(1 / 2.5, 5);
    // 9 m at a steady 3 m/s: no trough below the ends
    expect(slowBetweenPings(3, 3, 3, 9)[0]).toBe(0);
    // 10 m/s at both ends 3 s apart: a stop cannot fit between them
    expect(slowBetweenPings(10, 10, 3, 5)[0]).toBe(0);
  });
});

describe('zone end points', () => {
  it('places the zone entry 150 m before the stop line and the exit 50 m past the far side', () => {
    const traj = makeTrajectory(fx, 'z', [N.W, N.C, N.E], t0, [{ distanceM: 520, speedMps: 10 }]);
    const [f] = buildFacts(fx.region, [traj]);
    const c = fx.region.intersections[0];
    // Main St runs due east: entry 157.25 m west of C, exit 57.25 m east of C
    const mPerDegLon = 111_195 * Math.cos((c.lat * Math.PI) / 180);
    expect((c.lon - f.zoneStart[1]) * mPerDegLon).toBeCloseTo(150 + SETBACK_M, 0);
    expect((f.zoneEnd[1] - c.lon) * mPerDegLon).toBeCloseTo(50 + SETBACK_M, 0);
    expect(f.zoneStart[0]).toBeCloseTo(c.lat, 6);
  });
});
