/**
 * Junctions as a traffic engineer counts them (hand-built OSM-like layouts, `buildCorridor`): the
 * nodes of one physical junction form one intersection with one stop line per approach, and a
 * crossing is assigned to the intersection the vehicle crossed. Roads are 36 km/h (10 m/s), one
 * lane each way unless stated; a crossing of a 6.5 m road puts the stop line 7.25 m before its node.
 */
import { describe, expect, it } from 'vitest';
import { buildFacts, catalogOf } from '../../src/analytics/index.js';
import { RoadClass } from '../../src/network/index.js';
import { buildCorridor } from './corridor.js';
import { makeTrajectory, nyS } from './fixture.js';

const t0 = nyS('2026-11-16T08:00:00');
const SETBACK_M = 7.25;

/**
 *   N1     N2
 *   |      ^
 *   v      |          Boulevard: two one-way carriageways `medianM` apart; a signal on the
 *   W --400-- J1 -m- J2 --300-- E    west one only (J1); J2 is a plain node
 *   |      ^
 *   v      |
 *   S1     S2
 */
function dividedRoad(medianM: number, eastName = 'Boulevard') {
  return buildCorridor(
    {
      W: { x: 0, y: 0 },
      J1: { x: 400, y: 0, signals: true },
      J2: { x: 400 + medianM, y: 0 },
      E: { x: 700 + medianM, y: 0 },
      N1: { x: 400, y: 300 },
      S1: { x: 400, y: -300 },
      S2: { x: 400 + medianM, y: -300 },
      N2: { x: 400 + medianM, y: 300 },
    },
    [
      { from: 'W', to: 'J1', name: 'Main St' },
      { from: 'J1', to: 'J2', name: 'Main St' },
      { from: 'J2', to: 'E', name: 'Main St' },
      { from: 'N1', to: 'J1', name: 'Boulevard', oneway: true, lanes: 2 },
      { from: 'J1', to: 'S1', name: 'Boulevard', oneway: true, lanes: 2 },
      { from: 'S2', to: 'J2', name: eastName, oneway: true, lanes: 2 },
      { from: 'J2', to: 'N2', name: eastName, oneway: true, lanes: 2 },
    ],
  );
}

describe('a divided road with a 38 m median and a signal on one carriageway', () => {
  const fx = dividedRoad(38);
  const { node: n } = fx;
  const catalog = catalogOf(fx.region);

  it('is one signalized intersection', () => {
    const ci = catalog.byNode.get(n.J1)!;
    expect(catalog.byNode.get(n.J2)).toBe(ci);
    expect(ci.nodes).toEqual([n.J1, n.J2]);
    expect(ci.intersection.signalized).toBe(true);
  });

  it('counts a vehicle crossing both carriageways once, from the first stop line to past the second', () => {
    const traj = makeTrajectory(fx, 'a', [n.W, n.J1, n.J2, n.E], t0, [
      { distanceM: 390, speedMps: 10 },
      { stopS: 30 },
      { distanceM: 348, speedMps: 10 },
    ]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts).toHaveLength(1);
    expect(facts[0].zoneLengthM).toBeCloseTo(150 + SETBACK_M + 38 + SETBACK_M + 50, 5);
    expect(facts[0].controlDelayS).toBeCloseTo(30, 5);
  });

  it('keeps the two crossings apart when the median is wider than 45 m', () => {
    const wide = dividedRoad(60);
    const c = catalogOf(wide.region);
    expect(c.byNode.get(wide.node.J2)).not.toBe(c.byNode.get(wide.node.J1));
  });

  it('keeps two one-way streets of different names apart', () => {
    const two = dividedRoad(38, 'Park Ave');
    const c = catalogOf(two.region);
    expect(c.byNode.get(two.node.J2)).not.toBe(c.byNode.get(two.node.J1));
  });
});

/**
 *              SN
 *              |
 *   W --400--- S --gap-- P --300-- E     S: signal; 1st St leaves north at S and south at P
 *                        |
 *                        PS
 */
function offsetLegs(gapM: number, southAtP = true) {
  return buildCorridor(
    {
      W: { x: 0, y: 0 },
      S: { x: 400, y: 0, signals: true },
      P: { x: 400 + gapM, y: 0 },
      E: { x: 700 + gapM, y: 0 },
      SN: { x: 400, y: 200 },
      PS: { x: 400 + gapM, y: southAtP ? -200 : 200 },
    },
    [
      { from: 'W', to: 'S', name: 'Main St' },
      { from: 'S', to: 'P', name: 'Main St' },
      { from: 'P', to: 'E', name: 'Main St' },
      { from: 'SN', to: 'S', name: '1st St' },
      { from: 'P', to: 'PS', name: '1st St' },
    ],
  );
}

describe('offset legs 29 m apart with the signal on one of them', () => {
  const fx = offsetLegs(29);
  const { node: n } = fx;
  const catalog = catalogOf(fx.region);
  const ci = catalog.byNode.get(n.S)!;

  it('is one signalized intersection', () => {
    expect(catalog.byNode.get(n.P)).toBe(ci);
    expect(ci.nodes).toEqual([n.S, n.P]);
    expect(ci.intersection.signalized).toBe(true);
  });

  it('assigns the crossing from one leg to the other, and the main road through both, to it once', () => {
    const across = makeTrajectory(fx, 'x', [n.SN, n.S, n.P, n.PS], t0, [{ distanceM: 429, speedMps: 10 }]);
    const through = makeTrajectory(fx, 't', [n.W, n.S, n.P, n.E], t0, [
      { distanceM: 390, speedMps: 10 },
      { stopS: 20 },
      { distanceM: 339, speedMps: 10 },
    ]);
    const facts = buildFacts(fx.region, [across, through]);
    expect(facts.map((f) => [f.traceId, f.intersectionKey])).toEqual([
      ['x', ci.key],
      ['t', ci.key],
    ]);
    // Main St: from 7.25 m before S (1st St crosses there) to 7.25 m past P, plus 150 m and 50 m
    expect(facts[1].zoneLengthM).toBeCloseTo(150 + SETBACK_M + 29 + SETBACK_M + 50, 5);
    expect(facts[1].controlDelayS).toBeCloseTo(20, 5);
  });

  it('keeps legs 60 m apart, or on the same side, apart', () => {
    const far = offsetLegs(60);
    expect(catalogOf(far.region).byNode.get(far.node.P)).not.toBe(catalogOf(far.region).byNode.get(far.node.S));
    const sameSide = offsetLegs(29, false);
    expect(catalogOf(sameSide.region).byNode.get(sameSide.node.P)).not.toBe(
      catalogOf(sameSide.region).byNode.get(sameSide.node.S),
    );
  });
});

/**
 *                      BN
 *                      |
 *   W ---400--- A -7- B -5- C ---300--- E    signals on A, B and C: Oak St arrives from the
 *               |           ^                north at B and splits into a one-way pair, out
 *               v           |                south at A and in from the south at C
 *               AS          CS
 */
describe('three signal nodes 7–12 m apart', () => {
  const fx = buildCorridor(
    {
      W: { x: 0, y: 0 },
      A: { x: 400, y: 0, signals: true },
      B: { x: 407, y: 0, signals: true },
      C: { x: 412, y: 0, signals: true },
      E: { x: 712, y: 0 },
      AS: { x: 400, y: -100 },
      BN: { x: 407, y: 100 },
      CS: { x: 412, y: -100 },
    },
    [
      { from: 'W', to: 'A', name: 'Main St' },
      { from: 'A', to: 'B', name: 'Main St' },
      { from: 'B', to: 'C', name: 'Main St' },
      { from: 'C', to: 'E', name: 'Main St' },
      { from: 'A', to: 'AS', name: 'Oak St', oneway: true },
      { from: 'BN', to: 'B', name: 'Oak St' },
      { from: 'CS', to: 'C', name: 'Oak St', oneway: true },
    ],
  );
  const { node: n } = fx;

  it('is one intersection, crossed once', () => {
    const catalog = catalogOf(fx.region);
    const ci = catalog.byNode.get(n.A)!;
    expect(ci.nodes).toEqual([n.A, n.B, n.C]);
    const traj = makeTrajectory(fx, 'm', [n.W, n.A, n.B, n.C, n.E], t0, [{ distanceM: 712, speedMps: 10 }]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts.map((f) => f.intersectionKey)).toEqual([ci.key]);
  });
});

/**
 *              AN          BN
 *              |           |
 *   W ---400-- A --gapM-- B ---300--- E     signals on A and B; 1st St crosses at A, 2nd St at B,
 *              |           |                `lanes` lanes each way (a 13 m road with 2: its stop
 *              AS          BS               lines 10.5 m from the node; 6.5 m with 1: 7.25 m)
 */
function twoSignals(gapM: number, lanes: number) {
  return buildCorridor(
    {
      W: { x: 0, y: 0 },
      A: { x: 400, y: 0, signals: true },
      B: { x: 400 + gapM, y: 0, signals: true },
      E: { x: 700 + gapM, y: 0 },
      AN: { x: 400, y: 200 },
      AS: { x: 400, y: -200 },
      BN: { x: 400 + gapM, y: 200 },
      BS: { x: 400 + gapM, y: -200 },
    },
    [
      { from: 'W', to: 'A', name: 'Main St' },
      { from: 'A', to: 'B', name: 'Main St' },
      { from: 'B', to: 'E', name: 'Main St' },
      { from: 'AN', to: 'A', name: '1st St', lanes },
      { from: 'A', to: 'AS', name: '1st St', lanes },
      { from: 'BN', to: 'B', name: '2nd St', lanes },
      { from: 'B', to: 'BS', name: '2nd St', lanes },
    ],
  );
}

describe('two signals along a road: the 30 m is measured between their junction areas', () => {
  it('joins signals 41 m apart node to node on wide cross roads (41 − 10.5 − 10.5 = 20 m of road between)', () => {
    const fx = twoSignals(41, 2);
    const { node: n } = fx;
    const catalog = catalogOf(fx.region);
    const ci = catalog.byNode.get(n.A)!;
    expect(catalog.byNode.get(n.B)).toBe(ci);
    expect(ci.nodes).toEqual([n.A, n.B]);
    // a vehicle through both is one crossing, from 10.5 m before A to 10.5 m past B
    const traj = makeTrajectory(fx, 't', [n.W, n.A, n.B, n.E], t0, [
      { distanceM: 385, speedMps: 10 },
      { stopS: 25 },
      { distanceM: 356, speedMps: 10 },
    ]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts.map((f) => f.intersectionKey)).toEqual([ci.key]);
    expect(facts[0].zoneLengthM).toBeCloseTo(150 + 10.5 + 41 + 10.5 + 50, 5);
    expect(facts[0].controlDelayS).toBeCloseTo(25, 5);
  });

  it('keeps signals 45 m apart on narrow cross roads apart (45 − 7.25 − 7.25 = 30.5 m between)', () => {
    const fx = twoSignals(45, 1);
    const catalog = catalogOf(fx.region);
    expect(catalog.byNode.get(fx.node.B)).not.toBe(catalog.byNode.get(fx.node.A));
    // 41 m on the same narrow roads leaves 26.5 m between the areas: one intersection
    const near = twoSignals(41, 1);
    const c = catalogOf(near.region);
    expect(c.byNode.get(near.node.B)).toBe(c.byNode.get(near.node.A));
  });
});

/**
 *   W ---400--- M ---400--- E          M: a signal with no junction within 30 m (a mid-block
 *                                      pedestrian crossing)
 *
 *   W ---400--- D ---300--- E          D: a signal where a driveway (a `service` road) leaves
 *               |
 *               DS
 */
describe('signals SUMO drops as simple (docs/decisions/044-junction-catalogue-causes.md)', () => {
  it('keeps a mid-block signal as a signalized crossing of its own, crossed through both ways', () => {
    const fx = buildCorridor({ W: { x: 0, y: 0 }, M: { x: 400, y: 0, signals: true }, E: { x: 800, y: 0 } }, [
      { from: 'W', to: 'M', name: 'Main St' },
      { from: 'M', to: 'E', name: 'Main St' },
    ]);
    const { node: n } = fx;
    const ci = catalogOf(fx.region).byNode.get(n.M)!;
    expect(ci.nodes).toEqual([n.M]);
    expect(ci.intersection.signalized).toBe(true);
    expect(ci.intersection.movements.filter((m) => m.turnType === 'through')).toHaveLength(2);
    const traj = makeTrajectory(fx, 'm', [n.W, n.M, n.E], t0, [
      { distanceM: 400, speedMps: 10 },
      { stopS: 15 },
      { distanceM: 400, speedMps: 10 },
    ]);
    const facts = buildFacts(fx.region, [traj]);
    expect(facts.map((f) => f.intersectionKey)).toEqual([ci.key]);
    expect(facts[0].controlDelayS).toBeCloseTo(15, 5);
  });

  it('keeps a signal where a driveway leaves the road as a signalized junction with the driveway as a leg', () => {
    const fx = buildCorridor(
      { W: { x: 0, y: 0 }, D: { x: 400, y: 0, signals: true }, E: { x: 700, y: 0 }, DS: { x: 400, y: -100 } },
      [
        { from: 'W', to: 'D', name: 'Main St' },
        { from: 'D', to: 'E', name: 'Main St' },
        { from: 'D', to: 'DS', name: '', roadClass: RoadClass.service },
      ],
    );
    const { node: n } = fx;
    const ci = catalogOf(fx.region).byNode.get(n.D)!;
    expect(ci.nodes).toEqual([n.D]);
    expect(ci.intersection.signalized).toBe(true);
    // from the driveway onto Main St both ways, and from Main St into it both ways
    expect(ci.intersection.movements.filter((m) => m.turnType === 'left' || m.turnType === 'right')).toHaveLength(4);
  });
});
