import { describe, it, expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PbfReader } from 'pbf';
import { VectorTile } from '@mapbox/vector-tile';
import {
  buildGraph,
  EdgeFlag,
  RoadClass,
  loadRegion,
  type EdgeInput,
  type Region,
  type OsmLot,
} from '../network/index.js';
import { createDemoRegion } from '../demo/create-demo-region.js';
import { toLatLon } from '../demo/layout.js';
import { SpeedFeeds } from '../traffic/feeds.js';
import { freeFlowSpeedKph } from '../traffic/index.js';
import {
  BASEMAP_AREAS,
  basemapFeatures,
  chainWayEdges,
  liveFeatures,
  MapTiles,
  TileSource,
  validTileCoords,
  speedBucketOfShare,
} from './index.js';
import { buildRegion } from '../network/index.js';
import { readOsmExtractFromXml } from '../osm/index.js';
import { generateDemoCity } from '../demo/city.js';

// A little harbour, 100 m spacing (≈0.0009° lat, 0.00116° lon):
//
//   0 ---- 1 ---- 2      Main St: one OSM way (10), two-way residential → one line 0→1→2
//          |
//          v             Pier Rd: one-way secondary 1→3 (way 11)
//          3 ~~~~~~ 4    Harbor Ferry 3~4 (way 12, two-way)
//
// Lots: "Pier Garage" with an outline (square south of 0) and "Kiosk Lot" as a node.
const LAT0 = 39.29,
  LON0 = -76.61,
  DLAT = 0.0009,
  DLON = 0.00116;

function harbourRegion(): Region {
  const nodes = [
    { lat: LAT0, lon: LON0 },
    { lat: LAT0, lon: LON0 + DLON },
    { lat: LAT0, lon: LON0 + 2 * DLON },
    { lat: LAT0 - DLAT, lon: LON0 + DLON },
    { lat: LAT0 - DLAT, lon: LON0 + 2 * DLON },
  ];
  const edges: EdgeInput[] = [];
  const two = (a: number, b: number, base: Omit<EdgeInput, 'source' | 'target'>) => {
    const i = edges.length;
    edges.push({ ...base, source: a, target: b, twin: i + 1 }, { ...base, source: b, target: a, twin: i });
  };
  const main = { speedKph: 40, roadClass: RoadClass.residential, flags: EdgeFlag.routable, name: 'Main St', wayId: 10 };
  two(0, 1, main);
  two(1, 2, main);
  edges.push({
    source: 1,
    target: 3,
    speedKph: 50,
    roadClass: RoadClass.secondary,
    flags: EdgeFlag.routable | EdgeFlag.oneway,
    name: 'Pier Rd',
    wayId: 11,
  });
  two(3, 4, {
    speedKph: 10,
    roadClass: RoadClass.ferry,
    flags: EdgeFlag.routable | EdgeFlag.ferry,
    name: 'Harbor Ferry',
    wayId: 12,
  });
  const { graph } = buildGraph({ nodes, edges });
  const lot = (
    id: number,
    name: string,
    lat: number,
    lon: number,
    outline: Array<[number, number]> | null,
  ): OsmLot => ({
    id,
    osmType: outline ? 'way' : 'node',
    osmId: id,
    name,
    operator: '',
    capacity: outline ? 120 : null,
    capacityDisabled: null,
    fee: null,
    access: '',
    parking: outline ? 'multi-storey' : '',
    openingHours: '',
    payment: [],
    lat,
    lon,
    outline,
    tags: {},
  });
  const s = 0.0002;
  const ring: Array<[number, number]> = [
    [LAT0 - s, LON0],
    [LAT0 - s, LON0 + s],
    [LAT0 - 2 * s, LON0 + s],
    [LAT0 - 2 * s, LON0],
    [LAT0 - s, LON0],
  ];
  return {
    meta: {
      name: 'harbour',
      mapVersion: 'harbour-1',
      source: 'hand-built',
      importedAt: '2026-01-01T00:00:00Z',
      bounds: [LAT0 - DLAT, LON0, LAT0, LON0 + 2 * DLON],
      country: 'US',
      timeZone: 'America/New_York',
    },
    graph,
    intersections: [],
    blocks: [],
    lots: [
      lot(71, 'Pier Garage', LAT0 - 1.5 * s, LON0 + 0.5 * s, ring),
      lot(5, 'Kiosk Lot', LAT0 - DLAT / 2, LON0 + 2 * DLON, null),
    ],
  };
}

/** Tile x/y of a position at zoom z (Web Mercator). */
function tileOf(lat: number, lon: number, z: number): { x: number; y: number; fx: number; fy: number } {
  const n = 2 ** z;
  const fx = ((lon + 180) / 360) * n;
  const r = (lat * Math.PI) / 180;
  const fy = ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n;
  return { x: Math.floor(fx), y: Math.floor(fy), fx, fy };
}

function decode(gz: Buffer): VectorTile {
  return new VectorTile(new PbfReader(gunzipSync(gz)));
}

describe('basemap features', () => {
  const region = harbourRegion();

  it('chains the edges of one way into one line and draws each two-way street once', () => {
    const g = region.graph;
    const chains = chainWayEdges(g).map((c) => c.map((e) => `${g.edgeSource[e]}>${g.edgeTarget[e]}`));
    expect(chains.sort()).toEqual([['0>1', '1>2'], ['1>3'], ['3>4']].sort());
  });

  it('puts streets, the ferry and lots in their layers with names and flags', () => {
    const f = basemapFeatures(region);
    expect(f.roads.features.map((x) => x.properties)).toEqual([
      { class: 'residential', name: 'Main St', ref: '', oneway: 0, structure: '', toll: 0, link: 0 },
      { class: 'secondary', name: 'Pier Rd', ref: '', oneway: 1, structure: '', toll: 0, link: 0 },
    ]);
    expect(f.roads.features[0].geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [LON0, LAT0],
        [LON0 + DLON, LAT0],
        [LON0 + 2 * DLON, LAT0],
      ],
    });
    expect(f.ferries.features.map((x) => x.properties?.name)).toEqual(['Harbor Ferry']);
    expect(f.lots.features.map((x) => x.properties)).toEqual([
      { id: 71, name: 'Pier Garage', capacity: 120, parking: 'multi-storey' },
    ]);
    expect((f.lots.features[0].geometry as { coordinates: number[][][] }).coordinates[0][1]).toEqual([
      LON0 + 0.0002,
      LAT0 - 0.0002,
    ]);
    expect(f.lot_labels.features.map((x) => [x.properties?.name, x.properties?.capacity])).toEqual([
      ['Pier Garage', 120],
      ['Kiosk Lot', -1],
    ]);
  });
});

describe('basemap tiles', () => {
  const region = harbourRegion();

  it('encodes a z14 tile with road lines at their Web Mercator positions', () => {
    const tiles = new MapTiles(region, new SpeedFeeds());
    const t0 = tileOf(LAT0, LON0, 14);
    const tile = tiles.basemapTile(14, t0.x, t0.y);
    expect(tile).not.toBeNull();
    const vt = decode(tile!.gzip);
    expect(Object.keys(vt.layers).sort()).toEqual(expect.arrayContaining(['roads', 'lots', 'lot_labels']));
    const roads = vt.layers.roads;
    const main = [...Array(roads.length).keys()]
      .map((i) => roads.feature(i))
      .find((f) => f.properties.name === 'Main St')!;
    expect(main.type).toBe(2); // LineString
    expect(main.properties.class).toBe('residential');
    // node 0 lies at (fx - x, fy - y) × 4096 inside the tile (geojson-vt rounds to integers)
    const p = main.loadGeometry()[0][0];
    expect(p.x).toBe(Math.round((t0.fx - t0.x) * 4096));
    expect(p.y).toBe(Math.round((t0.fy - t0.y) * 4096));
    expect(tile!.pbf.length).toBeGreaterThan(0);
  });

  it('leaves minor roads out below zoom 12 and lots out below zoom 13', () => {
    const tiles = new MapTiles(region, new SpeedFeeds());
    const z11 = tileOf(LAT0, LON0, 11);
    const vt = decode(tiles.basemapTile(11, z11.x, z11.y)!.gzip);
    const names = [...Array(vt.layers.roads.length).keys()].map((i) => vt.layers.roads.feature(i).properties.name);
    expect(names).toEqual(['Pier Rd']);
    expect(vt.layers.ferries.length).toBe(1);
    expect(vt.layers.lots).toBeUndefined();
    const z12 = tileOf(LAT0, LON0, 12);
    const vt12 = decode(tiles.basemapTile(12, z12.x, z12.y)!.gzip);
    expect(vt12.layers.roads.length).toBe(2);
    expect(vt12.layers.lots).toBeUndefined();
  });

  it('answers null for a tile without data or deeper than zoom 14 (clients overzoom) and rejects invalid coordinates', () => {
    const tiles = new MapTiles(region, new SpeedFeeds());
    expect(tiles.basemapTile(14, 0, 0)).toBeNull();
    const t15 = tileOf(LAT0, LON0, 15);
    expect(tiles.basemapTile(15, t15.x, t15.y)).toBeNull();
    expect(validTileCoords(2, 3, 3)).toBe(true);
    expect(validTileCoords(2, 4, 0)).toBe(false);
    expect(validTileCoords(25, 0, 0)).toBe(false);
    expect(validTileCoords(1.5, 0, 0)).toBe(false);
    expect(() => tiles.basemapTile(2, 4, 0)).toThrow(/invalid tile/);
  });

  it('keeps at most its capacity of tiles, dropping the least recently used', () => {
    const src = new TileSource([{ name: 'roads', data: basemapFeatures(region).roads }], 2);
    const t = tileOf(LAT0, LON0, 14);
    const a = src.tile(14, t.x, t.y);
    expect(a).not.toBeNull();
    src.tile(0, 0, 0);
    expect(src.tile(14, t.x, t.y)).toBe(a); // a hit refreshes it
    src.tile(1, 0, 0);
    expect(src.cachedCount).toBe(2);
    expect(src.tile(14, t.x, t.y)).toBe(a); // still cached: (0,0,0) was the oldest
    src.tile(2, 0, 0);
    src.tile(3, 0, 0);
    expect(src.tile(14, t.x, t.y)).not.toBe(a); // evicted, cut again
  });
});

describe('basemap tiles cut an area at a time', () => {
  const demo = buildRegion(readOsmExtractFromXml(generateDemoCity({ seed: 42 }).osmXml), { name: 'demo' });

  it('gives from zoom 12 on the same tiles as one source over every feature of the region', () => {
    const f = basemapFeatures(demo);
    const major = new Set(['motorway', 'trunk', 'primary', 'secondary', 'tertiary']);
    const whole = new TileSource([
      { name: 'water', data: f.water },
      { name: 'waterways', data: f.waterways },
      {
        name: 'roads',
        data: { ...f.roads, features: f.roads.features.filter((x) => major.has(String(x.properties?.class))) },
        maxZoom: 11,
      },
      { name: 'roads', data: f.roads, minZoom: 12 },
      { name: 'ferries', data: f.ferries },
      { name: 'lots', data: f.lots, minZoom: 13 },
      { name: 'lot_labels', data: f.lot_labels, minZoom: 13 },
    ]);
    const tiles = new MapTiles(demo, new SpeedFeeds());
    const [minLat, minLon, maxLat, maxLon] = demo.meta.bounds;
    let compared = 0;
    for (const z of [10, 11, 12, 13, 14]) {
      const a = tileOf(minLat, minLon, z);
      const b = tileOf(maxLat, maxLon, z);
      for (let x = a.x; x <= b.x; x++)
        for (let y = b.y; y <= a.y; y++) {
          const got = tiles.basemapTile(z, x, y);
          const want = whole.tile(z, x, y);
          expect(got?.pbf === undefined ? null : Buffer.from(got.pbf)).toEqual(
            want?.pbf === undefined ? null : Buffer.from(want.pbf),
          );
          if (want) compared++;
        }
    }
    expect(compared).toBeGreaterThan(10);
  });

  it(`keeps at most ${BASEMAP_AREAS} zoom-12 areas, the least recently used out first`, () => {
    const tiles = new MapTiles(demo, new SpeedFeeds());
    const t = tileOf(demo.meta.bounds[0], demo.meta.bounds[1], 12);
    for (let k = 0; k < BASEMAP_AREAS + 4; k++) tiles.basemapTile(12, t.x + k, t.y);
    expect(tiles.areaCount).toBe(BASEMAP_AREAS);
    const first = tiles.basemapTile(14, 4 * t.x, 4 * t.y);
    expect(first).toEqual(tiles.basemapTile(14, 4 * t.x, 4 * t.y));
    expect(tiles.areaCount).toBe(BASEMAP_AREAS);
  });
});

describe('water in the basemap', () => {
  it("draws the demo city's river as a water area under the ferry", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-tiles-demo-'));
    try {
      const demo = await createDemoRegion(dir, { seed: 42 });
      const region = loadRegion(demo.regionDir);
      expect(region.water!.areas.map((a) => a.name)).toEqual(['Calvert River']);
      const [lat, lon] = toLatLon(480, -300); // mid-river, on the ferry line
      const z = 14;
      const n = 2 ** z,
        r = (lat * Math.PI) / 180;
      const x = Math.floor(((lon + 180) / 360) * n),
        y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
      const vt = decode(new MapTiles(region, new SpeedFeeds()).basemapTile(z, x, y)!.gzip);
      expect(vt.layers.water.length).toBe(1);
      expect(vt.layers.water.feature(0).type).toBe(3); // Polygon
      expect(vt.layers.water.feature(0).properties.name).toBe('Calvert River');
      expect(vt.layers.ferries.length).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('live traffic features', () => {
  const region = harbourRegion();
  const g = region.graph;
  const pier = [...Array(g.edgeCount).keys()].find((e) => g.names[g.edgeNameId[e]] === 'Pier Rd')!;
  const mainEast = [...Array(g.edgeCount).keys()].find((e) => g.edgeSource[e] === 0 && g.edgeTarget[e] === 1)!;

  it('lists fresh live speeds with their share-of-free-flow bucket and drops stale ones', () => {
    const feeds = new SpeedFeeds();
    const nowS = 1_800_000_000;
    const ff = freeFlowSpeedKph(g, pier);
    feeds.setLive(pier, { speedKph: ff * 0.4, observedAtS: nowS - 120, samples: 3 });
    feeds.setLive(mainEast, { speedKph: 30, observedAtS: nowS - 901, samples: 1 });
    const fc = liveFeatures(g, feeds, nowS);
    expect(fc.features).toHaveLength(1);
    expect(fc.features[0].properties).toEqual({
      edge: pier,
      speedKph: Math.round(ff * 0.4 * 10) / 10,
      freeFlowKph: Math.round(ff * 10) / 10,
      bucket: 1,
      ageS: 120,
      samples: 3,
      name: 'Pier Rd',
    });
    expect(fc.features[0].geometry.coordinates).toEqual([
      [LON0 + DLON, LAT0],
      [LON0 + DLON, LAT0 - DLAT],
    ]);
    expect([0.1, 0.25, 0.49, 0.5, 0.74, 0.75, 1.2].map(speedBucketOfShare)).toEqual([0, 1, 1, 2, 2, 3, 3]);
  });

  it('rebuilds the live tiles when the speeds change', () => {
    const feeds = new SpeedFeeds();
    const tiles = new MapTiles(region, feeds);
    const nowS = 1_800_000_000;
    const t = tileOf(LAT0, LON0 + DLON, 14);
    expect(tiles.liveTile(14, t.x, t.y, nowS)).toBeNull();
    feeds.setLive(pier, { speedKph: 5, observedAtS: nowS - 10, samples: 2 });
    const vt = decode(tiles.liveTile(14, t.x, t.y, nowS)!.gzip);
    expect(vt.layers.live.length).toBe(1);
    expect(vt.layers.live.feature(0).properties).toMatchObject({ bucket: 0, name: 'Pier Rd', samples: 2 });
    // 15 minutes later the observation is stale and the tile is empty again
    expect(tiles.liveTile(14, t.x, t.y, nowS + 900)).toBeNull();
  });
});
