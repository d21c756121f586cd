/**
 * The demo city's roads outside the two street grids: Northern Pkwy, the I 900 freeway with its
 * Center St interchange, express and HOV lanes, Old Mill Rd round the west, and the Harbor Ferry
 * (see docs/demo.md for the sketch).
 */
import {
  DOWNTOWN_SPACING_M,
  FREEWAY_NB_X_M,
  FREEWAY_SB_X_M,
  RIVER_NORTH_Y_M,
  RIVER_SOUTH_Y_M,
  SOUTHPORT_NORTH_Y_M,
  SOUTHPORT_SPACING_M,
} from './layout.js';
import type { OsmDocument, OsmTags } from './osm-document.js';
import { MPH, addStreet } from './street-tags.js';

/** Adds a node at plan position (x, y) metres (with the city's jitter); returns its id. */
export type PlanNode = (x: number, y: number, tags?: OsmTags) => number;

/**
 * The nodes of the roads outside the grids, created in this order (the order fixes the random
 * jitter of every later node, hence the demo city's coordinates).
 */
export function outerNodes(node: PlanNode) {
  const s = DOWNTOWN_SPACING_M;
  const xNb = FREEWAY_NB_X_M;
  const xSb = FREEWAY_SB_X_M;
  const yTop = 1200;
  const ySouthAve = SOUTHPORT_NORTH_Y_M - 2 * SOUTHPORT_SPACING_M;
  const yBridgeN = RIVER_NORTH_Y_M + 10;
  const yBridgeS = RIVER_SOUTH_Y_M - 10;
  const pkwyGrand = node(6 * s, yTop, { highway: 'traffic_signals' });
  const pkwyMid = node(1050, yTop + 15);
  const pkwySb = node(xSb, yTop, { highway: 'traffic_signals' });
  const pkwyNb = node(xNb, yTop);
  const centerWest = node(1340, 3 * s, { highway: 'traffic_signals' });
  const centerEast = node(1460, 3 * s, { highway: 'traffic_signals' });
  const centerEnd = node(1600, 3 * s);
  const southAveSb = node(xSb, ySouthAve, { highway: 'traffic_signals' });
  const southAveNb = node(xNb, ySouthAve);
  const nb = {
    bridgeS: node(xNb, yBridgeS),
    bridgeN: node(xNb, yBridgeN),
    diverge: node(xNb, 3 * s - 200),
    merge: node(xNb, 3 * s + 200),
  };
  const sb = {
    diverge: node(xSb, 3 * s + 200),
    merge: node(xSb, 3 * s - 200),
    bridgeN: node(xSb, yBridgeN),
    bridgeS: node(xSb, yBridgeS),
  };
  const ramps = {
    nbOff: node(1440, 3 * s - 100),
    nbOn: node(1440, 3 * s + 100),
    sbOff: node(1360, 3 * s + 100),
    sbOn: node(1360, 3 * s - 100),
  };
  // express toll lanes (northbound) and an HOV lane (southbound) beside the main carriageways
  // between the Center St interchange and Northern Pkwy
  const expressNb = [node(1440, 700), node(1440, 1100)];
  const hovSb = [node(1360, 1100), node(1360, 700)];
  const oldMill = {
    a: node(-300, s + 5),
    b: node(-600, s),
    bridgeN: node(-600, yBridgeN),
    bridgeS: node(-600, yBridgeS),
    c: node(-600, ySouthAve),
    d: node(-250, ySouthAve),
  };
  const terminalDowntown = node(4 * s, -60, { amenity: 'ferry_terminal', name: 'Downtown Ferry Terminal' });
  const terminalSouthport = node(4 * s, RIVER_SOUTH_Y_M - 30, {
    amenity: 'ferry_terminal',
    name: 'Southport Ferry Terminal',
  });
  const ferry = [node(4 * s - 15, -200), node(4 * s + 15, -400)];
  return {
    pkwy: { grand: pkwyGrand, mid: pkwyMid, sb: pkwySb, nb: pkwyNb },
    center: { west: centerWest, east: centerEast, end: centerEnd },
    southAve: { sb: southAveSb, nb: southAveNb },
    nb,
    sb,
    ramps,
    expressNb,
    hovSb,
    oldMill,
    terminals: { downtown: terminalDowntown, southport: terminalSouthport },
    ferry,
  };
}

/** The nodes `outerNodes` creates. */
export type OuterNodes = ReturnType<typeof outerNodes>;

/** Northern Pkwy, from Grand Ave east to the north end of I 900. */
export function addNorthernPkwy(doc: OsmDocument, o: OuterNodes): void {
  const tags: OsmTags = {
    highway: 'primary',
    name: 'Northern Pkwy',
    maxspeed: MPH(40),
    lanes: '4',
    surface: 'asphalt',
  };
  addStreet(doc, [o.pkwy.grand, o.pkwy.mid, o.pkwy.sb, o.pkwy.nb], [tags, tags, tags], new Set());
}

/** I 900: two carriageways, the river crossing tolled, the Center St ramps, express and HOV lanes. Returns the tolled ways. */
export function addFreeway(doc: OsmDocument, o: OuterNodes): number[] {
  const { nb, sb } = o;
  const fwy: OsmTags = {
    highway: 'motorway',
    name: 'Harbor Expressway',
    ref: 'I 900',
    oneway: 'yes',
    lanes: '3',
    maxspeed: MPH(55),
    surface: 'asphalt',
  };
  const tollBridge: OsmTags = { ...fwy, toll: 'yes', bridge: 'yes', layer: '1', 'bridge:name': 'Harbor Bridge' };
  const tollWays: number[] = [];
  doc.addWay([o.southAve.nb, nb.bridgeS], { ...fwy, 'destination:ref': 'I 900 North' });
  tollWays.push(doc.addWay([nb.bridgeS, nb.bridgeN], tollBridge));
  doc.addWay([nb.bridgeN, nb.diverge, nb.merge, o.pkwy.nb], fwy);
  doc.addWay([o.pkwy.sb, sb.diverge, sb.merge, sb.bridgeN], fwy);
  tollWays.push(doc.addWay([sb.bridgeN, sb.bridgeS], tollBridge));
  doc.addWay([sb.bridgeS, o.southAve.sb], fwy);
  const link = (name: string, dest: string): OsmTags => ({
    highway: 'motorway_link',
    name,
    oneway: 'yes',
    lanes: '1',
    maxspeed: MPH(35),
    destination: dest,
    surface: 'asphalt',
  });
  doc.addWay([nb.diverge, o.ramps.nbOff, o.center.east], link('Center St Exit Ramp', 'Center St'));
  doc.addWay([o.center.east, o.ramps.nbOn, nb.merge], link('I 900 North Ramp', 'Northern Pkwy'));
  doc.addWay([sb.diverge, o.ramps.sbOff, o.center.west], link('Center St Exit Ramp', 'Center St'));
  doc.addWay([o.center.west, o.ramps.sbOn, sb.merge], link('I 900 South Ramp', 'Southport'));
  // Express lanes: tolled for everyone, slightly longer than the main carriageway, so routes use
  // them only with PreferExpress. The HOV lane is for cars with 2+ occupants (PreferCarPool).
  tollWays.push(
    doc.addWay([nb.merge, ...o.expressNb, o.pkwy.nb], {
      ...fwy,
      name: 'Harbor Expressway Express Lanes',
      ref: 'I 900 Express',
      lanes: '2',
      toll: 'yes',
      express: 'yes',
    }),
  );
  doc.addWay([o.pkwy.sb, ...o.hovSb, sb.diverge], {
    ...fwy,
    name: 'Harbor Expressway HOV Lane',
    lanes: '1',
    access: 'no',
    hov: 'designated',
    'hov:minimum': '2',
  });
  return tollWays;
}

/** Old Mill Rd: the toll-free, ferry-free way round, west of downtown, from `from` to `to`. */
export function addOldMillRd(doc: OsmDocument, o: OuterNodes, from: number, to: number): void {
  const mill: OsmTags = {
    highway: 'secondary',
    name: 'Old Mill Rd',
    maxspeed: MPH(35),
    lanes: '2',
    surface: 'asphalt',
  };
  const millBridge: OsmTags = { ...mill, bridge: 'yes', layer: '1', 'bridge:name': 'Old Mill Bridge' };
  const m = o.oldMill;
  addStreet(
    doc,
    [from, m.a, m.b, m.bridgeN, m.bridgeS, m.c, m.d, to],
    [mill, mill, mill, millBridge, mill, mill, mill],
    new Set(),
  );
}

/** The Harbor Ferry and its two landings (from downtown node `north` to Southport node `south`). Returns the ferry way. */
export function addFerry(doc: OsmDocument, o: OuterNodes, north: number, south: number): number {
  const landing: OsmTags = {
    highway: 'unclassified',
    name: 'Ferry Landing',
    maxspeed: MPH(15),
    'parking:lane:both': 'no_stopping',
  };
  doc.addWay([north, o.terminals.downtown], landing);
  const ferryWay = doc.addWay([o.terminals.downtown, ...o.ferry, o.terminals.southport], {
    route: 'ferry',
    name: 'Harbor Ferry',
    operator: 'Port Calvert Ferry Co.',
    motor_vehicle: 'yes',
    motorcar: 'yes',
    foot: 'yes',
    bicycle: 'yes',
    duration: '00:02',
    opening_hours: 'Mo-Su 05:30-23:30',
  });
  doc.addWay([o.terminals.southport, south], landing);
  return ferryWay;
}
