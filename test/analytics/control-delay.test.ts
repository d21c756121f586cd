/**
 * Control delay by the standard definition on hand-built streets: the zone runs along the
 * vehicle's path from 150 m before the stop line to 50 m past the far side of the junction,
 * through unsignalized nodes, with one intersection per cluster of signal nodes. All roads are
 * 36 km/h (10 m/s) with one lane each way unless stated, so every stop line lies 7.25 m before its
 * junction node (half of a 6.5 m crossing road plus 4 m) and every zone is 214.5 m long.
 */
import { describe, expect, it } from 'vitest';
import { buildFacts, catalogOf, type Fact } from '../../src/analytics/index.js';
import { buildCorridor } from './corridor.js';
import { makeTrajectory, nyS } from './fixture.js';

const t0 = nyS('2026-11-16T08:00:00');
const SETBACK_M = 7.25;

function only(facts: Fact[], key: string): Fact {
  const f = facts.filter((x) => x.intersectionKey === key);
  expect(f).toHaveLength(1);
  return f[0];
}

describe('a queue spilling back past a close unsignalized node', () => {
  //              UN                SN
  //              |                 |
  //   W --340--- U ------60------- S --200-- E     S: signals; U: unsignalized, 60 m before S
  //              |                 |
  //              US                SS
  const fx = buildCorridor(
    {
      W: { x: 0, y: 0 },
      U: { x: 340, y: 0 },
      S: { x: 400, y: 0, signals: true },
      E: { x: 600, y: 0 },
      UN: { x: 340, y: 100 },
      US: { x: 340, y: -100 },
      SN: { x: 400, y: 100 },
      SS: { x: 400, y: -100 },
    },
    [
      { from: 'W', to: 'U', name: 'Main St' },
      { from: 'U', to: 'S', name: 'Main St' },
      { from: 'S', to: 'E', name: 'Main St' },
      { from: 'UN', to: 'U', name: '1st St' },
      { from: 'U', to: 'US', name: '1st St' },
      { from: 'SN', to: 'S', name: '2nd St' },
      { from: 'S', to: 'SS', name: '2nd St' },
    ],
  );
  const { node: n } = fx;
  const catalog = catalogOf(fx.region);
  const keyS = catalog.byNode.get(n.S)!.key;
  const keyU = catalog.byNode.get(n.U)!.key;
  // queued 100 m before the signal (40 m before U) for 50 s
  const traj = makeTrajectory(fx, 'q', [n.W, n.U, n.S, n.E], t0, [
    { distanceM: 300, speedMps: 10 },
    { stopS: 50 },
    { distanceM: 300, speedMps: 10 },
  ]);
  const facts = buildFacts(fx.region, [traj]);

  it('charges the whole queue to the signal: its zone is not cut at the unsignalized node', () => {
    const f = only(facts, keyS);
    expect(catalog.byKey.get(keyS)!.intersection.signalized).toBe(true);
    expect(f.zoneLengthM).toBeCloseTo(150 + 2 * SETBACK_M + 50, 5);
    expect(f.entryS - t0).toBeCloseTo((400 - SETBACK_M - 150) / 10, 5); // 24.275 s
    expect(f.exitS - t0).toBeCloseTo(80 + (400 + SETBACK_M + 50 - 300) / 10, 5); // 95.725 s
    expect(f.freeFlowS).toBeCloseTo(21.45, 5);
    expect(f.travelTimeS).toBeCloseTo(71.45, 5);
    expect(f.controlDelayS).toBeCloseTo(50, 5);
    expect(f.stopped).toBe(true);
    expect(f.stopDurationS).toBeCloseTo(50, 5);
    // approach speed over the 150 m before the stop line: 150 m in 65 s
    expect(f.approachSpeedKph!).toBeCloseTo((150 / 65) * 3.6, 5);
  });

  it('gives the unsignalized node its own full zone, which holds the same queue', () => {
    const f = only(facts, keyU);
    expect(f.entryS - t0).toBeCloseTo((340 - SETBACK_M - 150) / 10, 5);
    expect(f.controlDelayS).toBeCloseTo(50, 5);
  });
});

describe('a signal 60 m after another', () => {
  //              AN        BN
  //              |         |
  //   W --400--- A ---60-- B --240-- E      A and B: signals, 60 m apart: two intersections
  //              |         |
  //              AS        BS
  const fx = buildCorridor(
    {
      W: { x: 0, y: 0 },
      A: { x: 400, y: 0, signals: true },
      B: { x: 460, y: 0, signals: true },
      E: { x: 700, y: 0 },
      AN: { x: 400, y: 100 },
      AS: { x: 400, y: -100 },
      BN: { x: 460, y: 100 },
      BS: { x: 460, y: -100 },
    },
    [
      { from: 'W', to: 'A', name: 'Main St' },
      { from: 'A', to: 'B', name: 'Main St' },
      { from: 'B', to: 'E', name: 'Main St' },
      { from: 'AN', to: 'A', name: '1st St' },
      { from: 'A', to: 'AS', name: '1st St' },
      { from: 'BN', to: 'B', name: '2nd St' },
      { from: 'B', to: 'BS', name: '2nd St' },
    ],
  );
  const { node: n } = fx;
  const catalog = catalogOf(fx.region);
  const keyA = catalog.byNode.get(n.A)!.key;
  const keyB = catalog.byNode.get(n.B)!.key;
  const path = [n.W, n.A, n.B, n.E];

  it('keeps the two signals apart', () => {
    expect(keyA).not.toBe(keyB);
    expect(catalog.byKey.get(keyA)!.nodes).toEqual([n.A]);
  });

  it('gives each signal its own full zone: a stop at the second lies in both', () => {
    // waits 30 s 10 m before B: 50 m past A's junction, inside A's zone (which ends 57.25 m past A)
    const traj = makeTrajectory(fx, 'b', path, t0, [
      { distanceM: 450, speedMps: 10 },
      { stopS: 30 },
      { distanceM: 250, speedMps: 10 },
    ]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts).toHaveLength(2);
    const a = only(facts, keyA);
    const b = only(facts, keyB);
    expect(a.entryS - t0).toBeCloseTo(24.275, 5);
    expect(a.exitS - t0).toBeCloseTo(75.725, 5);
    expect(a.controlDelayS).toBeCloseTo(30, 5);
    expect(b.entryS - t0).toBeCloseTo(30.275, 5);
    expect(b.exitS - t0).toBeCloseTo(81.725, 5);
    expect(b.controlDelayS).toBeCloseTo(30, 5);
  });

  it('charges a stop at the first signal to the second as well (its zone starts 90 m before the first)', () => {
    const traj = makeTrajectory(fx, 'a', path, t0, [
      { distanceM: 395, speedMps: 10 },
      { stopS: 20 },
      { distanceM: 305, speedMps: 10 },
    ]);
    const facts = buildFacts(fx.region, [traj]);
    expect(only(facts, keyA).controlDelayS).toBeCloseTo(20, 5);
    expect(only(facts, keyB).controlDelayS).toBeCloseTo(20, 5);
  });
});

describe('a dual-carriageway crossing', () => {
  //                 N1    N2
  //                 |     ^
  //                 v     |          Boulevard: two one-way carriageways (2 lanes each), 20 m apart,
  //   W ---400---- J1 -20- J2 ---280--- E      signals on both crossing nodes: one intersection
  //                 |     ^
  //                 v     |
  //                 S1    S2
  const fx = buildCorridor(
    {
      W: { x: 0, y: 0 },
      J1: { x: 400, y: 0, signals: true },
      J2: { x: 420, y: 0, signals: true },
      E: { x: 700, y: 0 },
      N1: { x: 400, y: 300 },
      S1: { x: 400, y: -300 },
      S2: { x: 420, y: -300 },
      N2: { x: 420, y: 300 },
    },
    [
      { from: 'W', to: 'J1', name: 'Main St' },
      { from: 'J1', to: 'J2', name: 'Main St' },
      { from: 'J2', to: 'E', name: 'Main St' },
      { from: 'N1', to: 'J1', name: 'Boulevard', oneway: true, lanes: 2 },
      { from: 'J1', to: 'S1', name: 'Boulevard', oneway: true, lanes: 2 },
      { from: 'S2', to: 'J2', name: 'Boulevard', oneway: true, lanes: 2 },
      { from: 'J2', to: 'N2', name: 'Boulevard', oneway: true, lanes: 2 },
    ],
  );
  const { node: n } = fx;
  const catalog = catalogOf(fx.region);
  const ci = catalog.byNode.get(n.J1)!;

  it('is one signalized intersection with movements across the whole crossing', () => {
    expect(catalog.byNode.get(n.J2)).toBe(ci);
    expect(ci.nodes).toEqual([n.J1, n.J2]);
    expect(ci.intersection.signalized).toBe(true);
    expect(ci.name).toBe('Boulevard & Main St');
    const through = ci.movements.find(
      (m) => m.movement.inEdge === fx.edge(n.W, n.J1) && m.movement.outEdge === fx.edge(n.J2, n.E),
    )!;
    expect(through.turnManeuvers).toBe('T');
    const left = ci.movements.find(
      (m) => m.movement.inEdge === fx.edge(n.W, n.J1) && m.movement.outEdge === fx.edge(n.J2, n.N2),
    )!;
    expect(left.turnManeuvers).toBe('L');
    // no movement ends inside the crossing
    expect(ci.movements.some((m) => m.movement.outEdge === fx.edge(n.J1, n.J2))).toBe(false);
  });

  it('counts a vehicle crossing both carriageways once, from the first stop line to past the second', () => {
    const traj = makeTrajectory(fx, 'd', [n.W, n.J1, n.J2, n.E], t0, [
      { distanceM: 390, speedMps: 10 },
      { stopS: 25 },
      { distanceM: 310, speedMps: 10 },
    ]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts).toHaveLength(1);
    const f = facts[0];
    expect(f.intersectionKey).toBe(ci.key);
    expect([f.inEdge, f.outEdge]).toEqual([fx.edge(n.W, n.J1), fx.edge(n.J2, n.E)]);
    expect(f.zoneLengthM).toBeCloseTo(150 + SETBACK_M + 20 + SETBACK_M + 50, 5); // 234.5 m
    expect(f.entryS - t0).toBeCloseTo(24.275, 5);
    expect(f.exitS - t0).toBeCloseTo(64 + (420 + SETBACK_M + 50 - 390) / 10, 5); // 72.725 s
    expect(f.freeFlowS).toBeCloseTo(23.45, 5);
    expect(f.controlDelayS).toBeCloseTo(25, 5);
  });

  it('ends the zone of a vehicle crossing one carriageway at that carriageway', () => {
    const traj = makeTrajectory(fx, 's', [n.N1, n.J1, n.S1], t0, [{ distanceM: 600, speedMps: 10 }]);
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.intersectionKey).toBe(ci.key);
    expect(f.zoneLengthM).toBeCloseTo(150 + 2 * SETBACK_M + 50, 5);
    expect(f.controlDelayS).toBeCloseTo(0, 5);
  });
});

describe('a crossing with an unsignalized node between its signals', () => {
  //              AN    UN    BN
  //              |     |     |
  //   W --400--- A -12- U -12- B --276-- E     A, B: signals 24 m apart; U: a side street between
  //              |           |
  //              AS          BS
  const fx = buildCorridor(
    {
      W: { x: 0, y: 0 },
      A: { x: 400, y: 0, signals: true },
      U: { x: 412, y: 0 },
      B: { x: 424, y: 0, signals: true },
      E: { x: 700, y: 0 },
      AN: { x: 400, y: 100 },
      AS: { x: 400, y: -100 },
      UN: { x: 412, y: 100 },
      BN: { x: 424, y: 100 },
      BS: { x: 424, y: -100 },
    },
    [
      { from: 'W', to: 'A', name: 'Main St' },
      { from: 'A', to: 'U', name: 'Main St' },
      { from: 'U', to: 'B', name: 'Main St' },
      { from: 'B', to: 'E', name: 'Main St' },
      { from: 'AN', to: 'A', name: '1st St' },
      { from: 'A', to: 'AS', name: '1st St' },
      { from: 'UN', to: 'U', name: 'Alley' },
      { from: 'BN', to: 'B', name: '2nd St' },
      { from: 'B', to: 'BS', name: '2nd St' },
    ],
  );
  const { node: n } = fx;

  it('takes the node between the signals into the intersection', () => {
    const ci = catalogOf(fx.region).byNode.get(n.A)!;
    expect(ci.nodes).toEqual([n.A, n.U, n.B]);
    const traj = makeTrajectory(fx, 'u', [n.W, n.A, n.U, n.B, n.E], t0, [{ distanceM: 700, speedMps: 10 }]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts).toHaveLength(1);
    expect(facts[0].zoneLengthM).toBeCloseTo(150 + SETBACK_M + 24 + SETBACK_M + 50, 5);
  });
});

describe('a side street next to a signal', () => {
  // W --- U --- S --- E: S signalized; U a side street 10 m (or 20 m) before S. Each junction's
  // crossing area reaches 7.25 m from its node: at 10 m they overlap, at 20 m they do not.
  const layout = (gapM: number) =>
    buildCorridor(
      {
        W: { x: 0, y: 0 },
        U: { x: 400 - gapM, y: 0 },
        S: { x: 400, y: 0, signals: true },
        E: { x: 600, y: 0 },
        UN: { x: 400 - gapM, y: 100 },
        SN: { x: 400, y: 100 },
        SS: { x: 400, y: -100 },
      },
      [
        { from: 'W', to: 'U', name: 'Main St' },
        { from: 'U', to: 'S', name: 'Main St' },
        { from: 'S', to: 'E', name: 'Main St' },
        { from: 'UN', to: 'U', name: 'Alley' },
        { from: 'SN', to: 'S', name: '2nd St' },
        { from: 'S', to: 'SS', name: '2nd St' },
      ],
    );

  it('belongs to the signalized junction when their crossing areas overlap', () => {
    const fx = layout(10);
    expect(catalogOf(fx.region).byNode.get(fx.node.S)!.nodes).toEqual([fx.node.U, fx.node.S]);
  });

  it('stays a junction of its own 20 m away', () => {
    const fx = layout(20);
    expect(catalogOf(fx.region).byNode.get(fx.node.S)!.nodes).toEqual([fx.node.S]);
  });
});

describe('a signal mapped on the approach', () => {
  //                      JN
  //                      |
  //   W ---388--- P -12- J ---200--- E      P: traffic signal 12 m before the junction J
  //                      |
  //                      JS
  const fx = buildCorridor(
    {
      W: { x: 0, y: 0 },
      P: { x: 388, y: 0, signals: true },
      J: { x: 400, y: 0 },
      E: { x: 600, y: 0 },
      JN: { x: 400, y: 100 },
      JS: { x: 400, y: -100 },
    },
    [
      { from: 'W', to: 'P', name: 'Main St' },
      { from: 'P', to: 'J', name: 'Main St' },
      { from: 'J', to: 'E', name: 'Main St' },
      { from: 'JN', to: 'J', name: '1st St' },
      { from: 'J', to: 'JS', name: '1st St' },
    ],
  );
  const { node: n } = fx;

  it('makes the junction signalized and puts the stop line at the signal', () => {
    const ci = catalogOf(fx.region).byNode.get(n.J)!;
    expect(ci.nodes).toEqual([n.P, n.J]);
    expect(ci.junctionNodes).toEqual([n.J]);
    expect(ci.intersection.signalized).toBe(true);
    const traj = makeTrajectory(fx, 'p', [n.W, n.P, n.J, n.E], t0, [
      { distanceM: 388, speedMps: 10 },
      { stopS: 20 },
      { distanceM: 212, speedMps: 10 },
    ]);
    const [f] = buildFacts(fx.region, [traj]);
    expect(f.entryS - t0).toBeCloseTo(23.8, 5); // 150 m before the signal
    expect(f.zoneLengthM).toBeCloseTo(150 + 12 + SETBACK_M + 50, 5);
    expect(f.controlDelayS).toBeCloseTo(20, 5);
  });
});

describe('stops, arrivals on green and noisy positions', () => {
  // W --400-- S --200-- E, S signalized with a cross street
  const fx = buildCorridor(
    {
      W: { x: 0, y: 0 },
      S: { x: 400, y: 0, signals: true },
      E: { x: 600, y: 0 },
      SN: { x: 400, y: 100 },
      SS: { x: 400, y: -100 },
    },
    [
      { from: 'W', to: 'S', name: 'Main St' },
      { from: 'S', to: 'E', name: 'Main St' },
      { from: 'SN', to: 'S', name: '2nd St' },
      { from: 'S', to: 'SS', name: '2nd St' },
    ],
  );
  const { node: n } = fx;
  const path = [n.W, n.S, n.E];

  it('counts a stop below 2 m/s for 2 s or more, and no stop at 2.5 m/s', () => {
    const crawl = makeTrajectory(
      fx,
      'c',
      path,
      t0,
      [
        { distanceM: 380, speedMps: 10 },
        { distanceM: 6, speedMps: 1.5 },
        { distanceM: 214, speedMps: 10 },
      ],
      { withSpeed: true },
    );
    const roll = makeTrajectory(
      fx,
      'r',
      path,
      t0,
      [
        { distanceM: 380, speedMps: 10 },
        { distanceM: 10, speedMps: 2.5 },
        { distanceM: 210, speedMps: 10 },
      ],
      { withSpeed: true },
    );
    const [c] = buildFacts(fx.region, [crawl]);
    const [r] = buildFacts(fx.region, [roll]);
    expect(c.stopped).toBe(true);
    // reported 1.5 m/s from the ping at 39 s to the one at 42 s, and 1/17 s on either side: the
    // drop from 10 to 1.5 m/s (instant here) is taken as a ramp, steepened to fit the second, whose
    // part below 2 m/s is 0.5 of its 8.5 m/s
    expect(c.stopDurationS).toBeCloseTo(3 + 2 / 17, 5);
    expect(c.controlDelayS).toBeCloseTo(4 - 0.6, 5);
    expect(r.stopped).toBe(false);
    expect(r.controlDelayS).toBeCloseTo(4 - 1, 5);
  });

  it('reports arrival on green from the signal timing at the free-flow arrival at the stop line', () => {
    // green from 08:01:00 on; a free-flowing vehicle reaches the stop line (392.75 m) at 39.275 s
    const timing = (_m: unknown, tS: number): boolean => tS >= t0 + 60;
    const early = makeTrajectory(fx, 'e', path, t0, [{ distanceM: 600, speedMps: 10 }]);
    const late = makeTrajectory(fx, 'l', path, t0 + 30, [{ distanceM: 600, speedMps: 10 }]);
    const [e, l] = buildFacts(fx.region, [early, late], { signalTiming: timing });
    expect(e.arrivalS! - t0).toBeCloseTo(39.275, 5);
    expect(e.arrivedOnGreen).toBe(false);
    expect(l.arrivedOnGreen).toBe(true);
    expect(buildFacts(fx.region, [early])[0].arrivedOnGreen).toBeNull();
  });

  it('places a standing vehicle at the mean of its jittering positions, not at their maximum', () => {
    // waits 60 s at 455 m (55 m past S, 2.25 m before the zone end at 457.25 m) in a queue of the
    // next signal; its pings jitter ±4 m along the road while it stands
    const phases = [{ distanceM: 455, speedMps: 10 }, { stopS: 60 }, { distanceM: 145, speedMps: 10 }];
    const clean = makeTrajectory(fx, 'n', path, t0, phases);
    const noisy = makeTrajectory(fx, 'n', path, t0, phases);
    let k = 0;
    for (const p of noisy.traversals[1].pings)
      if (p.offsetM === 55 && p.tS > t0 + 45.5) p.offsetM += k++ % 2 === 0 ? 4 : -4;
    expect(k).toBe(60);
    const [fc] = buildFacts(fx.region, [clean]);
    const [fn] = buildFacts(fx.region, [noisy]);
    expect(fc.exitS - t0).toBeCloseTo(105.45, 5); // between the last standing ping (455 m at 105 s) and 460 m at 106 s
    expect(fn.exitS).toBeCloseTo(fc.exitS, 5);
    expect(fn.controlDelayS).toBeCloseTo(fc.controlDelayS, 5);
    expect(fc.controlDelayS).toBeCloseTo(105.45 - 24.275 - 21.45, 5);
  });
});
