/**
 * The vehicles of the analytics tests, on the fixture of `fixture.ts`, with their exact numbers.
 *
 * November 2026 at C (1001), all 36 km/h limits. Every zone runs from 150 m before the stop line
 * (7.25 m before C: half of the 6.5 m crossing road plus 4 m) to 50 m past the far side (7.25 m
 * past C): 214.5 m = 21.45 s of free flow.
 *   A Mon 16 08:00  W→C→E through, stops 40 s at red      travel 61.45  delay 40  stopped
 *   B Mon 16 08:20  W→C→E through at 10 m/s               travel 21.45  delay 0
 *   C Mon 16 09:05  W→C→E through, crawls 200 m at 5 m/s  travel 41.45  delay 20  (not a stop)
 *   F Mon 16 08:50  W→C→S right turn at 10 m/s            travel 21.45  delay 0
 *   D Sat 21 17:40  N→C→E left turn, stops 200 s          travel 221.45 delay 200 stopped (≥ 3 min)
 * January 2027:
 *   E Tue 5 12:00   W→C→E→D→DS at 10 m/s: one fact at C and one at D (1002), no delay
 * Zone entry is 24.275 s after the start, which sets the time bins. Approach speeds (the 150 m
 * before the stop line): 36 km/h, except C's 150 m / 29.275 s = 18.45 km/h.
 */
import type { Trajectory } from '../../src/probes/trajectory.js';
import { buildFixture, makeTrajectory, N, nyS, type Fixture } from './fixture.js';

/** The fixture and the story's trajectories. */
export function buildStory(): { fx: Fixture; trajectories: Trajectory[] } {
  const fx = buildFixture();
  const go = (d: number) => ({ distanceM: d, speedMps: 10 });
  const trajectories = [
    makeTrajectory(fx, 'A', [N.W, N.C, N.E], nyS('2026-11-16T08:00:00'), [go(400), { stopS: 40 }, go(120)]),
    makeTrajectory(fx, 'B', [N.W, N.C, N.E], nyS('2026-11-16T08:20:00'), [go(520)], { withSpeed: true }),
    makeTrajectory(fx, 'C', [N.W, N.C, N.E], nyS('2026-11-16T09:05:00'), [
      go(250),
      { distanceM: 200, speedMps: 5 },
      go(70),
    ]),
    makeTrajectory(fx, 'F', [N.W, N.C, N.S], nyS('2026-11-16T08:50:00'), [go(800)]),
    makeTrajectory(fx, 'D', [N.N, N.C, N.E], nyS('2026-11-21T17:40:00'), [go(400), { stopS: 200 }, go(120)]),
    makeTrajectory(fx, 'E', [N.W, N.C, N.E, N.D, N.DS], nyS('2027-01-05T12:00:00'), [go(640)]),
  ];
  return { fx, trajectories };
}

/** Public ids of the two intersections. */
export const KEY_C = '39.29000_-76.61000';
/** Public id of D (1002). */
export const KEY_D = '39.29000_-76.60837';

/** Public movement id of the movement a→b→c at node b. */
export function movementIdOf(fx: Fixture, a: number, b: number, c: number): string {
  const inEdge = fx.edge(a, b);
  const outEdge = fx.edge(b, c);
  for (const ix of fx.region.intersections) {
    const m = ix.movements.find((x) => x.inEdge === inEdge && x.outEdge === outEdge);
    if (m) return String(m.id);
  }
  throw new Error(`no movement ${a}->${b}->${c}`);
}
