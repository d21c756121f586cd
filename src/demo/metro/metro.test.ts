import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOsmExtract } from '../../osm/index.js';
import { importRegion } from '../../network/index.js';
import { writeMetro, type MetroSummary } from './metro.js';

// The metro is read back from its XML text with an independent parser (and, when installed, checked
// by osmium), so these tests check the file another engine sees, not the generator's bookkeeping.

const EDGES = 6000;
const hasOsmium = spawnSync('osmium', ['--version']).status === 0;
const CI = process.env.CI === 'true';
if (!hasOsmium && !CI) console.warn('osmium-tool is not installed: skipping the osmium check of the metro file');

interface Parsed {
  nodes: Map<number, Record<string, string>>;
  ways: Array<{ id: number; refs: number[]; tags: Record<string, string> }>;
  relations: Array<{ members: Array<{ type: string; ref: number; role: string }>; tags: Record<string, string> }>;
}

function parseOsmXml(xml: string): Parsed {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    isArray: (name) => ['node', 'way', 'relation', 'tag', 'nd', 'member'].includes(name),
  });
  const osm = (parser.parse(xml) as { osm: Record<string, any> }).osm;
  const tagsOf = (el: any): Record<string, string> =>
    Object.fromEntries(((el.tag ?? []) as Array<{ k: string; v: string }>).map((t) => [t.k, t.v]));
  const nodes = new Map<number, Record<string, string>>();
  for (const n of osm.node ?? []) nodes.set(Number(n.id), tagsOf(n));
  const ways = (osm.way ?? []).map((w: any) => ({
    id: Number(w.id),
    refs: (w.nd as Array<{ ref: string }>).map((nd) => Number(nd.ref)),
    tags: tagsOf(w),
  }));
  const relations = (osm.relation ?? []).map((r: any) => ({
    members: (r.member as Array<{ type: string; ref: string; role: string }>).map((m) => ({
      ...m,
      ref: Number(m.ref),
    })),
    tags: tagsOf(r),
  }));
  return { nodes, ways, relations };
}

describe('metro generator', () => {
  let dir: string;
  let summary: MetroSummary;
  let osm: Parsed;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sw-metro-'));
    summary = writeMetro(join(dir, 'metro.osm'), { seed: 3, edges: EDGES });
    writeMetro(join(dir, 'metro.osm.pbf'), { seed: 3, edges: EDGES });
    osm = parseOsmXml(readFileSync(join(dir, 'metro.osm'), 'utf8'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the same bytes for the same seed and size, and another network for another seed', () => {
    writeMetro(join(dir, 'again.osm.pbf'), { seed: 3, edges: EDGES });
    writeMetro(join(dir, 'other.osm.pbf'), { seed: 4, edges: EDGES });
    const a = readFileSync(join(dir, 'metro.osm.pbf'));
    expect(readFileSync(join(dir, 'again.osm.pbf')).equals(a)).toBe(true);
    expect(readFileSync(join(dir, 'other.osm.pbf')).equals(a)).toBe(false);
  });

  it('holds motorways with ramps, signals, one-way pairs, restrictions, lots, curb rules and untagged speeds', () => {
    const roads = osm.ways.filter((w) => w.tags.highway);
    const count = (f: (w: Parsed['ways'][number]) => boolean): number => roads.filter(f).length;
    expect(count((w) => w.tags.highway === 'motorway' && w.tags.oneway === 'yes')).toBeGreaterThan(4);
    expect(count((w) => w.tags.highway === 'motorway_link')).toBeGreaterThanOrEqual(8);
    expect(count((w) => w.tags.highway === 'primary' || w.tags.highway === 'secondary')).toBeGreaterThan(20);
    expect(count((w) => w.tags.highway === 'tertiary')).toBeGreaterThan(5);
    expect(count((w) => w.tags.highway === 'residential' && w.tags.oneway === 'yes')).toBeGreaterThan(2);
    expect(count((w) => w.tags.bridge === 'yes')).toBeGreaterThan(0);
    expect(count((w) => Object.keys(w.tags).some((k) => k.startsWith('parking:')))).toBeGreaterThan(5);
    const noSpeed = count((w) => w.tags.maxspeed === undefined);
    expect(noSpeed).toBeGreaterThan(roads.length * 0.2);
    expect(noSpeed).toBeLessThan(roads.length * 0.8);
    expect(roads.every((w) => (w.tags.name ?? '') !== '' || w.tags.highway === 'motorway_link')).toBe(true);
    const signals = [...osm.nodes.values()].filter((t) => t.highway === 'traffic_signals').length;
    expect(signals).toBe(summary.trafficSignals);
    expect(signals).toBeGreaterThan(30);
    expect(osm.ways.filter((w) => w.tags.amenity === 'parking').length).toBe(summary.parkingLots);
    expect(osm.ways.some((w) => w.tags.natural === 'water')).toBe(true);
    expect(osm.ways.some((w) => w.tags.waterway === 'river')).toBe(true);
  });

  it('refers only to nodes in the file and starts or ends every restriction way at its via node', () => {
    for (const w of osm.ways) for (const r of w.refs) expect(osm.nodes.has(r)).toBe(true);
    const byId = new Map(osm.ways.map((w) => [w.id, w]));
    expect(osm.relations.length).toBeGreaterThan(0);
    for (const r of osm.relations) {
      expect(r.tags.type).toBe('restriction');
      const via = r.members.find((m) => m.role === 'via')!;
      for (const m of r.members.filter((x) => x.role !== 'via')) {
        const w = byId.get(m.ref)!;
        expect([w.refs[0], w.refs[w.refs.length - 1]]).toContain(via.ref);
      }
    }
  });

  it('writes the same entities as PBF and as OSM XML', () => {
    const pbf = readOsmExtract(join(dir, 'metro.osm.pbf'));
    const xml = readOsmExtract(join(dir, 'metro.osm'));
    expect(pbf.nodes.size).toBe(xml.nodes.size);
    expect(pbf.roadWays.map((w) => [w.id, w.refs, w.tags])).toEqual(xml.roadWays.map((w) => [w.id, w.refs, w.tags]));
    expect(pbf.restrictions).toEqual(xml.restrictions);
    for (const [k, v] of pbf.header.bounds!.entries()) expect(v).toBeCloseTo(summary.bounds[k], 8);
  });

  it('imports with at least the requested directed edges, every one routable', async () => {
    const r = await importRegion(join(dir, 'metro.osm.pbf'), join(dir, 'regions', 'metro'), { name: 'metro' });
    expect(r.edges).toBe(summary.directedEdges);
    expect(r.routableEdges).toBe(r.edges);
    expect(r.edges).toBeGreaterThanOrEqual(EDGES);
    expect(r.restrictions).toBeGreaterThan(0);
  });

  it.skipIf(!hasOsmium && !CI)('is a PBF osmium reads in order, with every referenced node present', () => {
    const info = JSON.parse(
      execFileSync('osmium', ['fileinfo', '-e', '-j', join(dir, 'metro.osm.pbf')], { encoding: 'utf8' }),
    );
    expect(info.data.count.nodes).toBe(summary.nodes);
    expect(info.data.count.ways).toBe(summary.ways);
    expect(info.data.objects_ordered).toBe(true);
    const refs = spawnSync('osmium', ['check-refs', '-r', join(dir, 'metro.osm.pbf')], { encoding: 'utf8' });
    expect(refs.status).toBe(0);
  });

  it('refuses sizes and seeds out of range', () => {
    expect(() => writeMetro(join(dir, 'x.osm.pbf'), { edges: 10 })).toThrow(/metro edges must be an integer/);
    expect(() => writeMetro(join(dir, 'x.osm.pbf'), { seed: -1 })).toThrow(/metro seed must be an integer/);
    expect(() => writeMetro(join(dir, 'x.txt'), { edges: 2000 })).toThrow(/must end in \.osm\.pbf/);
  });
});
