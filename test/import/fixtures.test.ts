/**
 * Hand-built OSM fixtures through the whole import pipeline (XML reader → tags → graph →
 * intersections, blocks, lots): each tagging case lands in the region exactly as expected.
 */
import { describe, expect, it } from 'vitest';
import { haversineM } from '../../src/geo/index.js';
import { readOsmExtractFromXml } from '../../src/osm/index.js';
import { buildRegion, EdgeFlag, NodeFlag, RestrictionKind, RoadClass } from '../../src/network/index.js';
import type { Graph, Region } from '../../src/network/index.js';
import { OsmFixture } from './osm-fixture.js';

function regionOf(f: OsmFixture): Region {
  return buildRegion(readOsmExtractFromXml(f.xml()), { name: 'fixture', importedAt: '2026-01-01T00:00:00Z' });
}

/** Dense node id of an OSM node id. */
function nodeOf(g: Graph, osmId: number): number {
  const n = Array.from(g.nodeOsmId).indexOf(osmId);
  if (n < 0) throw new Error(`OSM node ${osmId} is not a graph node`);
  return n;
}

/** Edges made from OSM way `wayId` as [sourceOsm, targetOsm, edgeId]. */
function edgesOfWay(g: Graph, wayId: number): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let e = 0; e < g.edgeCount; e++) {
    if (g.edgeWayId[e] === wayId) out.push([g.nodeOsmId[g.edgeSource[e]], g.nodeOsmId[g.edgeTarget[e]], e]);
  }
  return out;
}

const has = (flags: number, f: number): boolean => (flags & f) !== 0;

describe('oneway variants', () => {
  // row 0:  1 -w100-> 2 <-w101- 3 -w102(rev)-> 4 =w103 motorway=> 5 =w104 (oneway=no)= 6 -w105- 7
  // roundabout w106 (20→21→22→23→20) with approach w107 24—20 and w108 26—24
  const f = new OsmFixture();
  for (let i = 1; i <= 7; i++) f.gridNode(i, 0, i - 1);
  f.gridNode(20, 2, 2)
    .gridNode(21, 2.5, 2.5)
    .gridNode(22, 3, 2)
    .gridNode(23, 2.5, 1.5)
    .gridNode(24, 1, 2)
    .gridNode(26, 0.5, 3);
  f.way(100, [1, 2], { highway: 'residential', oneway: 'yes' })
    .way(101, [2, 3], { highway: 'residential', oneway: '-1' })
    .way(102, [3, 4], { highway: 'residential', oneway: 'reversible' })
    .way(103, [4, 5], { highway: 'motorway' })
    .way(104, [5, 6], { highway: 'motorway', oneway: 'no' })
    .way(105, [6, 7], { highway: 'residential' })
    .way(106, [20, 21, 22, 23, 20], { highway: 'primary', junction: 'roundabout' })
    .way(107, [24, 20], { highway: 'residential' })
    .way(108, [26, 24], { highway: 'residential' });
  const g = regionOf(f).graph;

  it('oneway=yes gives one edge in way order, flagged oneway, without twin', () => {
    const es = edgesOfWay(g, 100);
    expect(es.map(([s, t]) => [s, t])).toEqual([[1, 2]]);
    expect(g.edgeTwin[es[0][2]]).toBe(-1);
    expect(has(g.edgeFlags[es[0][2]], EdgeFlag.oneway)).toBe(true);
  });

  it('oneway=-1 gives one edge against way order', () => {
    expect(edgesOfWay(g, 101).map(([s, t]) => [s, t])).toEqual([[3, 2]]);
  });

  it('oneway=reversible gives one edge flagged reversible and never routable', () => {
    const es = edgesOfWay(g, 102);
    expect(es.map(([s, t]) => [s, t])).toEqual([[3, 4]]);
    expect(has(g.edgeFlags[es[0][2]], EdgeFlag.reversible)).toBe(true);
    expect(has(g.edgeFlags[es[0][2]], EdgeFlag.routable)).toBe(false);
  });

  it('motorway is implied oneway and flagged highway; oneway=no overrides it', () => {
    const m = edgesOfWay(g, 103);
    expect(m.map(([s, t]) => [s, t])).toEqual([[4, 5]]);
    expect(has(g.edgeFlags[m[0][2]], EdgeFlag.highway | EdgeFlag.oneway)).toBe(true);
    expect(g.edgeRoadClass[m[0][2]]).toBe(RoadClass.motorway);
    const two = edgesOfWay(g, 104);
    expect(two.map(([s, t]) => [s, t])).toEqual([
      [5, 6],
      [6, 5],
    ]);
    expect(g.edgeTwin[two[0][2]]).toBe(two[1][2]);
    expect(g.edgeTwin[two[1][2]]).toBe(two[0][2]);
  });

  it('an untagged residential way is two-way with twin edges', () => {
    const es = edgesOfWay(g, 105);
    expect(es.map(([s, t]) => [s, t])).toEqual([
      [6, 7],
      [7, 6],
    ]);
    expect(g.edgeTwin[es[0][2]]).toBe(es[1][2]);
    expect(has(g.edgeFlags[es[0][2]], EdgeFlag.oneway)).toBe(false);
  });

  it('a roundabout is implied oneway in way order, split into two edges at its far node', () => {
    const es = edgesOfWay(g, 106);
    expect(es.map(([s, t]) => [s, t]).sort()).toEqual([
      [20, 22],
      [22, 20],
    ]);
    for (const [, , e] of es) {
      expect(has(g.edgeFlags[e], EdgeFlag.roundabout | EdgeFlag.oneway)).toBe(true);
      expect(g.edgeTwin[e]).toBe(-1);
    }
    // 20 → 21 → 22 : the shape of the first edge passes through node 21
    const e20 = es.find(([s]) => s === 20)![2];
    expect(g.edgeGeomStart[e20 + 1] - g.edgeGeomStart[e20]).toBe(3);
    expect(g.geomLatE7[g.edgeGeomStart[e20] + 1]).toBe(Math.round((39.29 + 2.5 * 0.002) * 1e7));
  });

  it('the roundabout and its approach form the largest strongly connected component', () => {
    for (const w of [106, 107, 108])
      for (const [, , e] of edgesOfWay(g, w)) expect(has(g.edgeFlags[e], EdgeFlag.routable)).toBe(true);
    for (const w of [100, 101, 105])
      for (const [, , e] of edgesOfWay(g, w)) expect(has(g.edgeFlags[e], EdgeFlag.routable)).toBe(false);
  });
});

describe('maxspeed', () => {
  // five separate ways in Baltimore (US: untagged limits default in mph)
  const f = new OsmFixture();
  const ways: Array<[number, Record<string, string>]> = [
    [200, { highway: 'residential', maxspeed: '30 mph' }],
    [201, { highway: 'residential', maxspeed: '50' }],
    [202, { highway: 'motorway', maxspeed: 'none' }],
    [203, { highway: 'residential' }],
    [204, { highway: 'primary', maxspeed: '40 km/h' }],
    [205, { highway: 'primary', 'maxspeed:forward': '35 mph', 'maxspeed:backward': '25 mph' }],
  ];
  ways.forEach(([id, tags], i) => {
    f.gridNode(id * 10, i, 0)
      .gridNode(id * 10 + 1, i, 1)
      .way(id, [id * 10, id * 10 + 1], tags);
  });
  const g = regionOf(f).graph;
  const speed = (w: number): number[] => edgesOfWay(g, w).map(([, , e]) => Math.round(g.edgeSpeedKph[e] * 10) / 10);
  const tagged = (w: number): number => g.edgeSpeedTagged[edgesOfWay(g, w)[0][2]];

  it('parses mph, plain km/h, explicit km/h and none', () => {
    expect(speed(200)).toEqual([48.3, 48.3]);
    expect(speed(201)).toEqual([50, 50]);
    expect(speed(202)).toEqual([140]);
    expect(speed(204)).toEqual([40, 40]);
    expect([tagged(200), tagged(201), tagged(202), tagged(204)]).toEqual([1, 1, 1, 1]);
  });

  it('uses directional maxspeed per edge', () => {
    expect(edgesOfWay(g, 205).map(([s, , e]) => [s, Math.round(g.edgeSpeedKph[e] * 10) / 10])).toEqual([
      [2050, 56.3],
      [2051, 40.2],
    ]);
  });

  it('defaults an untagged US residential street to 25 mph, marked untagged', () => {
    expect(speed(203)).toEqual([40.2, 40.2]);
    expect(tagged(203)).toBe(0);
  });

  it('defaults by country: an untagged residential street in France is 50 km/h, FR:urban is 50 tagged', () => {
    const fr = new OsmFixture(48.85, 2.35)
      .gridNode(1, 0, 0)
      .gridNode(2, 0, 1)
      .gridNode(3, 1, 0)
      .gridNode(4, 1, 1)
      .way(1, [1, 2], { highway: 'residential' })
      .way(2, [3, 4], { highway: 'secondary', maxspeed: 'FR:urban' });
    const r = regionOf(fr);
    expect(r.meta.country).toBe('FR');
    expect(edgesOfWay(r.graph, 1).map(([, , e]) => r.graph.edgeSpeedKph[e])).toEqual([50, 50]);
    expect(edgesOfWay(r.graph, 2).map(([, , e]) => [r.graph.edgeSpeedKph[e], r.graph.edgeSpeedTagged[e]])).toEqual([
      [50, 1],
      [50, 1],
    ]);
  });
});

describe('turn restrictions and movements', () => {
  //            301 (North St)
  //             |
  // 304 ——————— 300 ——————— 303
  // (West St)   |          (East St)
  //            302 (South St)
  // r1: no_left_turn  South St (w310) → West St (w313) via 300
  // r2: only_straight_on East St (w312) → West St (w313) via 300
  const f = new OsmFixture()
    .gridNode(300, 0, 0)
    .gridNode(301, 1, 0)
    .gridNode(302, -1, 0)
    .gridNode(303, 0, 1)
    .gridNode(304, 0, -1)
    .way(310, [302, 300], { highway: 'residential', name: 'South St' })
    .way(311, [300, 301], { highway: 'residential', name: 'North St' })
    .way(312, [303, 300], { highway: 'residential', name: 'East St' })
    .way(313, [300, 304], { highway: 'residential', name: 'West St' })
    .relation(
      1,
      [
        ['way', 310, 'from'],
        ['node', 300, 'via'],
        ['way', 313, 'to'],
      ],
      { type: 'restriction', restriction: 'no_left_turn' },
    )
    .relation(
      2,
      [
        ['way', 312, 'from'],
        ['node', 300, 'via'],
        ['way', 313, 'to'],
      ],
      { type: 'restriction', restriction: 'only_straight_on' },
    );
  const r = regionOf(f);
  const g = r.graph;
  const inEdge = (way: number, fromOsm: number): number => edgesOfWay(g, way).find(([s]) => s === fromOsm)![2];
  const outEdge = (way: number, toOsm: number): number => edgesOfWay(g, way).find(([, t]) => t === toOsm)![2];

  it('maps both restrictions to edge pairs at the via node', () => {
    const via = nodeOf(g, 300);
    const rows = Array.from(g.restrictionFrom).map((from, i) => [
      from,
      g.restrictionVia[i],
      g.restrictionTo[i],
      g.restrictionKind[i],
    ]);
    expect(rows).toEqual([
      [inEdge(310, 302), via, outEdge(313, 304), RestrictionKind.no],
      [inEdge(312, 303), via, outEdge(313, 304), RestrictionKind.only],
    ]);
  });

  it('lists all 16 movements with turn types and the restrictions applied', () => {
    expect(r.intersections).toHaveLength(1);
    const x = r.intersections[0];
    expect(x.id).toBe(300);
    expect(x.name).toBe('East St & North St & South St & West St');
    expect(x.signalized).toBe(false);
    const mv = (inName: string, outName: string): [string, boolean] => {
      const m = x.movements.find((mm) => mm.inName === inName && mm.outName === outName)!;
      return [m.turnType, m.allowed];
    };
    expect(x.movements).toHaveLength(16);
    expect(mv('South St', 'West St')).toEqual(['left', false]);
    expect(mv('South St', 'North St')).toEqual(['through', true]);
    expect(mv('South St', 'East St')).toEqual(['right', true]);
    expect(mv('South St', 'South St')).toEqual(['uturn', true]);
    expect(mv('East St', 'West St')).toEqual(['through', true]);
    expect(mv('East St', 'North St')).toEqual(['right', false]);
    expect(mv('East St', 'South St')).toEqual(['left', false]);
    expect(mv('East St', 'East St')).toEqual(['uturn', false]);
    expect(mv('North St', 'East St')).toEqual(['left', true]);
    expect(x.movements.map((m) => m.id)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    const southToWest = x.movements.find((m) => m.inName === 'South St' && m.outName === 'West St')!;
    expect(southToWest.inHeadingDeg).toBeCloseTo(0, 0);
    expect(southToWest.outHeadingDeg).toBeCloseTo(270, 0);
    expect(southToWest.turnAngleDeg).toBeCloseTo(-90, 0);
  });
});

describe('restriction on a way passing through the via node', () => {
  //            903
  //             |  w910 (Arm St)
  // 901 ——————— 900 ——————— 902     w900 (Long St) runs 901 → 900 → 902
  // no_left_turn Long St → Arm St via 900: eastbound left turn banned, westbound right turn stays allowed
  const f = new OsmFixture()
    .gridNode(900, 0, 0)
    .gridNode(901, 0, -1)
    .gridNode(902, 0, 1)
    .gridNode(903, 1, 0)
    .way(900, [901, 900, 902], { highway: 'residential', name: 'Long St' })
    .way(910, [900, 903], { highway: 'residential', name: 'Arm St' })
    .relation(
      9,
      [
        ['way', 900, 'from'],
        ['node', 900, 'via'],
        ['way', 910, 'to'],
      ],
      { type: 'restriction', restriction: 'no_left_turn' },
    );
  const r = regionOf(f);

  it('bans only the edge pair that is a left turn', () => {
    const g = r.graph;
    expect(g.restrictionFrom.length).toBe(1);
    expect([g.nodeOsmId[g.edgeSource[g.restrictionFrom[0]]], g.nodeOsmId[g.edgeTarget[g.restrictionTo[0]]]]).toEqual([
      901, 903,
    ]);
    const x = r.intersections.find((i) => i.id === 900)!;
    const toArm = x.movements
      .filter((m) => m.outName === 'Arm St' && m.inName === 'Long St')
      .map((m) => [m.turnType, m.allowed])
      .sort();
    expect(toArm).toEqual([
      ['left', false],
      ['right', true],
    ]);
  });
});

describe('ferry and toll', () => {
  // 401 —w400— 402 ~~w410 ferry (5 min)~~ 403 —w420— 404 =w430 toll motorway=> 405
  // 406 ~~w411 ferry without duration~~ 407;  408 ~~w412 foot-only ferry~~ 409
  const f = new OsmFixture()
    .gridNode(401, 0, 0)
    .gridNode(402, 0, 1)
    .gridNode(403, 0, 6)
    .gridNode(404, 0, 7)
    .gridNode(405, 0, 8)
    .gridNode(406, 2, 0)
    .gridNode(407, 2, 3)
    .gridNode(408, 4, 0)
    .gridNode(409, 4, 3)
    .way(400, [401, 402], { highway: 'residential' })
    .way(410, [402, 403], { route: 'ferry', duration: '00:05', name: 'Harbor Ferry' })
    .way(420, [403, 404], { highway: 'residential' })
    .way(430, [404, 405], { highway: 'motorway', toll: 'yes' })
    .way(411, [406, 407], { route: 'ferry' })
    .way(412, [408, 409], { route: 'ferry', motor_vehicle: 'no', foot: 'yes' });
  const g = regionOf(f).graph;

  it('a route=ferry way becomes two ferry edges with speed from its duration', () => {
    const es = edgesOfWay(g, 410);
    expect(es.map(([s, t]) => [s, t])).toEqual([
      [402, 403],
      [403, 402],
    ]);
    const lengthM = haversineM(39.29, -76.6 + 0.002, 39.29, -76.6 + 0.012);
    for (const [, , e] of es) {
      expect(g.edgeRoadClass[e]).toBe(RoadClass.ferry);
      expect(has(g.edgeFlags[e], EdgeFlag.ferry)).toBe(true);
      expect(g.edgeSpeedKph[e]).toBeCloseTo((lengthM / 300) * 3.6, 3);
      expect(g.edgeSpeedTagged[e]).toBe(1);
      expect(g.edgeLengthM[e]).toBeCloseTo(lengthM, 1);
    }
  });

  it('a ferry without duration gets the default 15 km/h; a foot-only ferry is left out', () => {
    expect(edgesOfWay(g, 411).map(([, , e]) => g.edgeSpeedKph[e])).toEqual([15, 15]);
    expect(edgesOfWay(g, 412)).toEqual([]);
  });

  it('toll=yes on a motorway flags the edge toll and highway', () => {
    const es = edgesOfWay(g, 430);
    expect(es).toHaveLength(1);
    expect(g.edgeFlags[es[0][2]] & (EdgeFlag.toll | EdgeFlag.highway | EdgeFlag.ferry)).toBe(
      EdgeFlag.toll | EdgeFlag.highway,
    );
    expect(edgesOfWay(g, 420).every(([, , e]) => !has(g.edgeFlags[e], EdgeFlag.toll))).toBe(true);
  });
});

describe('signals and stop signs', () => {
  // 501 ——— 502 (traffic_signals) ——— 503      511 ——— 512 (stop) ——— 513
  const f = new OsmFixture()
    .gridNode(501, 0, 0)
    .gridNode(502, 0, 1, { highway: 'traffic_signals' })
    .gridNode(503, 0, 2)
    .gridNode(511, 2, 0)
    .gridNode(512, 2, 1, { highway: 'stop' })
    .gridNode(513, 2, 2)
    .way(500, [501, 502, 503], { highway: 'secondary', name: 'Light St' })
    .way(510, [511, 512, 513], { highway: 'residential', name: 'Stop St' });
  const r = regionOf(f);
  const g = r.graph;

  it('splits the way at the signal node and flags it as a signalized intersection', () => {
    expect(edgesOfWay(g, 500).map(([s, t]) => [s, t])).toEqual([
      [501, 502],
      [502, 501],
      [502, 503],
      [503, 502],
    ]);
    expect(g.nodeFlags[nodeOf(g, 502)]).toBe(NodeFlag.trafficSignals | NodeFlag.intersection);
    const x = r.intersections.find((i) => i.id === 502)!;
    expect(x.signalized).toBe(true);
    expect(x.name).toBe('Light St');
    expect(x.movements.map((m) => m.turnType).sort()).toEqual(['through', 'through', 'uturn', 'uturn']);
  });

  it('keeps a stop node as a graph node with the stop flag (not an intersection)', () => {
    expect(g.nodeFlags[nodeOf(g, 512)]).toBe(NodeFlag.stop);
    expect(r.intersections.map((i) => i.id)).toEqual([502]);
  });

  it('keeps a barrier in the middle of a way as a graph node flagged barrier', () => {
    // 541 ——— 542 (barrier=gate) ——— 543
    const t = regionOf(
      new OsmFixture()
        .gridNode(541, 0, 0)
        .gridNode(542, 0, 1, { barrier: 'gate' })
        .gridNode(543, 0, 2)
        .way(540, [541, 542, 543], { highway: 'service' }),
    );
    expect(Array.from(t.graph.nodeOsmId)).toEqual([541, 542, 543]);
    expect(t.graph.nodeFlags[1]).toBe(NodeFlag.barrier);
    expect(t.intersections).toEqual([]);
  });

  it('lends a stop sign mapped just before a junction to that intersection', () => {
    //            532
    //             |
    // 530 — 531(stop, 10 m before) — 533 — 534      (533 is a T junction)
    const t = new OsmFixture()
      .node(530, 39.29, -76.6)
      .node(531, 39.29, -76.59888, { highway: 'stop' })
      .node(533, 39.29, -76.598766)
      .node(534, 39.29, -76.597)
      .node(532, 39.291, -76.598766)
      .way(530, [530, 531, 533, 534], { highway: 'residential', name: 'Main St' })
      .way(531, [533, 532], { highway: 'residential', name: 'Cross St' });
    const tr = regionOf(t);
    const x = tr.intersections.find((i) => i.id === 533)!;
    expect(x.stop).toBe(true);
    expect(x.giveWay).toBe(false);
    expect(tr.intersections.map((i) => i.id)).toEqual([533]);
  });
});

describe('parking lots', () => {
  // 601 ┌──────┐ 602   Harbor Lot (closed way w600)
  // 604 └──────┘ 603
  const f = new OsmFixture()
    .gridNode(601, 1, 0)
    .gridNode(602, 1, 1)
    .gridNode(603, 0, 1)
    .gridNode(604, 0, 0)
    .way(600, [601, 602, 603, 604, 601], {
      amenity: 'parking',
      name: 'Harbor Lot',
      operator: 'ParkCo',
      capacity: '120',
      'capacity:disabled': '4',
      fee: 'yes',
      access: 'customers',
      parking: 'surface',
      opening_hours: '24/7',
      'payment:credit_cards': 'yes',
      'payment:coins': 'no',
      'payment:app': 'yes',
    })
    .gridNode(650, 3, 3, { amenity: 'parking', parking: 'multi-storey', capacity: '300', name: 'Garage' })
    .gridNode(701, 5, 0)
    .gridNode(702, 5, 2)
    .gridNode(703, 6, 2)
    .gridNode(704, 6, 0)
    .way(701, [701, 702, 703])
    .way(702, [703, 704, 701])
    .relation(
      700,
      [
        ['way', 701, 'outer'],
        ['way', 702, 'outer'],
      ],
      { type: 'multipolygon', amenity: 'parking', parking: 'underground' },
    );
  const lots = regionOf(f).lots;

  it('reads a lot polygon with all its attributes, centroid and outline', () => {
    const lot = lots.find((l) => l.osmType === 'way')!;
    expect(lot).toMatchObject({
      id: 6001,
      osmId: 600,
      name: 'Harbor Lot',
      operator: 'ParkCo',
      capacity: 120,
      capacityDisabled: 4,
      fee: 'yes',
      access: 'customers',
      parking: 'surface',
      openingHours: '24/7',
      payment: ['app', 'credit_cards'],
    });
    expect(lot.lat).toBeCloseTo(39.291, 6);
    expect(lot.lon).toBeCloseTo(-76.599, 6);
    expect(lot.outline).toHaveLength(5);
    expect(lot.outline![0]).toEqual([39.292, -76.6]);
    expect(lot.tags['payment:coins']).toBe('no');
  });

  it('reads node lots and assembles multipolygon lots from their outer ways', () => {
    expect(lots.map((l) => [l.id, l.osmType])).toEqual([
      [650, 'node'],
      [6001, 'way'],
      [7002, 'relation'],
    ]);
    const garage = lots[0];
    expect([garage.capacity, garage.parking, garage.outline, garage.fee]).toEqual([300, 'multi-storey', null, null]);
    const mp = lots[2];
    expect(mp.outline).toHaveLength(5);
    expect(mp.lat).toBeCloseTo(39.301, 6);
    expect(mp.lon).toBeCloseTo(-76.598, 6);
    expect(mp.parking).toBe('underground');
  });
});

describe('blocks and curb parking', () => {
  // 801 ——— Curb St (parking:lane:both=parallel) ——— 802
  // 810 <—— Side St (way drawn 811 → 810: left=diagonal ticket 2 h, right=no_stopping) —— 811
  // 820 ——— New St (parking:both=lane, orientation=perpendicular, fee=yes) ——— 821
  const f = new OsmFixture()
    .gridNode(801, 0, 0)
    .gridNode(802, 0, 1)
    .gridNode(810, 2, 0)
    .gridNode(811, 2, 1)
    .gridNode(820, 4, 0)
    .gridNode(821, 4, 0.5)
    .way(800, [801, 802], { highway: 'residential', name: 'Curb St', 'parking:lane:both': 'parallel' })
    .way(801, [811, 810], {
      highway: 'residential',
      name: 'Side St',
      'parking:lane:left': 'diagonal',
      'parking:condition:left': 'ticket',
      'parking:condition:left:maxstay': '2 hours',
      'parking:lane:right': 'no_stopping',
    })
    .way(802, [820, 821], {
      highway: 'residential',
      name: 'New St',
      'parking:both': 'lane',
      'parking:both:orientation': 'perpendicular',
      'parking:both:fee': 'yes',
    });
  const r = regionOf(f);
  const g = r.graph;
  const block = (name: string) => r.blocks.find((b) => b.name === name)!;

  it('a street with parking:lane:both=parallel has parallel curb on both sides, one car per 6 m', () => {
    const b = block('Curb St');
    const len = haversineM(39.29, -76.6, 39.29, -76.598);
    expect(b.lengthM).toBeCloseTo(len, 1);
    expect([g.nodeOsmId[b.fromNode], g.nodeOsmId[b.toNode]]).toEqual([801, 802]);
    expect(b.geometry).toEqual([
      [39.29, -76.6],
      [39.29, -76.598],
    ]);
    expect(b.curb.map((c) => [c.side, c.kind, c.condition, c.startM, c.spaces])).toEqual([
      ['left', 'parallel', '', 0, Math.floor(len / 6)],
      ['right', 'parallel', '', 0, Math.floor(len / 6)],
    ]);
    expect(b.curb[0].endM).toBeCloseTo(len, 1);
    expect(b.curb[0].tags).toEqual({ 'parking:lane:both': 'parallel' });
  });

  it('swaps sides when the block runs against the way, and reads conditions and maxstay', () => {
    const b = block('Side St');
    expect([g.nodeOsmId[b.fromNode], g.nodeOsmId[b.toNode]]).toEqual([810, 811]);
    expect(b.curb.map((c) => [c.side, c.kind, c.condition, c.maxStay, c.spaces])).toEqual([
      ['left', 'no_stopping', '', '', 0],
      ['right', 'diagonal', 'ticket', '2 hours', Math.floor(b.lengthM / 3.5)],
    ]);
  });

  it('reads the 2022 scheme (parking:both=lane + orientation + fee)', () => {
    const b = block('New St');
    expect(b.curb.map((c) => [c.side, c.kind, c.condition, c.spaces])).toEqual([
      ['left', 'perpendicular', 'ticket', Math.floor(b.lengthM / 2.7)],
      ['right', 'perpendicular', 'ticket', Math.floor(b.lengthM / 2.7)],
    ]);
  });

  it('gives every block a distinct stable id', () => {
    const again = regionOf(f);
    expect(again.blocks.map((b) => b.id)).toEqual(r.blocks.map((b) => b.id));
    expect(new Set(r.blocks.map((b) => b.id)).size).toBe(r.blocks.length);
  });
});

describe('blocks end where the street name or the curb rules change', () => {
  // An L-shaped corner: Ashland Ave turns into Water St at node 1003, which joins only these two
  // ways (two distinct neighbours, no signal), so it is not an intersection.
  //
  // 1001 ——— 1002 ——— 1003 (corner)      Ashland Ave w1000 drawn 1001 → 1003:
  //                    |                   both sides parallel, ticket, 2 hours
  //                   1004                 Water St w1001 drawn 1005 → 1003:
  //                    |                   left no_parking, right diagonal
  //                   1005
  const f = new OsmFixture()
    .gridNode(1001, 0, 0)
    .gridNode(1002, 0, 1)
    .gridNode(1003, 0, 2)
    .gridNode(1004, -1, 2)
    .gridNode(1005, -2, 2)
    .way(1000, [1001, 1002, 1003], {
      highway: 'residential',
      name: 'Ashland Ave',
      'parking:lane:both': 'parallel',
      'parking:condition:both': 'ticket',
      'parking:condition:both:maxstay': '2 hours',
    })
    .way(1001, [1005, 1004, 1003], {
      highway: 'tertiary',
      name: 'Water St',
      'parking:lane:left': 'no_parking',
      'parking:lane:right': 'diagonal',
    });
  const r = regionOf(f);
  const g = r.graph;
  const ends = (b: Region['blocks'][number]): number[] =>
    [g.nodeOsmId[b.fromNode], g.nodeOsmId[b.toNode]].sort((x, y) => x - y);
  const curbRows = (b: Region['blocks'][number]) =>
    b.curb.map((c) => [c.side, c.kind, c.condition, c.maxStay, c.startM, c.endM, c.spaces]);

  it('the corner node is not an intersection', () => {
    expect(g.nodeFlags[nodeOf(g, 1003)] & NodeFlag.intersection).toBe(0);
    expect(r.intersections).toEqual([]);
  });

  it('gives each street its own block, named after it, ending at the corner', () => {
    expect(r.blocks.map((b) => [b.name, ends(b)]).sort()).toEqual([
      ['Ashland Ave', [1001, 1003]],
      ['Water St', [1003, 1005]],
    ]);
    const ashland = r.blocks.find((b) => b.name === 'Ashland Ave')!;
    const water = r.blocks.find((b) => b.name === 'Water St')!;
    expect(ashland.lengthM).toBeCloseTo(haversineM(39.29, -76.6, 39.29, -76.596), 1);
    expect(water.lengthM).toBeCloseTo(haversineM(39.29, -76.596, 39.286, -76.596), 1);
    expect(ashland.geometry).toHaveLength(3);
    expect(water.geometry).toHaveLength(3);
    for (const b of [ashland, water]) {
      expect(new Set(b.edges.map((e) => g.edgeWayId[e])).size).toBe(1);
      expect(b.edges.every((e) => g.names[g.edgeNameId[e]] === b.name)).toBe(true);
    }
  });

  it("keeps each street's curb rules on its own block, from 0 to the block length", () => {
    const ashland = r.blocks.find((b) => b.name === 'Ashland Ave')!;
    const a = ashland.lengthM;
    expect(curbRows(ashland)).toEqual([
      ['left', 'parallel', 'ticket', '2 hours', 0, a, Math.floor(a / 6)],
      ['right', 'parallel', 'ticket', '2 hours', 0, a, Math.floor(a / 6)],
    ]);
    const water = r.blocks.find((b) => b.name === 'Water St')!;
    const w = water.lengthM;
    const along = g.nodeOsmId[water.fromNode] === 1005; // block drawn like the way: sides as tagged
    const noParking = ['no_parking', '', '', 0, w, 0];
    const diagonal = ['diagonal', '', '', 0, w, Math.floor(w / 3.5)];
    expect(curbRows(water)).toEqual(
      along
        ? [
            ['left', ...noParking],
            ['right', ...diagonal],
          ]
        : [
            ['left', ...diagonal],
            ['right', ...noParking],
          ],
    );
  });

  it('gives the same block ids on every import', () => {
    const again = regionOf(f);
    expect(again.blocks.map((b) => [b.id, b.name])).toEqual(r.blocks.map((b) => [b.id, b.name]));
    expect(new Set(r.blocks.map((b) => b.id)).size).toBe(2);
  });

  it('joins two ways of one street with the same curb rules into one block with one curb segment per side', () => {
    // 1101 —w1100— 1102 —w1101— 1103: same name and curb, split only by a maxspeed change.
    // 1111 —w1110— 1112 <—w1111 drawn backwards— 1113: sides swapped in the tags, same curb on the ground.
    const s = regionOf(
      new OsmFixture()
        .gridNode(1101, 0, 0)
        .gridNode(1102, 0, 1)
        .gridNode(1103, 0, 2)
        .way(1100, [1101, 1102], {
          highway: 'residential',
          name: 'Long St',
          maxspeed: '25 mph',
          'parking:lane:both': 'parallel',
        })
        .way(1101, [1102, 1103], {
          highway: 'residential',
          name: 'Long St',
          maxspeed: '30 mph',
          'parking:lane:both': 'parallel',
        })
        .gridNode(1111, 2, 0)
        .gridNode(1112, 2, 1)
        .gridNode(1113, 2, 2)
        .way(1110, [1111, 1112], {
          highway: 'residential',
          name: 'Bend St',
          'parking:lane:left': 'parallel',
          'parking:lane:right': 'no_parking',
        })
        .way(1111, [1113, 1112], {
          highway: 'residential',
          name: 'Bend St',
          'parking:lane:left': 'no_parking',
          'parking:lane:right': 'parallel',
        }),
    );
    expect(s.blocks.map((b) => b.name).sort()).toEqual(['Bend St', 'Long St']);
    const long = s.blocks.find((b) => b.name === 'Long St')!;
    expect(long.edges).toHaveLength(2);
    expect(long.curb.map((c) => [c.side, c.kind, c.startM, c.endM, c.spaces])).toEqual([
      ['left', 'parallel', 0, long.lengthM, Math.floor(long.lengthM / 6)],
      ['right', 'parallel', 0, long.lengthM, Math.floor(long.lengthM / 6)],
    ]);
    const bend = s.blocks.find((b) => b.name === 'Bend St')!;
    expect(bend.edges).toHaveLength(2);
    expect(bend.curb.map((c) => [c.kind, c.startM, c.endM]).sort()).toEqual([
      ['no_parking', 0, bend.lengthM],
      ['parallel', 0, bend.lengthM],
    ]);
  });

  it("ends the block where one street's curb rules change between two ways", () => {
    // 1201 —w1200 parallel— 1202 —w1201 no_stopping— 1203, both "Main St"
    const s = regionOf(
      new OsmFixture()
        .gridNode(1201, 0, 0)
        .gridNode(1202, 0, 1)
        .gridNode(1203, 0, 2)
        .way(1200, [1201, 1202], { highway: 'residential', name: 'Main St', 'parking:lane:both': 'parallel' })
        .way(1201, [1202, 1203], { highway: 'residential', name: 'Main St', 'parking:lane:both': 'no_stopping' }),
    );
    const byWay = s.blocks.map((b) => [g2osm(s.graph, b), b.curb.map((c) => c.kind)]).sort();
    expect(byWay).toEqual([
      [
        [1201, 1202],
        ['parallel', 'parallel'],
      ],
      [
        [1202, 1203],
        ['no_stopping', 'no_stopping'],
      ],
    ]);
  });

  it('keeps a tagged capacity whole when a stop node splits the way inside one block', () => {
    // 1301 — 1302 (stop) — 1303, one way with 10 spaces tagged per side
    const s = regionOf(
      new OsmFixture()
        .gridNode(1301, 0, 0)
        .gridNode(1302, 0, 0.4, { highway: 'stop' })
        .gridNode(1303, 0, 1)
        .way(1300, [1301, 1302, 1303], {
          highway: 'residential',
          name: 'Stop St',
          'parking:lane:both': 'parallel',
          'parking:lane:both:capacity': '10',
        }),
    );
    expect(s.blocks).toHaveLength(1);
    const b = s.blocks[0];
    expect(b.edges).toHaveLength(2);
    expect(b.curb.map((c) => [c.side, c.startM, c.endM, c.spaces])).toEqual([
      ['left', 0, b.lengthM, 10],
      ['right', 0, b.lengthM, 10],
    ]);
  });
});

/** OSM ids of a block's end nodes, ascending. */
function g2osm(g: Graph, b: Region['blocks'][number]): number[] {
  return [g.nodeOsmId[b.fromNode], g.nodeOsmId[b.toNode]].sort((x, y) => x - y);
}
