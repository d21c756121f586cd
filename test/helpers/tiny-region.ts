/**
 * A tiny hand-built region for HTTP tests that need a graph but no particular one:
 *
 *   6 ---- 7 ---- 8        two-way residential grid, 100 m spacing (≈0.0009° lat, 0.00116° lon)
 *   |      |      |        node 4 is signalized
 *   3 ---- 4 ---- 5
 *   |      |      |
 *   0 ---- 1 ---- 2
 */
import { buildGraph, EdgeFlag, NodeFlag, RoadClass, type EdgeInput } from '../../src/network/graph.js';
import type { Region } from '../../src/network/region.js';

const LAT0 = 39.29;
const LON0 = -76.61;
const DLAT = 0.0009;
const DLON = 0.00116;

/** Builds the 3×3 grid region (all edges routable, named streets). */
export function tinyRegion(): Region {
  const nodes = [];
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      nodes.push({
        lat: LAT0 + r * DLAT,
        lon: LON0 + c * DLON,
        flags: r === 1 && c === 1 ? NodeFlag.trafficSignals | NodeFlag.intersection : 0,
        osmId: 1000 + r * 3 + c,
      });
    }
  }
  const edges: EdgeInput[] = [];
  const add = (a: number, b: number, name: string) => {
    const i = edges.length;
    const base = {
      speedKph: 40,
      roadClass: RoadClass.residential,
      flags: EdgeFlag.routable,
      name,
      wayId: 500 + Math.min(a, b),
    };
    edges.push({ ...base, source: a, target: b, twin: i + 1 });
    edges.push({ ...base, source: b, target: a, twin: i });
  };
  const rows = ['South St', 'Middle St', 'North St'];
  const cols = ['West Ave', 'Center Ave', 'East Ave'];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 2; c++) add(r * 3 + c, r * 3 + c + 1, rows[r]);
  for (let c = 0; c < 3; c++) for (let r = 0; r < 2; r++) add(r * 3 + c, (r + 1) * 3 + c, cols[c]);
  const { graph } = buildGraph({ nodes, edges });
  return {
    meta: {
      name: 'tiny',
      mapVersion: 'tiny-1',
      source: 'hand-built',
      importedAt: '2026-01-01T00:00:00Z',
      bounds: [LAT0, LON0, LAT0 + 2 * DLAT, LON0 + 2 * DLON],
      country: 'US',
      timeZone: 'America/New_York',
    },
    graph,
    intersections: [],
    blocks: [],
    lots: [],
  };
}
