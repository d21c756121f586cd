import { describe, expect, it } from 'vitest';
import { buildFacts } from './build-facts.js';
import { buildFixture, makeTrajectory, N, nyS } from '../../../test/analytics/fixture.js';

// Fixture: W --400-- C --120-- E; C's stop line 7.25 m before C (392.75 m from W), zone from
// 242.75 m to 457.25 m along W → C → E.
const fx = buildFixture();
const t0 = nyS('2026-11-16T08:00:00');

describe('stop count of a crossing', () => {
  it('counts a queue stop and the stop at the line as two stops (1 s pings, reported speeds)', () => {
    const traj = makeTrajectory(
      fx,
      'q',
      [N.W, N.C, N.E],
      t0,
      [
        { distanceM: 330, speedMps: 10 },
        { stopS: 10 },
        { distanceM: 60, speedMps: 5 },
        { stopS: 20 },
        { distanceM: 130, speedMps: 10 },
      ],
      { withSpeed: true },
    );
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.stopCount).toBe(2);
    expect(f.stopped).toBe(true);
  });

  it('counts no stop for a vehicle that keeps moving, and one for a single 3 s stop', () => {
    const through = makeTrajectory(fx, 't', [N.W, N.C, N.E], t0, [{ distanceM: 520, speedMps: 10 }], {
      withSpeed: true,
    });
    const once = makeTrajectory(
      fx,
      'o',
      [N.W, N.C, N.E],
      t0,
      [{ distanceM: 350, speedMps: 10 }, { stopS: 3 }, { distanceM: 170, speedMps: 10 }],
      { withSpeed: true },
    );
    expect(buildFacts(fx.region, [through])[0].stopCount).toBe(0);
    expect(buildFacts(fx.region, [once])[0].stopCount).toBe(1);
  });

  it('does not count a stop that ends before the zone starts', () => {
    // stops 10 s at 200 m, 42.75 m before the zone entry
    const traj = makeTrajectory(
      fx,
      'b',
      [N.W, N.C, N.E],
      t0,
      [{ distanceM: 200, speedMps: 10 }, { stopS: 10 }, { distanceM: 320, speedMps: 10 }],
      { withSpeed: true },
    );
    expect(buildFacts(fx.region, [traj])[0].stopCount).toBe(0);
  });
});
