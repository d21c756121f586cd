import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  BLOCKS_PART,
  INTERSECTIONS_PART,
  LOTS_PART,
  type PartCodec,
  WATER_PART,
  type WaterRecord,
} from './bundle-parts.js';
import { PartFileWriter, readPartFile } from './part-file.js';
import type { Block, Intersection, OsmLot } from './region.js';

const tmp = mkdtempSync(join(tmpdir(), 'streetwise-parts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function intersection(k: number): Intersection {
  return {
    id: 2 ** 40 + k,
    node: k,
    lat: 39.2901234 + k * 1e-7,
    lon: -76.6123456,
    name: k % 2 ? 'Main St & Ōak Ave' : '',
    streetNames: k % 2 ? ['Main St', 'Ōak Ave'] : [],
    signalized: k % 3 === 0,
    stop: k % 3 === 1,
    giveWay: k % 5 === 0,
    movements: [
      {
        id: 2 * k,
        inEdge: 7,
        outEdge: 8,
        turnType: 'left',
        inHeadingDeg: 359.9,
        outHeadingDeg: 0.1,
        turnAngleDeg: -89.7,
        inName: 'Main St',
        outName: '',
        allowed: false,
      },
      {
        id: 2 * k + 1,
        inEdge: 7,
        outEdge: 9,
        turnType: 'uturn',
        inHeadingDeg: 12.3,
        outHeadingDeg: 192.3,
        turnAngleDeg: 180,
        inName: 'Main St',
        outName: 'Main St',
        allowed: true,
      },
    ],
  };
}

function block(k: number): Block {
  return {
    id: 9007199254740000 + k,
    name: `Block ${k % 7}`,
    fromNode: k,
    toNode: k + 1,
    edges: [k, k + 3],
    geometry: [
      [39.1, -76.5],
      [39.1000001, -76.5000002],
    ],
    lengthM: 123.45,
    curb:
      k % 2
        ? [
            {
              side: 'left',
              startM: 0,
              endM: 61.7,
              kind: 'parallel',
              condition: 'ticket',
              maxStay: '2 hours',
              spaces: 10,
              tags: { 'parking:lane:left': 'parallel', 'parking:condition:left': 'ticket' },
            },
          ]
        : [],
  };
}

const lot: OsmLot = {
  id: 51,
  osmType: 'way',
  osmId: 5,
  name: 'Garage',
  operator: '',
  capacity: 200,
  capacityDisabled: null,
  fee: 'yes',
  access: 'yes',
  parking: 'multi-storey',
  openingHours: '24/7',
  payment: ['payment:cash'],
  lat: 39.3,
  lon: -76.6,
  outline: [
    [39.3, -76.6],
    [39.31, -76.6],
    [39.3, -76.61],
  ],
  tags: { amenity: 'parking' },
};

function roundTrip<T>(codec: PartCodec<T>, items: T[], chunkBytes?: number): { back: T[]; path: string } {
  const path = join(tmp, `${codec.file}-${items.length}-${chunkBytes ?? 0}`);
  const w = new PartFileWriter(path, codec.kind, codec.version, codec.encode, chunkBytes);
  for (const item of items) w.add(item);
  w.close();
  return { back: readPartFile(path, codec.kind, codec.version, codec.decode), path };
}

describe('bundle part files', () => {
  it('read back every intersection, block, lot and water record exactly, across many chunks', () => {
    const ixs = Array.from({ length: 500 }, (_, k) => intersection(k));
    const blocks = Array.from({ length: 500 }, (_, k) => block(k));
    const water: WaterRecord[] = [
      { area: { osm: 'w1', name: 'Lake', polygons: [{ outer: [[1, 2]], inner: [] }] } },
      { line: { osm: 'w2', name: '', kind: 'river', line: [[1, 2]] } },
    ];
    expect(roundTrip(INTERSECTIONS_PART, ixs, 1024).back).toEqual(ixs);
    expect(roundTrip(BLOCKS_PART, blocks, 1024).back).toEqual(blocks);
    expect(roundTrip(LOTS_PART, [lot, { ...lot, id: 52, capacity: null }], 64).back).toEqual([
      lot,
      { ...lot, id: 52, capacity: null },
    ]);
    expect(roundTrip(WATER_PART, water).back).toEqual(water);
    expect(roundTrip(BLOCKS_PART, []).back).toEqual([]);
  });

  it('never builds a string longer than a chunk, however many records the file holds', () => {
    const spy = vi.spyOn(JSON, 'stringify');
    const longest = (n: number): number => {
      spy.mockClear();
      const { path } = roundTrip(
        INTERSECTIONS_PART,
        Array.from({ length: n }, (_, k) => ({ ...intersection(k), name: `street ${k}` })),
        4096,
      );
      expect(statSync(path).size).toBeGreaterThan(n * 100);
      return Math.max(...spy.mock.results.map((r) => String(r.value).length));
    };
    const small = longest(200);
    const large = longest(20_000);
    expect(large).toBeLessThanOrEqual(4096 + 64);
    expect(large).toBeLessThanOrEqual(small * 1.5);
  });

  it('refuses another kind, another version, a bad magic and a truncated file, naming the fix', () => {
    const { path } = roundTrip(BLOCKS_PART, [block(1), block(2)]);
    expect(() => readPartFile(path, INTERSECTIONS_PART.kind, 1, INTERSECTIONS_PART.decode)).toThrow(
      /not a streetwise bundle part of this kind: re-run `streetwise import`/,
    );
    expect(() => readPartFile(path, BLOCKS_PART.kind, 2, BLOCKS_PART.decode)).toThrow(
      /format version 1, this build reads 2: re-run `streetwise import`/,
    );
    const bytes = readFileSync(path);
    const bad = Buffer.from(bytes);
    bad[0] = 0;
    writeFileSync(join(tmp, 'bad'), bad);
    expect(() => readPartFile(join(tmp, 'bad'), BLOCKS_PART.kind, 1, BLOCKS_PART.decode)).toThrow(/not a streetwise/);
    writeFileSync(join(tmp, 'short'), bytes.subarray(0, bytes.length - 10));
    expect(() => readPartFile(join(tmp, 'short'), BLOCKS_PART.kind, 1, BLOCKS_PART.decode)).toThrow(/truncated/);
  });
});
