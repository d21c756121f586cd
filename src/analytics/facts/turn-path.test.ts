import { describe, expect, it } from 'vitest';
import { buildFacts } from './build-facts.js';
import { cornerCutM, junctionPathCutM } from './turn-path.js';
import { buildFixture, makeTrajectory, N, nyS } from '../../../test/analytics/fixture.js';

// Fixture: C (Main St & 1st Ave) is a right-angle crossing; stop lines and far sides lie 7.25 m
// from C (half of 1st Ave's or Main St's 6.5 m plus 4 m).
const fx = buildFixture();
const t0 = nyS('2026-11-16T08:00:00');
/** 14.5 m of legs less a quarter circle of radius 7.25 m */
const RIGHT_ANGLE_CUT_M = 14.5 - (Math.PI / 2) * 7.25;

describe('cornerCutM', () => {
  it('replaces the two legs of a right-angle turn by a quarter circle on the shorter leg', () => {
    expect(cornerCutM(90, 7.25, 7.25)).toBeCloseTo(RIGHT_ANGLE_CUT_M, 9);
    expect(cornerCutM(-90, 7.25, 20)).toBeCloseTo(RIGHT_ANGLE_CUT_M, 9);
    // 60°: tangent 6 m, radius 6 / tan 30° = 10.392 m, arc 10.883 m
    expect(cornerCutM(60, 6, 9)).toBeCloseTo(12 - (6 / Math.tan(Math.PI / 6)) * (Math.PI / 3), 9);
  });

  it('saves nothing straight on, without a leg, or on a U-turn', () => {
    expect(cornerCutM(0, 7.25, 7.25)).toBe(0);
    expect(cornerCutM(90, 0, 7.25)).toBe(0);
    expect(cornerCutM(180, 7.25, 7.25)).toBe(0);
  });
});

describe('junctionPathCutM', () => {
  it('cuts the corner of a right turn and nothing on the through path', () => {
    const right = [fx.edge(N.W, N.C), fx.edge(N.C, N.S)];
    const through = [fx.edge(N.W, N.C), fx.edge(N.C, N.E)];
    // the fixture's legs meet at 89.998° (bearings on the sphere)
    expect(junctionPathCutM(fx.graph, right, 7.25, 7.25)).toBeCloseTo(RIGHT_ANGLE_CUT_M, 3);
    expect(junctionPathCutM(fx.graph, through, 7.25, 7.25)).toBeCloseTo(0, 6);
  });
});

describe('buildFacts on a turn', () => {
  it('gives a right-turning vehicle that drives the arc at 10 m/s no delay', () => {
    // W → C → S: 392.75 m to the stop line at 10 m/s, the 14.5 m of legs to the far side in the
    // 1.1388 s the 11.388 m arc takes at 10 m/s, then on at 10 m/s
    const arcS = (14.5 - RIGHT_ANGLE_CUT_M) / 10;
    const traj = makeTrajectory(fx, 'r', [N.W, N.C, N.S], t0, [
      { distanceM: 392.75, speedMps: 10 },
      { distanceM: 14.5, speedMps: 14.5 / arcS },
      { distanceM: 392.75, speedMps: 10 },
    ]);
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.outEdge).toBe(fx.edge(N.C, N.S));
    expect(f.travelTimeS).toBeCloseTo(20 + arcS, 5);
    expect(f.freeFlowS).toBeCloseTo(20 + arcS, 4);
    expect(f.zoneLengthM).toBeCloseTo(200 + 14.5 - RIGHT_ANGLE_CUT_M, 3);
    expect(f.controlDelayS).toBeCloseTo(0, 4);
  });

  it('charges a right-turning vehicle that waits 30 s at the stop line 30 s', () => {
    const arcS = (14.5 - RIGHT_ANGLE_CUT_M) / 10;
    const traj = makeTrajectory(fx, 'w', [N.W, N.C, N.S], t0, [
      { distanceM: 392.75, speedMps: 10 },
      { stopS: 30 },
      { distanceM: 14.5, speedMps: 14.5 / arcS },
      { distanceM: 392.75, speedMps: 10 },
    ]);
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.controlDelayS).toBeCloseTo(30, 4);
  });
});
