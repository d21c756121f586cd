import {
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  existsSync,
  renameSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildGraph, RoadClass, RestrictionKind, EdgeFlag } from './graph.js';
import type { Graph } from './graph.js';
import { decodeGraph, encodeGraph, GRAPH_FIELDS, loadRegion, writeRegion } from './bundle.js';
import type { Region } from './region.js';

// 0 --- 1 --- 2     (two-way "Main St" 0–1, one-way "Side St" 1→2, a no-U-turn at 1)
function sampleGraph(): Graph {
  return buildGraph({
    nodes: [
      { lat: 39.29, lon: -76.6, osmId: 10 },
      { lat: 39.29, lon: -76.599, osmId: 11, flags: 1 },
      { lat: 39.291, lon: -76.599, osmId: 12 },
    ],
    edges: [
      {
        source: 0,
        target: 1,
        speedKph: 40,
        roadClass: RoadClass.residential,
        name: 'Main St',
        twin: 1,
        wayId: 5,
        shape: [[39.2901, -76.5995]],
      },
      {
        source: 1,
        target: 0,
        speedKph: 40,
        roadClass: RoadClass.residential,
        name: 'Main St',
        twin: 0,
        wayId: 5,
        shape: [[39.2901, -76.5995]],
      },
      {
        source: 1,
        target: 2,
        speedKph: 30,
        roadClass: RoadClass.service,
        name: 'Side St',
        ref: 'S 1',
        flags: EdgeFlag.oneway,
        wayId: 6,
        lanes: 1,
      },
    ],
    restrictions: [{ fromEdge: 0, via: 1, toEdge: 1, kind: RestrictionKind.no }],
  }).graph;
}

function sampleRegion(name: string): Region {
  return {
    meta: {
      name,
      mapVersion: `${name}-1`,
      source: 'x.osm',
      importedAt: '2026-01-01T00:00:00Z',
      bounds: [39, -77, 40, -76],
      country: 'US',
      timeZone: 'America/New_York',
    },
    graph: sampleGraph(),
    intersections: [],
    blocks: [],
    lots: [],
  };
}

const tmp = mkdtempSync(join(tmpdir(), 'streetwise-bundle-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('graph.bin', () => {
  it('round-trips every array and the names table', () => {
    const g = sampleGraph();
    const back = decodeGraph(encodeGraph(g));
    expect(back.nodeCount).toBe(3);
    expect(back.edgeCount).toBe(3);
    for (const [field] of GRAPH_FIELDS)
      expect(Array.from(back[field] as ArrayLike<number>)).toEqual(Array.from(g[field] as ArrayLike<number>));
    expect(back.names).toEqual(g.names);
  });

  it('loads arrays as views on the file buffer without copying', () => {
    const buf = encodeGraph(sampleGraph());
    const aligned = new Uint8Array(new ArrayBuffer(buf.length));
    aligned.set(buf);
    const back = decodeGraph(aligned);
    expect(back.edgeSource.buffer).toBe(aligned.buffer);
    expect(back.geomLatE7.buffer).toBe(aligned.buffer);
  });

  it('refuses a bad magic and another format version', () => {
    const buf = encodeGraph(sampleGraph());
    const bad = Buffer.from(buf);
    bad[0] = 0;
    expect(() => decodeGraph(bad)).toThrow(/bad magic/);
    const v2 = Buffer.from(buf);
    v2.writeUInt32LE(99, 4);
    expect(() => decodeGraph(v2)).toThrow(/version 99/);
    expect(() => decodeGraph(buf.subarray(0, 80))).toThrow(/truncated/);
  });
});

describe('writeRegion / loadRegion', () => {
  it('writes a bundle that loads back equal', () => {
    const dir = join(tmp, 'a');
    writeRegion(dir, sampleRegion('a'));
    const r = loadRegion(dir);
    expect(r.meta.name).toBe('a');
    expect(Array.from(r.graph.edgeTarget)).toEqual([1, 0, 2]);
    expect(r.graph.names).toContain('Side St');
  });

  it('replaces a previous bundle, and a failed write leaves the previous one intact', () => {
    const dir = join(tmp, 'b');
    writeRegion(dir, sampleRegion('first'));
    writeRegion(dir, sampleRegion('second'));
    expect(loadRegion(dir).meta.name).toBe('second');
    const broken = sampleRegion('broken');
    (broken.graph as { edgeSource: Uint32Array }).edgeSource = new Uint32Array(1); // wrong length: encoding throws
    expect(() => writeRegion(dir, broken)).toThrow(/edgeSource/);
    expect(loadRegion(dir).meta.name).toBe('second');
  });

  it('falls back to the previous bundle when the process died between the two renames', () => {
    const dir = join(tmp, 'c');
    writeRegion(dir, sampleRegion('kept'));
    renameSync(dir, `${dir}.prev`);
    expect(existsSync(dir)).toBe(false);
    expect(loadRegion(dir).meta.name).toBe('kept');
  });

  it('removes temporary directories of imports that died while writing, at the next import and at load', () => {
    const regions = join(tmp, 'regions');
    const dir = join(regions, 'e');
    writeRegion(dir, sampleRegion('e'));
    // a writer that is gone (pid 2^22 + 1 is above Linux's pid_max), and one that still runs (this
    // test's parent process)
    const dead = join(regions, `.e.tmp-${2 ** 22 + 1}-1764000000000`);
    const live = join(regions, `.other.tmp-${process.ppid}-1764000000000`);
    for (const d of [dead, live]) {
      mkdirSync(d);
      writeFileSync(join(d, 'graph.bin'), 'partial');
    }
    writeFileSync(join(regions, '.notes.tmp'), 'not a bundle');
    loadRegion(dir);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(join(regions, '.notes.tmp'))).toBe(true);
    mkdirSync(dead);
    writeRegion(join(regions, 'f'), sampleRegion('f'));
    expect(existsSync(dead)).toBe(false);
    expect(readdirSync(regions).sort()).toEqual(['.notes.tmp', `.other.tmp-${process.ppid}-1764000000000`, 'e', 'f']);
  });

  it('names the fix when no bundle exists or the format is unknown', () => {
    expect(() => loadRegion(join(tmp, 'none'))).toThrow(/streetwise import/);
    const dir = join(tmp, 'd');
    writeRegion(dir, sampleRegion('d'));
    const meta = JSON.parse(readFileSync(join(dir, 'region.json'), 'utf8'));
    writeFileSync(join(dir, 'region.json'), JSON.stringify({ ...meta, formatVersion: 7 }));
    expect(() => loadRegion(dir)).toThrow(/format version 7/);
  });

  it('checks the part files at load and decodes them on first use', () => {
    const dir = join(tmp, 'lazy');
    const region = sampleRegion('lazy');
    region.lots = [
      {
        id: 1,
        osmType: 'node',
        osmId: 1,
        name: 'Lot',
        operator: '',
        capacity: 5,
        capacityDisabled: null,
        fee: null,
        access: '',
        parking: 'surface',
        openingHours: '',
        payment: [],
        lat: 39.29,
        lon: -76.6,
        outline: null,
        tags: { amenity: 'parking' },
      },
    ];
    writeRegion(dir, region);
    const bytes = readFileSync(join(dir, 'lots.bin'));
    writeFileSync(join(dir, 'lots.bin'), bytes.subarray(0, bytes.length - 4));
    const loaded = loadRegion(dir);
    expect(() => loaded.lots).toThrow(/truncated/);
    expect(loaded.intersections).toEqual([]);
    const other = Buffer.from(bytes);
    other.writeUInt32LE(9, 8);
    writeFileSync(join(dir, 'lots.bin'), other);
    expect(() => loadRegion(dir)).toThrow(/format version 9, this build reads 1/);
    writeFileSync(join(dir, 'lots.bin'), bytes);
    expect(loadRegion(dir).lots).toEqual(region.lots);
  });

  it("reads the intersections' street names without their movements, equal to the full records'", () => {
    // 0 --Main St-- 1 --Side St--> 2 : one intersection at node 1 with two movements
    const dir = join(tmp, 'names');
    const region = sampleRegion('names');
    const movement = (id: number, inEdge: number, outEdge: number) => ({
      id,
      inEdge,
      outEdge,
      turnType: 'right' as const,
      inHeadingDeg: 90,
      outHeadingDeg: 0,
      turnAngleDeg: -90,
      inName: 'Main St',
      outName: 'Side St',
      allowed: true,
    });
    region.intersections = [
      {
        id: 11,
        node: 1,
        lat: 39.29,
        lon: -76.599,
        name: 'Main St & Side St',
        streetNames: ['Main St', 'Side St'],
        signalized: true,
        stop: false,
        giveWay: false,
        movements: [movement(0, 0, 2), movement(1, 0, 1)],
      },
      {
        id: 12,
        node: 2,
        lat: 39.291,
        lon: -76.599,
        name: '',
        streetNames: [],
        signalized: false,
        stop: false,
        giveWay: false,
        movements: [],
      },
    ];
    writeRegion(dir, region);
    const loaded = loadRegion(dir);
    expect(loaded.intersectionStreetNames).toEqual(
      new Map([
        [1, ['Main St', 'Side St']],
        [2, []],
      ]),
    );
    expect(loaded.intersections).toEqual(region.intersections);
  });
});
