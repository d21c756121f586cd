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
  RIVER_NORTH_Y_M,
  RIVER_SOUTH_Y_M,
  SOUTHPORT_NORTH_Y_M,
  SOUTHPORT_SPACING_M,
  SOUTHPORT_WEST_X_M,
  toLatLon,
} from './layout.js';
import {
  type OuterNodes,
  type PlanNode,
  addFerry,
  addFreeway,
  addNorthernPkwy,
  addOldMillRd,
  outerNodes,
} from './outer-roads.js';
import { type GridStreet, MPH, addStreet, curbTags, downtownTags, southportEwTags } from './street-tags.js';

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

/** The via nodes of the turn restrictions (downtown crossings). */
interface Vias {
  noLeft: number;
  onlyStraight: number;
  noRight: number;
}

/**
 * Adds every road, the ferry, the river and the turn restrictions of the demo city to `doc`.
 * Nodes come first, in a fixed order (each draws its jitter from `rng`), then the ways.
 */
export function buildRoadNetwork(doc: OsmDocument, rng: Prng): RoadNetwork {
  const node: PlanNode = (x, y, tags = {}) => {
    const [lat, lon] = toLatLon(x + rng.float(-JITTER_M, JITTER_M), y + rng.float(-JITTER_M, JITTER_M));
    return doc.addNode(lat, lon, tags);
  };
  const downtown = downtownNodes(node);
  const southport = southportNodes(node);
  const outer = outerNodes(node);
  const vias: Vias = { noLeft: downtown[6][3], onlyStraight: downtown[6][5], noRight: downtown[3][1] };
  const { nsWays, ewWays } = addDowntownStreets(doc, downtown, outer, vias);
  addNorthernPkwy(doc, outer);
  const tollWays = addFreeway(doc, outer);
  addOldMillRd(doc, outer, downtown[0][1], southport[0][2]);
  const ferryWay = addFerry(doc, outer, downtown[4][0], southport[2][0]);
  addSouthportStreets(doc, southport, outer);
  addRiver(doc);
  return {
    ferryTerminals: [outer.terminals.downtown, outer.terminals.southport],
    ferryWay,
    tollWays,
    restrictions: addRestrictions(doc, nsWays, ewWays, vias),
  };
}

/** Downtown intersections with their traffic control (the four grid corners are mere bends), [ns street][ew street]. */
function downtownNodes(node: PlanNode): number[][] {
  const n = DOWNTOWN_BLOCKS + 1;
  const s = DOWNTOWN_SPACING_M;
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
  return downtown;
}

/**
 * Southport intersections, [ns street][ew street]: stop signs on the side streets at Southport
 * Ave, a signal where Old Mill Rd comes in, give-way signs at four quieter crossings.
 */
function southportNodes(node: PlanNode): number[][] {
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
  return southport;
}

/**
 * The downtown streets (Grand Ave continues north to Northern Pkwy, Center St east over the
 * freeway). Ways also end at the via nodes, as OSM requires of restriction members. Returns the
 * way of each segment: `nsWays[i][k]` is the way of segment k of N–S street i.
 */
function addDowntownStreets(
  doc: OsmDocument,
  downtown: number[][],
  o: OuterNodes,
  vias: Vias,
): { nsWays: number[][]; ewWays: number[][] } {
  const n = DOWNTOWN_BLOCKS + 1;
  const splitAt = new Set([vias.noLeft, vias.onlyStraight, vias.noRight]);
  const nsWays: number[][] = [];
  for (let i = 0; i < n; i++) {
    const st = DOWNTOWN_NS_STREETS[i];
    const ids = downtown[i].slice();
    if (st.dir === -1) ids.reverse();
    if (st.name === 'Grand Ave') ids.push(o.pkwy.grand);
    const seg = ids.slice(1).map((_, k) => ({ ...downtownTags(st, 'ns'), ...curbTags(st, k) }));
    nsWays.push(addStreet(doc, ids, seg, splitAt));
  }
  const ewWays: number[][] = [];
  for (let j = 0; j < n; j++) {
    const st = DOWNTOWN_EW_STREETS[j];
    const ids = downtown.map((col) => col[j]);
    if (st.dir === -1) ids.reverse();
    const seg = ids.slice(1).map((_, k) => ({ ...downtownTags(st, 'ew'), ...curbTags(st, k) }));
    if (st.name === 'Center St') {
      const base = downtownTags(st, 'ew');
      ids.push(o.center.west, o.center.east, o.center.end);
      seg.push({ ...base, maxspeed: MPH(35), 'parking:lane:both': 'no_stopping' });
      seg.push({ ...base, maxspeed: MPH(35), bridge: 'yes', layer: '1', 'parking:lane:both': 'no_stopping' });
      seg.push({ ...base, maxspeed: MPH(35), lanes: '2', 'parking:lane:both': 'no_parking' });
    }
    ewWays.push(addStreet(doc, ids, seg, splitAt));
  }
  return { nsWays, ewWays };
}

/** The Southport streets; Southport Ave continues east to the freeway. */
function addSouthportStreets(doc: OsmDocument, southport: number[][], o: OuterNodes): void {
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
      ids.push(o.southAve.sb, o.southAve.nb);
      const east: OsmTags = { ...tags, maxspeed: MPH(35), 'parking:lane:both': 'no_stopping' };
      delete east['parking:condition:both'];
      delete east['parking:condition:both:maxstay'];
      delete east['parking:condition:both:charge'];
      seg.push(east, east);
    }
    addStreet(doc, ids, seg, new Set());
  }
}

/** The river (an area; not part of the road network). */
function addRiver(doc: OsmDocument): void {
  const river = [
    [-1200, RIVER_NORTH_Y_M],
    [2200, RIVER_NORTH_Y_M],
    [2200, RIVER_SOUTH_Y_M],
    [-1200, RIVER_SOUTH_Y_M],
  ].map(([x, y]) => doc.addNode(...toLatLon(x, y)));
  doc.addWay([...river, river[0]], { natural: 'water', water: 'river', name: 'Calvert River' });
}

/** Turn restrictions (from way, via node, to way); returns their relation ids by restriction value. */
function addRestrictions(doc: OsmDocument, nsWays: number[][], ewWays: number[][], vias: Vias): Record<string, number> {
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
  // Grand Ave northbound may not turn left (west) into Center St.
  restriction('no_left_turn', nsWays[6][2], vias.noLeft, ewWays[3][5]);
  // Lombard St eastbound must go straight across Grand Ave.
  restriction('only_straight_on', ewWays[5][5], vias.onlyStraight, ewWays[5][6]);
  // Market St eastbound may not turn right (south) into Dover St (listed north to south).
  restriction('no_right_turn', ewWays[1][2], vias.noRight, nsWays[3][7]);
  return restrictions;
}
