import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import tzLookup from '@photostructure/tz-lookup';
import fc from 'fast-check';
import { generateDemoCity } from './city.js';
import { demoLandmarks } from './landmarks.js';

// The demo city is read back from its XML text with an independent parser, so these tests check
// the document a real importer sees, not the generator's own bookkeeping.

interface ParsedNode {
  id: number;
  lat: number;
  lon: number;
  tags: Record<string, string>;
}
interface ParsedWay {
  id: number;
  refs: number[];
  tags: Record<string, string>;
}
interface ParsedRelation {
  id: number;
  members: Array<{ type: string; ref: number; role: string }>;
  tags: Record<string, string>;
}
interface ParsedOsm {
  version: string;
  nodes: Map<number, ParsedNode>;
  ways: ParsedWay[];
  relations: ParsedRelation[];
}

function parseOsm(xml: string): ParsedOsm {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    isArray: (name) => ['node', 'way', 'relation', 'tag', 'nd', 'member'].includes(name),
  });
  const doc = parser.parse(xml) as { osm: Record<string, any> };
  const tagsOf = (el: any): Record<string, string> =>
    Object.fromEntries(((el.tag ?? []) as Array<{ k: string; v: string }>).map((t) => [t.k, t.v]));
  const nodes = new Map<number, ParsedNode>();
  for (const n of doc.osm.node ?? []) {
    nodes.set(Number(n.id), { id: Number(n.id), lat: Number(n.lat), lon: Number(n.lon), tags: tagsOf(n) });
  }
  const ways = (doc.osm.way ?? []).map((w: any) => ({
    id: Number(w.id),
    refs: (w.nd as Array<{ ref: string }>).map((nd) => Number(nd.ref)),
    tags: tagsOf(w),
  }));
  const relations = (doc.osm.relation ?? []).map((r: any) => ({
    id: Number(r.id),
    members: (r.member as Array<{ type: string; ref: string; role: string }>).map((m) => ({
      type: m.type,
      ref: Number(m.ref),
      role: m.role,
    })),
    tags: tagsOf(r),
  }));
  return { version: String(doc.osm.version), nodes, ways, relations };
}

/** Directed adjacency of the car network (highway ways and the ferry), honouring oneway=yes. */
function carAdjacency(osm: ParsedOsm, skip: (w: ParsedWay) => boolean = () => false): Map<number, Set<number>> {
  const adj = new Map<number, Set<number>>();
  const add = (a: number, b: number): void => {
    if (!adj.has(a)) adj.set(a, new Set());
    if (!adj.has(b)) adj.set(b, new Set());
    adj.get(a)!.add(b);
  };
  for (const w of osm.ways) {
    if (!w.tags.highway && w.tags.route !== 'ferry') continue;
    if (skip(w)) continue;
    const oneway = w.tags.oneway === 'yes' || w.tags.highway === 'motorway';
    for (let k = 1; k < w.refs.length; k++) {
      add(w.refs[k - 1], w.refs[k]);
      if (!oneway) add(w.refs[k], w.refs[k - 1]);
    }
  }
  return adj;
}

function reachable(adj: Map<number, Set<number>>, from: number): Set<number> {
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length > 0) {
    const a = stack.pop()!;
    for (const b of adj.get(a) ?? [])
      if (!seen.has(b)) {
        seen.add(b);
        stack.push(b);
      }
  }
  return seen;
}

function reversed(adj: Map<number, Set<number>>): Map<number, Set<number>> {
  const rev = new Map<number, Set<number>>();
  for (const a of adj.keys()) rev.set(a, new Set());
  for (const [a, bs] of adj) for (const b of bs) rev.get(b)!.add(a);
  return rev;
}

/** True when every node of `adj` reaches every other (one forward and one backward search). */
function stronglyConnected(adj: Map<number, Set<number>>): boolean {
  const start = adj.keys().next().value as number;
  return reachable(adj, start).size === adj.size && reachable(reversed(adj), start).size === adj.size;
}

const city = generateDemoCity({ seed: 42 });
const osm = parseOsm(city.osmXml);
const byName = (name: string): ParsedWay[] => osm.ways.filter((w) => w.tags.name === name);

describe('generateDemoCity', () => {
  it('gives byte-identical output for the same seed and different output for another seed', () => {
    const again = generateDemoCity({ seed: 42 });
    expect(again.osmXml).toBe(city.osmXml);
    expect(JSON.stringify(again.parkingUpload)).toBe(JSON.stringify(city.parkingUpload));
    const other = generateDemoCity({ seed: 43 });
    expect(other.osmXml).not.toBe(city.osmXml);
    expect(JSON.stringify(other.parkingUpload)).not.toBe(JSON.stringify(city.parkingUpload));
  });

  it('keeps the structure, ids and counts independent of the seed', () => {
    const other = generateDemoCity({ seed: 7 });
    const { seed: _a, bounds: _b, ...counts } = city.summary;
    const { seed: _c, bounds: _d, ...otherCounts } = other.summary;
    expect(otherCounts).toEqual(counts);
    const o = parseOsm(other.osmXml);
    expect([...o.nodes.keys()]).toEqual([...osm.nodes.keys()]);
    expect(o.ways.map((w) => [w.id, w.refs, w.tags.name])).toEqual(osm.ways.map((w) => [w.id, w.refs, w.tags.name]));
  });

  it('gives a well-formed, strongly connected city with the same counts for any seed', () => {
    const { seed: _s, bounds: _b, ...counts } = city.summary;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const c = generateDemoCity({ seed });
        expect(XMLValidator.validate(c.osmXml)).toBe(true);
        const { seed: _t, bounds: _d, ...other } = c.summary;
        expect(other).toEqual(counts);
        expect(stronglyConnected(carAdjacency(parseOsm(c.osmXml)))).toBe(true);
      }),
      { numRuns: 6, seed: 20261121 },
    );
  });

  it('rejects a non-integer seed', () => {
    expect(() => generateDemoCity({ seed: 1.5 })).toThrow(/integer/);
  });

  it('writes well-formed OSM XML 0.6 with positive, unique ids', () => {
    expect(XMLValidator.validate(city.osmXml)).toBe(true);
    expect(city.osmXml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6"')).toBe(true);
    expect(osm.version).toBe('0.6');
    const wayIds = osm.ways.map((w) => w.id);
    const relIds = osm.relations.map((r) => r.id);
    for (const id of [...osm.nodes.keys(), ...wayIds, ...relIds]) expect(Number.isInteger(id) && id > 0).toBe(true);
    expect(new Set(wayIds).size).toBe(wayIds.length);
    expect(new Set(relIds).size).toBe(relIds.length);
    expect(osm.nodes.size).toBe(172);
    expect(osm.ways.length).toBe(65);
    expect(osm.relations.length).toBe(3);
  });

  it('places the city near lat 39.30, lon -76.60 in America/New_York', () => {
    const [minLat, minLon, maxLat, maxLon] = city.summary.bounds;
    expect(minLat).toBeGreaterThan(39.28);
    expect(maxLat).toBeLessThan(39.31);
    expect(minLon).toBeGreaterThan(-76.63);
    expect(maxLon).toBeLessThan(-76.58);
    expect(tzLookup((minLat + maxLat) / 2, (minLon + maxLon) / 2)).toBe('America/New_York');
    expect(city.summary.timeZone).toBe('America/New_York');
  });

  it('references only existing nodes from ways and existing elements from relations', () => {
    for (const w of osm.ways)
      for (const ref of w.refs) expect(osm.nodes.has(ref), `way ${w.id} → node ${ref}`).toBe(true);
    const wayIds = new Set(osm.ways.map((w) => w.id));
    for (const r of osm.relations) {
      for (const m of r.members) {
        expect(
          m.type === 'node' ? osm.nodes.has(m.ref) : wayIds.has(m.ref),
          `relation ${r.id} → ${m.type} ${m.ref}`,
        ).toBe(true);
      }
    }
  });

  it('names every street and gives every road a maxspeed in mph', () => {
    const roads = osm.ways.filter((w) => w.tags.highway);
    expect(roads.length).toBe(56);
    for (const w of roads) {
      expect(w.tags.name, `way ${w.id}`).toBeTruthy();
      expect(w.tags.maxspeed, `way ${w.id}`).toMatch(/^\d+ mph$/);
    }
    expect(new Set(roads.map((w) => w.tags.name)).size).toBe(36);
  });

  it('signals the 36 downtown crossings of non-residential streets and 6 more junctions', () => {
    const signals = [...osm.nodes.values()].filter((n) => n.tags.highway === 'traffic_signals');
    expect(signals.length).toBe(42);
    expect(city.summary.trafficSignals).toBe(42);
    // every signal sits on at least two road ways or in the middle of one: it is on the network
    const onRoad = new Set(osm.ways.filter((w) => w.tags.highway).flatMap((w) => w.refs));
    for (const n of signals) expect(onRoad.has(n.id)).toBe(true);
  });

  it('has 11 stop signs (7 all-way) and 4 give-way signs, all on junctions of three or more road ways', () => {
    const nodes = [...osm.nodes.values()];
    const stops = nodes.filter((n) => n.tags.highway === 'stop');
    const giveWays = nodes.filter((n) => n.tags.highway === 'give_way');
    expect(stops.length).toBe(11);
    expect(stops.filter((n) => n.tags.stop === 'all').length).toBe(7);
    expect(giveWays.length).toBe(4);
    const degree = new Map<number, number>();
    for (const w of osm.ways.filter((x) => x.tags.highway)) {
      w.refs.forEach((ref, k) => {
        degree.set(ref, (degree.get(ref) ?? 0) + (k === 0 || k === w.refs.length - 1 ? 1 : 2));
      });
    }
    for (const n of [...stops, ...giveWays]) expect(degree.get(n.id), `node ${n.id}`).toBeGreaterThanOrEqual(3);
  });

  it('has two one-way couplets running in opposite directions', () => {
    for (const name of ['Calvert St', 'Dover St', 'Lombard St', 'Pratt St']) {
      const ways = byName(name);
      expect(ways.length).toBeGreaterThan(0);
      for (const w of ways) expect(w.tags.oneway).toBe('yes');
    }
    const northward = (w: ParsedWay): boolean =>
      osm.nodes.get(w.refs[w.refs.length - 1])!.lat > osm.nodes.get(w.refs[0])!.lat;
    const eastward = (w: ParsedWay): boolean =>
      osm.nodes.get(w.refs[w.refs.length - 1])!.lon > osm.nodes.get(w.refs[0])!.lon;
    expect(byName('Calvert St').every(northward)).toBe(true);
    expect(byName('Dover St').every((w) => !northward(w))).toBe(true);
    expect(byName('Lombard St').every(eastward)).toBe(true);
    expect(byName('Pratt St').every((w) => !eastward(w))).toBe(true);
    expect(osm.ways.filter((w) => w.tags.oneway === 'yes').length).toBe(18);
  });

  it('has a freeway (I 900) with four ramps, a tolled bridge on both carriageways, express and HOV lanes', () => {
    const motorway = osm.ways.filter((w) => w.tags.highway === 'motorway');
    expect(motorway.length).toBe(8);
    for (const w of motorway) {
      expect(w.tags.ref).toMatch(/^I 900( Express)?$/);
      expect(w.tags.maxspeed).toBe('55 mph');
    }
    const links = osm.ways.filter((w) => w.tags.highway === 'motorway_link');
    expect(links.length).toBe(4);
    const motorwayNodes = new Set(motorway.flatMap((w) => w.refs));
    // two ramps leave the freeway, two join it
    expect(links.filter((w) => motorwayNodes.has(w.refs[0])).length).toBe(2);
    expect(links.filter((w) => motorwayNodes.has(w.refs[w.refs.length - 1])).length).toBe(2);
    const toll = osm.ways.filter((w) => w.tags.toll === 'yes');
    expect(toll.length).toBe(3);
    for (const w of toll) expect(w.tags.highway).toBe('motorway');
    expect(toll.filter((w) => w.tags.bridge === 'yes' && w.tags['bridge:name'] === 'Harbor Bridge').length).toBe(2);
    const express = osm.ways.filter((w) => w.tags.express === 'yes');
    expect(express.map((w) => [w.tags.name, w.tags.toll])).toEqual([['Harbor Expressway Express Lanes', 'yes']]);
    const hov = osm.ways.filter((w) => w.tags.hov === 'designated');
    expect(hov.map((w) => [w.tags.name, w.tags.access, w.tags['hov:minimum']])).toEqual([
      ['Harbor Expressway HOV Lane', 'no', '2'],
    ]);
    // each runs beside a main carriageway: same first and last node
    const main = motorway.filter((w) => !w.tags.express && !w.tags.hov);
    for (const lane of [...express, ...hov]) {
      const from = lane.refs[0];
      const to = lane.refs[lane.refs.length - 1];
      expect(
        main.some((w) => w.refs.includes(from) && w.refs.includes(to) && w.refs.indexOf(from) < w.refs.indexOf(to)),
      ).toBe(true);
    }
  });

  it('reports the ids of the ferry, the toll ways and the restrictions as they are in the XML', () => {
    const ids = city.summary.ids;
    expect(osm.ways.filter((w) => w.tags.route === 'ferry').map((w) => w.id)).toEqual([ids.ferryWay]);
    expect(osm.ways.filter((w) => w.tags.toll === 'yes').map((w) => w.id)).toEqual(ids.tollWays);
    for (const r of osm.relations) expect(ids.restrictions[r.tags.restriction]).toBe(r.id);
    for (const t of ids.ferryTerminals) expect(osm.nodes.get(t)!.tags.amenity).toBe('ferry_terminal');
  });

  it('has one ferry between two terminals on different sides of the river', () => {
    const ferries = osm.ways.filter((w) => w.tags.route === 'ferry');
    expect(ferries.length).toBe(1);
    const f = ferries[0];
    expect(f.tags.motor_vehicle).toBe('yes');
    const ends = [f.refs[0], f.refs[f.refs.length - 1]].map((id) => osm.nodes.get(id)!);
    for (const t of ends) expect(t.tags.amenity).toBe('ferry_terminal');
    const river = osm.ways.find((w) => w.tags.natural === 'water')!;
    const riverLats = river.refs.map((id) => osm.nodes.get(id)!.lat);
    expect(ends[0].lat).toBeGreaterThan(Math.max(...riverLats));
    expect(ends[1].lat).toBeLessThan(Math.min(...riverLats));
  });

  it('is one strongly connected road network, also without the ferry', () => {
    expect(stronglyConnected(carAdjacency(osm))).toBe(true);
    expect(stronglyConnected(carAdjacency(osm, (w) => w.tags.route === 'ferry'))).toBe(true);
  });

  it('links downtown and Southport both ways even when avoiding the ferry and toll roads', () => {
    const adj = carAdjacency(osm, (w) => w.tags.route === 'ferry' || w.tags.toll === 'yes');
    const downtown = byName('Water St')[0].refs[0];
    const southport = byName('Linden Ln')[0].refs[0];
    expect(reachable(adj, downtown).has(southport)).toBe(true);
    expect(reachable(adj, southport).has(downtown)).toBe(true);
  });

  it('crosses the river only by ferry, toll bridge or Old Mill Bridge', () => {
    const adj = carAdjacency(
      osm,
      (w) => w.tags.route === 'ferry' || (w.tags.bridge === 'yes' && w.tags.name !== 'Center St'),
    );
    const downtown = byName('Water St')[0].refs[0];
    const southport = byName('Linden Ln')[0].refs[0];
    expect(reachable(adj, downtown).has(southport)).toBe(false);
    expect(osm.ways.filter((w) => w.tags['bridge:name'] === 'Old Mill Bridge').length).toBe(1);
  });

  it('has a no_left_turn, an only_straight_on and a no_right_turn restriction whose ways meet at the via node', () => {
    const kinds = osm.relations.map((r) => r.tags.restriction).sort();
    expect(kinds).toEqual(['no_left_turn', 'no_right_turn', 'only_straight_on']);
    const wayById = new Map(osm.ways.map((w) => [w.id, w]));
    for (const r of osm.relations) {
      expect(r.tags.type).toBe('restriction');
      const from = wayById.get(r.members.find((m) => m.role === 'from')!.ref)!;
      const via = r.members.find((m) => m.role === 'via')!;
      const to = wayById.get(r.members.find((m) => m.role === 'to')!.ref)!;
      expect(via.type).toBe('node');
      expect([from.refs[0], from.refs[from.refs.length - 1]]).toContain(via.ref);
      expect([to.refs[0], to.refs[to.refs.length - 1]]).toContain(via.ref);
    }
    const noLeft = osm.relations.find((r) => r.tags.restriction === 'no_left_turn')!;
    expect(wayById.get(noLeft.members[0].ref)!.tags.name).toBe('Grand Ave');
    expect(wayById.get(noLeft.members[2].ref)!.tags.name).toBe('Center St');
  });

  it('has 7 lot areas and 2 lot nodes with every parking attribute', () => {
    const lotWays = osm.ways.filter((w) => w.tags.amenity === 'parking');
    const lotNodes = [...osm.nodes.values()].filter((n) => n.tags.amenity === 'parking');
    expect(lotWays.length).toBe(7);
    expect(lotNodes.length).toBe(2);
    for (const w of lotWays) expect(w.refs[0]).toBe(w.refs[w.refs.length - 1]);
    const required = ['name', 'operator', 'capacity', 'capacity:disabled', 'fee', 'access', 'parking', 'opening_hours'];
    for (const tags of [...lotWays.map((w) => w.tags), ...lotNodes.map((n) => n.tags)]) {
      for (const k of required) expect(tags[k], `${tags.name} ${k}`).toBeTruthy();
      expect(Number(tags.capacity)).toBeGreaterThan(Number(tags['capacity:disabled']));
      expect(['surface', 'multi-storey', 'underground']).toContain(tags.parking);
      if (tags.fee === 'yes')
        expect(Object.keys(tags).some((k) => k.startsWith('payment:') && tags[k] === 'yes')).toBe(true);
    }
    const formats = [...lotWays, ...lotNodes].map((e) => e.tags.parking);
    expect(new Set(formats)).toEqual(new Set(['surface', 'multi-storey', 'underground']));
  });

  it('tags curb parking on streets: parallel, metered with a 2-hour limit, and no-parking sides', () => {
    const curb = osm.ways.filter((w) => w.tags.highway && Object.keys(w.tags).some((k) => k.startsWith('parking:')));
    expect(curb.length).toBe(40);
    const metered = osm.ways.find(
      (w) =>
        w.tags['parking:lane:both'] === 'parallel' &&
        w.tags['parking:condition:both'] === 'ticket' &&
        w.tags['parking:condition:both:maxstay'] === '2 hours',
    );
    expect(metered).toBeDefined();
    expect(
      osm.ways.some((w) => w.tags['parking:lane:right'] === 'no_parking' && w.tags['parking:lane:left'] === 'parallel'),
    ).toBe(true);
    expect(osm.ways.some((w) => w.tags['parking:lane:both'] === 'no_stopping')).toBe(true);
    expect(osm.ways.some((w) => w.tags['parking:lane:both'] === 'diagonal')).toBe(true);
    expect(osm.ways.some((w) => w.tags['parking:left'] === 'lane' && w.tags['parking:right'] === 'no')).toBe(true);
  });
});

describe('demoLandmarks', () => {
  it('puts every intersection landmark within 5 m of a node where its two streets meet', () => {
    const landmarks = Object.values(demoLandmarks()).filter((l) => l.streets);
    expect(landmarks.length).toBe(6);
    for (const l of landmarks) {
      const [a, b] = l.streets!;
      const onA = new Set(byName(a).flatMap((w) => w.refs));
      const shared = byName(b)
        .flatMap((w) => w.refs)
        .filter((id) => onA.has(id));
      expect(shared.length, l.name).toBeGreaterThan(0);
      const node = osm.nodes.get(shared[0])!;
      const dy = (node.lat - l.lat) * 111_022;
      const dx = (node.lon - l.lon) * 86_255;
      expect(Math.hypot(dx, dy), l.name).toBeLessThan(5);
    }
  });
});
