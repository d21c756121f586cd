/**
 * Hand-built parking region for inventory tests (New York time zone, United States):
 *
 *        2 (39.2915,-76.6100)          3 (39.2915,-76.6080)
 *        |  Side St (block 2: No Parking both sides)
 *        |
 *        0 ------------ Main St (block 1) ------------ 1
 *   (39.2900,-76.6100)                          (39.2900,-76.6080)
 *
 * Main St curb, right side: free 0–60 m, driveway 60–75 m (No Parking), free 75–150 m → one segment 0–150.
 * Main St curb, left side: paid $2/h 0–80, No Parking 80–100 (rules change: kept), residents 100–170.
 * Lots: Garage A (node 11, 111 m north of node 0, $3/h, 24/7), Lot B (way 22, area, free),
 * Far Lot (node 33, ≈1.1 km north), East Lot (node 44, unknown rates).
 */
import { buildGraph, RoadClass, EdgeFlag } from '../../src/network/graph.js';
import type { Block, CurbSegment, OsmLot, Region } from '../../src/network/region.js';

/** The query point used by most tests: node 0. */
export const P = { lat: 39.29, lon: -76.61 };

function curb(
  side: 'left' | 'right',
  startM: number,
  endM: number,
  kind: string,
  condition: string,
  extra: Record<string, string> = {},
): CurbSegment {
  return {
    side,
    startM,
    endM,
    kind,
    condition,
    maxStay: '',
    spaces: kind === 'no_parking' ? 0 : Math.floor((endM - startM) / 6),
    tags: extra,
  };
}

function lot(o: Partial<OsmLot> & Pick<OsmLot, 'id' | 'osmType' | 'osmId' | 'name' | 'lat' | 'lon'>): OsmLot {
  return {
    operator: '',
    capacity: null,
    capacityDisabled: null,
    fee: null,
    access: '',
    parking: 'surface',
    openingHours: '',
    payment: [],
    outline: null,
    tags: {},
    ...o,
  };
}

/** Builds the fixture region. */
export function parkingRegion(): Region {
  const nodes = [
    { lat: 39.29, lon: -76.61, osmId: 100 },
    { lat: 39.29, lon: -76.608, osmId: 101 },
    { lat: 39.2915, lon: -76.61, osmId: 102 },
    { lat: 39.2915, lon: -76.608, osmId: 103 },
  ];
  const base = { speedKph: 40, roadClass: RoadClass.residential, flags: EdgeFlag.routable };
  const { graph } = buildGraph({
    nodes,
    edges: [
      { ...base, source: 0, target: 1, name: 'Main St', twin: 1, wayId: 7 },
      { ...base, source: 1, target: 0, name: 'Main St', twin: 0, wayId: 7 },
      { ...base, source: 0, target: 2, name: 'Side St', twin: 3, wayId: 8 },
      { ...base, source: 2, target: 0, name: 'Side St', twin: 2, wayId: 8 },
    ],
  });
  const main: Block = {
    id: 1,
    name: 'Main St',
    fromNode: 0,
    toNode: 1,
    edges: [0],
    lengthM: 172.3,
    geometry: [
      [39.29, -76.61],
      [39.29, -76.608],
    ],
    curb: [
      curb('right', 0, 60, 'parallel', 'free'),
      curb('right', 60, 75, 'no_parking', ''),
      curb('right', 75, 150, 'parallel', 'free'),
      curb('left', 0, 80, 'parallel', 'ticket', { 'parking:condition:left:charge': '2 USD/hour' }),
      curb('left', 80, 100, 'no_parking', ''),
      curb('left', 100, 170, 'parallel', 'residents'),
    ],
  };
  const side: Block = {
    id: 2,
    name: 'Side St',
    fromNode: 0,
    toNode: 2,
    edges: [2],
    lengthM: 166.5,
    geometry: [
      [39.29, -76.61],
      [39.2915, -76.61],
    ],
    curb: [curb('right', 0, 166, 'no_parking', ''), curb('left', 0, 166, 'no_stopping', '')],
  };
  const lots: OsmLot[] = [
    lot({
      id: 11,
      osmType: 'node',
      osmId: 11,
      name: 'Garage A',
      lat: 39.291,
      lon: -76.61,
      operator: 'Metro Parking',
      capacity: 200,
      fee: 'yes',
      parking: 'multi-storey',
      openingHours: '24/7',
      payment: ['payment:cash', 'payment:visa'],
      tags: { charge: '3 USD/hour', website: 'https://example.org/a' },
    }),
    lot({
      id: 221,
      osmType: 'way',
      osmId: 22,
      name: 'Lot B',
      lat: 39.292,
      lon: -76.609,
      operator: 'City',
      fee: 'no',
      outline: [
        [39.2918, -76.6092],
        [39.2918, -76.6088],
        [39.2922, -76.6088],
        [39.2922, -76.6092],
      ],
    }),
    lot({
      id: 33,
      osmType: 'node',
      osmId: 33,
      name: 'Far Lot',
      lat: 39.3,
      lon: -76.61,
      operator: 'Metro Parking',
      capacity: 50,
    }),
    lot({
      id: 44,
      osmType: 'node',
      osmId: 44,
      name: 'East Lot',
      lat: 39.2905,
      lon: -76.605,
      operator: 'Harbor Co',
      capacity: 30,
    }),
  ];
  return {
    meta: {
      name: 'fixture',
      mapVersion: 'fixture-1',
      source: 'hand-built',
      importedAt: '2026-01-01T00:00:00Z',
      bounds: [39.29, -76.61, 39.3, -76.605],
      country: 'US',
      timeZone: 'America/New_York',
    },
    graph,
    intersections: [
      {
        id: 100,
        node: 0,
        lat: 39.29,
        lon: -76.61,
        name: 'Main St & Side St',
        streetNames: ['Main St', 'Side St'],
        signalized: false,
        stop: false,
        giveWay: false,
        movements: [],
      },
      {
        id: 101,
        node: 1,
        lat: 39.29,
        lon: -76.608,
        name: 'Main St & East Ave',
        streetNames: ['Main St', 'East Ave'],
        signalized: false,
        stop: false,
        giveWay: false,
        movements: [],
      },
    ],
    blocks: [main, side],
    lots,
  };
}

/** Distance in metres along the WGS 84 chord (ECEF): equals the geodesic to < 1 mm under 1 km. */
export function chordDistanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a = 6378137,
    f = 1 / 298.257223563,
    e2 = f * (2 - f);
  const ecef = (lat: number, lon: number): [number, number, number] => {
    const p = (lat * Math.PI) / 180,
      l = (lon * Math.PI) / 180;
    const n = a / Math.sqrt(1 - e2 * Math.sin(p) ** 2);
    return [n * Math.cos(p) * Math.cos(l), n * Math.cos(p) * Math.sin(l), n * (1 - e2) * Math.sin(p)];
  };
  const [x1, y1, z1] = ecef(lat1, lon1),
    [x2, y2, z2] = ecef(lat2, lon2);
  return Math.hypot(x1 - x2, y1 - y2, z1 - z2);
}
