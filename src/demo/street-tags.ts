/**
 * OSM tags of the demo city's streets (class, speed, lanes, direction, curb parking) and the
 * writer that turns a street's segments into as few ways as possible.
 */
import type { OsmDocument, OsmTags } from './osm-document.js';

/** Role of a downtown street, which decides its class, direction, signals and curb rules. */
export type StreetKind = 'primary' | 'secondary' | 'tertiary' | 'residential' | 'couplet';

/** A downtown street of the grid. */
export interface GridStreet {
  name: string;
  kind: StreetKind;
  /** couplets only: +1 = one-way towards increasing x/y (north or east), -1 = the other way */
  dir?: 1 | -1;
}

/** A maxspeed value in miles per hour. */
export const MPH = (n: number): string => `${n} mph`;

/**
 * Writes a street as few ways as possible: consecutive segments with identical tags share a
 * way, a way also ends at every node in `splitAt`. Returns the way id of each segment.
 */
export function addStreet(doc: OsmDocument, nodeIds: number[], segTags: OsmTags[], splitAt: Set<number>): number[] {
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
export function downtownTags(st: GridStreet, axis: 'ns' | 'ew'): OsmTags {
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
export function curbTags(st: GridStreet, k: number): OsmTags {
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
export function southportEwTags(name: string): OsmTags {
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
