/**
 * The road network of the demo city, written into an OSM document with real OSM tags.
 *
 * Plan (x metres east, y metres north; see docs/demo.md for the full sketch):
 *   - downtown: 9 × 9 streets, 120 m apart (x, y ∈ 0..960), signals where two non-residential
 *     streets cross, all-way stops where two residential streets cross (not at the grid's corners),
 *     a north–south one-way couplet (Calvert St ↑ / Dover St ↓) and an east–west one
 *     (Lombard St → / Pratt St ←);
 *   - Grand Ave (primary) runs north to Northern Pkwy, which meets the north end of I 900;
 *   - Center St runs east over the freeway (diamond interchange with four ramps);
 *   - I 900 "Harbor Expressway": two one-way carriageways (x = 1385 / 1415) from Northern Pkwy
 *     down to Southport Ave, crossing the river on the tolled Harbor Bridge, with tolled express
 *     lanes (northbound) and an HOV lane (southbound) north of Center St;
 *   - Harbor Ferry from the foot of Eutaw St across the river to Southport;
 *   - Old Mill Rd: the long free way round, west of downtown over the Old Mill Bridge;
 *   - Southport: a 5 × 4 residential grid south of the river with stop and give-way signs.
 */
import type { Prng } from './prng.js';
import type { OsmDocument, OsmTags } from './osm-document.js';
import {
  DOWNTOWN_BLOCKS,
  DOWNTOWN_SPACING_M,
  FREEWAY_NB_X_M,
  FREEWAY_SB_X_M,
  RIVER_NORTH_Y_M,
  RIVER_SOUTH_Y_M,
  SOUTHPORT_NORTH_Y_M,
  SOUTHPORT_SPACING_M,
  SOUTHPORT_WEST_X_M,
  toLatLon,
} from './layout.js';

/** Role of a downtown street, which decides its class, direction, signals and curb rules. */
type StreetKind = 'primary' | 'secondary' | 'tertiary' | 'residential' | 'couplet';

interface GridStreet {
  name: string;
  kind: StreetKind;
  /** couplets only: +1 = one-way towards increasing x/y (north or east), -1 = the other way */
  dir?: 1 | -1;
}

/** North–south downtown streets, west to east (x = 120 m × index). */
export const DOWNTOWN_NS_STREETS: readonly GridStreet[] = [
  { name: 'Ashland Ave', kind: 'residential' },
  { name: 'Bayard St', kind: 'tertiary' },
  { name: 'Calvert St', kind: 'couplet', dir: 1 },
  { name: 'Dover St', kind: 'couplet', dir: -1 },
  { name: 'Eutaw St', kind: 'tertiary' },
  { name: 'Fulton Ave', kind: 'residential' },
  { name: 'Grand Ave', kind: 'primary' },
  { name: 'Hanover St', kind: 'tertiary' },
  { name: 'Irving Ave', kind: 'residential' },
];

/** East–west downtown streets, south to north (y = 120 m × index). */
export const DOWNTOWN_EW_STREETS: readonly GridStreet[] = [
  { name: 'Water St', kind: 'tertiary' },
  { name: 'Market St', kind: 'secondary' },
  { name: 'Mill St', kind: 'residential' },
  { name: 'Center St', kind: 'secondary' },
  { name: 'Court St', kind: 'residential' },
  { name: 'Lombard St', kind: 'couplet', dir: 1 },
  { name: 'Pratt St', kind: 'couplet', dir: -1 },
  { name: 'Park St', kind: 'tertiary' },
  { name: 'Ridge St', kind: 'residential' },
];

/** North–south Southport streets, west to east. */
export const SOUTHPORT_NS_STREETS: readonly string[] = ['Alder St', 'Birch St', 'Cedar St', 'Dogwood St', 'Elm St'];
/** East–west Southport streets, north to south. */
export const SOUTHPORT_EW_STREETS: readonly string[] = ['Shore Rd', 'Harbor View Rd', 'Southport Ave', 'Linden Ln'];

/** OSM ids of the notable elements of the network (for tests and the summary). */
export interface RoadNetwork {
  /** the two ferry terminal node ids (downtown, Southport) */
  ferryTerminals: [number, number];
  /** way id of the ferry route */
  ferryWay: number;
  /** way ids carrying toll=yes */
  tollWays: number[];
  /** relation ids of the turn restrictions, by restriction value */
  restrictions: Record<string, number>;
}

/** Maximum random displacement of a road node from its planned position, metres. */
const JITTER_M = 3;

const MPH = (n: number): string => `${n} mph`;

/** Adds every road, the ferry, the river and the turn restrictions of the demo city to `doc`. */
export function buildRoadNetwork(doc: OsmDocument, rng: Prng): RoadNetwork {
  const node = (x: number, y: number, tags: OsmTags = {}): number => {
    const [lat, lon] = toLatLon(x + rng.float(-JITTER_M, JITTER_M), y + rng.float(-JITTER_M, JITTER_M));
    return doc.addNode(lat, lon, tags);
  };
  const n = DOWNTOWN_BLOCKS + 1;
  const s = DOWNTOWN_SPACING_M;

  // Downtown intersections with their traffic control (the four grid corners are mere bends).
  const isCorner = (i: number, j: number): boolean => (i === 0 || i === n - 1) && (j === 0 || j === n - 1);
  const downtown: number[][] = [];
  for (let i = 0; i < n; i++) {
    downtown.push([]);
    for (let j = 0; j < n; j++) {
      const ns = DOWNTOWN_NS_STREETS[i].kind === 'residential';
      const ew = DOWNTOWN_EW_STREETS[j].kind === 'residential';
      let tags: OsmTags = {};
      if (!ns && !ew) tags = { highway: 'traffic_signals' };
      else if (ns && ew && !isCorner(i, j)) tags = { highway: 'stop', stop: 'all' };
      downtown[i].push(node(i * s, j * s, tags));
    }
  }

  // Southport intersections: stop signs on the side streets at Southport Ave, a signal where
  // Old Mill Rd comes in, give-way signs at four quieter crossings.
  const southport: number[][] = [];
  for (let a = 0; a < SOUTHPORT_NS_STREETS.length; a++) {
    southport.push([]);
    for (let b = 0; b < SOUTHPORT_EW_STREETS.length; b++) {
      let tags: OsmTags = {};
      if (b === 2) tags = a === 0 ? { highway: 'traffic_signals' } : { highway: 'stop' };
      else if ((a === 1 || a === 3) && (b === 1 || b === 3)) tags = { highway: 'give_way' };
      southport[a].push(
        node(SOUTHPORT_WEST_X_M + a * SOUTHPORT_SPACING_M, SOUTHPORT_NORTH_Y_M - b * SOUTHPORT_SPACING_M, tags),
      );
    }
  }

  // Nodes of the roads outside the grids.
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
  const rampNbOff = node(1440, 3 * s - 100);
  const rampNbOn = node(1440, 3 * s + 100);
  const rampSbOff = node(1360, 3 * s + 100);
  const rampSbOn = node(1360, 3 * s - 100);
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
  const ferryA = node(4 * s - 15, -200);
  const ferryB = node(4 * s + 15, -400);

  // The split nodes force way ends where turn restrictions need them (from/to ways must start
  // or end at the via node, as OSM requires).
  const viaNoLeft = downtown[6][3];
  const viaOnlyStraight = downtown[6][5];
  const viaNoRight = downtown[3][1];
  const splitAt = new Set([viaNoLeft, viaOnlyStraight, viaNoRight]);

  // Downtown north–south streets (Grand Ave continues north to Northern Pkwy).
  const nsWays: number[][] = [];
  for (let i = 0; i < n; i++) {
    const st = DOWNTOWN_NS_STREETS[i];
    const ids = downtown[i].slice();
    if (st.dir === -1) ids.reverse();
    if (st.name === 'Grand Ave') ids.push(pkwyGrand);
    const seg = ids.slice(1).map((_, k) => ({ ...downtownTags(st, 'ns'), ...curbTags(st, k) }));
    nsWays.push(addStreet(doc, ids, seg, splitAt));
  }
  // Downtown east–west streets (Center St continues east over the freeway).
  const ewWays: number[][] = [];
  for (let j = 0; j < n; j++) {
    const st = DOWNTOWN_EW_STREETS[j];
    const ids = downtown.map((col) => col[j]);
    if (st.dir === -1) ids.reverse();
    const seg = ids.slice(1).map((_, k) => ({ ...downtownTags(st, 'ew'), ...curbTags(st, k) }));
    if (st.name === 'Center St') {
      const base = downtownTags(st, 'ew');
      ids.push(centerWest, centerEast, centerEnd);
      seg.push({ ...base, maxspeed: MPH(35), 'parking:lane:both': 'no_stopping' });
      seg.push({ ...base, maxspeed: MPH(35), bridge: 'yes', layer: '1', 'parking:lane:both': 'no_stopping' });
      seg.push({ ...base, maxspeed: MPH(35), lanes: '2', 'parking:lane:both': 'no_parking' });
    }
    ewWays.push(addStreet(doc, ids, seg, splitAt));
  }

  const pkwyTags: OsmTags = {
    highway: 'primary',
    name: 'Northern Pkwy',
    maxspeed: MPH(40),
    lanes: '4',
    surface: 'asphalt',
  };
  addStreet(doc, [pkwyGrand, pkwyMid, pkwySb, pkwyNb], [pkwyTags, pkwyTags, pkwyTags], new Set());

  // I 900: two carriageways, the river crossing tolled.
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
  doc.addWay([southAveNb, nb.bridgeS], { ...fwy, 'destination:ref': 'I 900 North' });
  tollWays.push(doc.addWay([nb.bridgeS, nb.bridgeN], tollBridge));
  doc.addWay([nb.bridgeN, nb.diverge, nb.merge, pkwyNb], fwy);
  doc.addWay([pkwySb, sb.diverge, sb.merge, sb.bridgeN], fwy);
  tollWays.push(doc.addWay([sb.bridgeN, sb.bridgeS], tollBridge));
  doc.addWay([sb.bridgeS, southAveSb], fwy);
  const link = (name: string, dest: string): OsmTags => ({
    highway: 'motorway_link',
    name,
    oneway: 'yes',
    lanes: '1',
    maxspeed: MPH(35),
    destination: dest,
    surface: 'asphalt',
  });
  doc.addWay([nb.diverge, rampNbOff, centerEast], link('Center St Exit Ramp', 'Center St'));
  doc.addWay([centerEast, rampNbOn, nb.merge], link('I 900 North Ramp', 'Northern Pkwy'));
  doc.addWay([sb.diverge, rampSbOff, centerWest], link('Center St Exit Ramp', 'Center St'));
  doc.addWay([centerWest, rampSbOn, sb.merge], link('I 900 South Ramp', 'Southport'));
  // Express lanes: tolled for everyone, slightly longer than the main carriageway, so routes use
  // them only with PreferExpress. The HOV lane is for cars with 2+ occupants (PreferCarPool).
  tollWays.push(
    doc.addWay([nb.merge, ...expressNb, pkwyNb], {
      ...fwy,
      name: 'Harbor Expressway Express Lanes',
      ref: 'I 900 Express',
      lanes: '2',
      toll: 'yes',
      express: 'yes',
    }),
  );
  doc.addWay([pkwySb, ...hovSb, sb.diverge], {
    ...fwy,
    name: 'Harbor Expressway HOV Lane',
    lanes: '1',
    access: 'no',
    hov: 'designated',
    'hov:minimum': '2',
  });

  // Old Mill Rd: the toll-free, ferry-free way round, west of downtown.
  const mill: OsmTags = {
    highway: 'secondary',
    name: 'Old Mill Rd',
    maxspeed: MPH(35),
    lanes: '2',
    surface: 'asphalt',
  };
  const millBridge: OsmTags = { ...mill, bridge: 'yes', layer: '1', 'bridge:name': 'Old Mill Bridge' };
  addStreet(
    doc,
    [downtown[0][1], oldMill.a, oldMill.b, oldMill.bridgeN, oldMill.bridgeS, oldMill.c, oldMill.d, southport[0][2]],
    [mill, mill, mill, millBridge, mill, mill, mill],
    new Set(),
  );

  // The ferry and the two landings.
  const landing: OsmTags = {
    highway: 'unclassified',
    name: 'Ferry Landing',
    maxspeed: MPH(15),
    'parking:lane:both': 'no_stopping',
  };
  doc.addWay([downtown[4][0], terminalDowntown], landing);
  const ferryWay = doc.addWay([terminalDowntown, ferryA, ferryB, terminalSouthport], {
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
  doc.addWay([terminalSouthport, southport[2][0]], landing);

  // Southport streets.
  for (let a = 0; a < SOUTHPORT_NS_STREETS.length; a++) {
    const tags: OsmTags = {
      highway: 'residential',
      name: SOUTHPORT_NS_STREETS[a],
      maxspeed: MPH(25),
      'parking:lane:both': 'parallel',
      'parking:condition:both': 'residents',
      'parking:condition:both:residents': 'SP',
    };
    addStreet(
      doc,
      southport[a],
      southport[a].slice(1).map(() => tags),
      new Set(),
    );
  }
  for (let b = 0; b < SOUTHPORT_EW_STREETS.length; b++) {
    const ids = southport.map((col) => col[b]);
    const tags = southportEwTags(SOUTHPORT_EW_STREETS[b]);
    const seg = ids.slice(1).map(() => tags);
    if (b === 2) {
      ids.push(southAveSb, southAveNb);
      const east: OsmTags = { ...tags, maxspeed: MPH(35), 'parking:lane:both': 'no_stopping' };
      delete east['parking:condition:both'];
      delete east['parking:condition:both:maxstay'];
      delete east['parking:condition:both:charge'];
      seg.push(east, east);
    }
    addStreet(doc, ids, seg, new Set());
  }

  // The river (an area; not part of the road network).
  const river = [
    [-1200, RIVER_NORTH_Y_M],
    [2200, RIVER_NORTH_Y_M],
    [2200, RIVER_SOUTH_Y_M],
    [-1200, RIVER_SOUTH_Y_M],
  ].map(([x, y]) => doc.addNode(...toLatLon(x, y)));
  doc.addWay([...river, river[0]], { natural: 'water', water: 'river', name: 'Calvert River' });

  // Turn restrictions (from way, via node, to way).
  const restrictions: Record<string, number> = {};
  const restriction = (kind: string, from: number, via: number, to: number): void => {
    restrictions[kind] = doc.addRelation(
      [
        { type: 'way', ref: from, role: 'from' },
        { type: 'node', ref: via, role: 'via' },
        { type: 'way', ref: to, role: 'to' },
      ],
      { type: 'restriction', restriction: kind },
    );
  };
  // (street ways are indexed by segment: nsWays[i][k] is the way of segment k of N–S street i)
  // Grand Ave northbound may not turn left (west) into Center St.
  restriction('no_left_turn', nsWays[6][2], viaNoLeft, ewWays[3][5]);
  // Lombard St eastbound must go straight across Grand Ave.
  restriction('only_straight_on', ewWays[5][5], viaOnlyStraight, ewWays[5][6]);
  // Market St eastbound may not turn right (south) into Dover St (listed north to south).
  restriction('no_right_turn', ewWays[1][2], viaNoRight, nsWays[3][7]);

  return {
    ferryTerminals: [terminalDowntown, terminalSouthport],
    ferryWay,
    tollWays,
    restrictions,
  };
}

/**
 * Writes a street as few ways as possible: consecutive segments with identical tags share a
 * way, a way also ends at every node in `splitAt`. Returns the way id of each segment.
 */
function addStreet(doc: OsmDocument, nodeIds: number[], segTags: OsmTags[], splitAt: Set<number>): number[] {
  if (segTags.length !== nodeIds.length - 1) throw new Error('addStreet: one tag set per segment');
  const segWay: number[] = [];
  let start = 0;
  for (let k = 1; k <= segTags.length; k++) {
    const end = k === segTags.length || splitAt.has(nodeIds[k]) || tagKey(segTags[k]) !== tagKey(segTags[start]);
    if (!end) continue;
    const id = doc.addWay(nodeIds.slice(start, k + 1), segTags[start]);
    for (let q = start; q < k; q++) segWay.push(id);
    start = k;
  }
  return segWay;
}

function tagKey(tags: OsmTags): string {
  return JSON.stringify(
    Object.keys(tags)
      .sort()
      .map((k) => [k, tags[k]]),
  );
}

/** Class, speed, lanes and direction tags of a downtown street. */
function downtownTags(st: GridStreet, axis: 'ns' | 'ew'): OsmTags {
  const base: OsmTags = { name: st.name, surface: 'asphalt', sidewalk: 'both' };
  switch (st.kind) {
    case 'primary':
      return { ...base, highway: 'primary', ref: 'MD 45', maxspeed: MPH(30), lanes: '4' };
    case 'secondary':
      return { ...base, highway: 'secondary', maxspeed: MPH(30), lanes: '2' };
    case 'tertiary':
      return { ...base, highway: 'tertiary', maxspeed: MPH(25), lanes: '2' };
    case 'residential':
      return { ...base, highway: 'residential', maxspeed: MPH(25) };
    case 'couplet':
      return axis === 'ns'
        ? { ...base, highway: 'secondary', oneway: 'yes', maxspeed: MPH(30), lanes: '3' }
        : { ...base, highway: 'tertiary', oneway: 'yes', maxspeed: MPH(25), lanes: '2' };
  }
}

/**
 * Curb parking tags of segment `k` of a downtown street. Mostly the `parking:lane:*` /
 * `parking:condition:*` scheme; Market St uses the newer `parking:<side>=*` scheme.
 */
function curbTags(st: GridStreet, k: number): OsmTags {
  // meters charge Mo-Sa 08:00-20:00; shorter limits cost more (city-wide meter prices)
  const metered = (side: string, maxstay: string, chargeUsdPerHour: string): OsmTags => ({
    [`parking:lane:${side}`]: 'parallel',
    [`parking:condition:${side}`]: 'ticket',
    [`parking:condition:${side}:maxstay`]: maxstay,
    [`parking:condition:${side}:time_interval`]: 'Mo-Sa 08:00-20:00',
    [`parking:condition:${side}:charge`]: `${chargeUsdPerHour} USD/hour`,
  });
  switch (st.name) {
    case 'Grand Ave':
      return { 'parking:lane:both': 'no_stopping' };
    case 'Center St':
      // metered west of Fulton Ave, no parking on the approach to the freeway
      return k < 5 ? metered('both', '2 hours', '2.00') : { 'parking:lane:both': 'no_parking' };
    case 'Market St':
      return {
        'parking:left': 'lane',
        'parking:left:orientation': 'parallel',
        'parking:left:fee': 'yes',
        'parking:left:charge': '2.50 USD/hour',
        'parking:left:maxstay': '1 hour',
        'parking:right': 'no',
        'parking:right:restriction': 'no_stopping',
      };
    case 'Water St':
      return { ...metered('left', '4 hours', '1.50'), 'parking:lane:right': 'no_parking' };
    case 'Park St':
      return { 'parking:lane:both': 'diagonal', 'parking:condition:both': 'free' };
    default:
      break;
  }
  switch (st.kind) {
    case 'couplet':
      // parking on the left curb of the one-way N–S pair, on the right of the E–W pair
      return st.name === 'Calvert St' || st.name === 'Dover St'
        ? { ...metered('left', '1 hour', '2.50'), 'parking:lane:right': 'no_parking' }
        : { ...metered('right', '2 hours', '2.00'), 'parking:lane:left': 'no_stopping' };
    case 'tertiary':
      return metered('both', '2 hours', '2.00');
    case 'residential':
      return {
        'parking:lane:both': 'parallel',
        'parking:condition:both': 'free',
        'parking:condition:both:maxstay': '2 hours',
      };
    default:
      return {};
  }
}

/** Tags of an east–west Southport street. */
function southportEwTags(name: string): OsmTags {
  switch (name) {
    case 'Southport Ave':
      return {
        highway: 'secondary',
        name,
        maxspeed: MPH(30),
        lanes: '2',
        'parking:lane:both': 'parallel',
        'parking:condition:both': 'ticket',
        'parking:condition:both:maxstay': '2 hours',
        'parking:condition:both:charge': '1.00 USD/hour',
      };
    case 'Shore Rd':
      return {
        highway: 'tertiary',
        name,
        maxspeed: MPH(25),
        'parking:lane:both': 'parallel',
        'parking:condition:both': 'free',
      };
    default:
      return {
        highway: 'residential',
        name,
        maxspeed: MPH(25),
        'parking:lane:both': 'parallel',
        'parking:condition:both': 'residents',
        'parking:condition:both:residents': 'SP',
      };
  }
}
