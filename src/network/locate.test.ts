import { describe, expect, it } from 'vitest';
import { haversineM } from '../geo/index.js';
import { buildGraph, EdgeFlag, RoadClass } from './graph.js';
import { EdgeLocator, locate, locateCandidates } from './locate.js';

// 0 ———— 1 ———— 2        two-way along lat 39.29 (edges 0→1, 1→0, 1→2, 2→1), routable
//        |
//        3               one-way 1→3 going south, NOT routable
const R = EdgeFlag.routable;
const { graph } = buildGraph({
  nodes: [{ lat: 39.29, lon: -76.6 }, { lat: 39.29, lon: -76.599 }, { lat: 39.29, lon: -76.598 }, { lat: 39.289, lon: -76.599 }],
  edges: [
    { source: 0, target: 1, speedKph: 40, roadClass: RoadClass.residential, twin: 1, flags: R, name: 'A' },
    { source: 1, target: 0, speedKph: 40, roadClass: RoadClass.residential, twin: 0, flags: R, name: 'A' },
    { source: 1, target: 2, speedKph: 40, roadClass: RoadClass.residential, twin: 3, flags: R, name: 'A' },
    { source: 2, target: 1, speedKph: 40, roadClass: RoadClass.residential, twin: 2, flags: R, name: 'A' },
    { source: 1, target: 3, speedKph: 40, roadClass: RoadClass.residential, flags: EdgeFlag.oneway, name: 'B' },
  ],
});
// edges sorted by source: 0:0→1, 1:1→0, 2:1→2, 3:1→3, 4:2→1

describe('locate', () => {
  it('projects onto the nearest edge with offset, fraction and distance', () => {
    const s = locate(graph, 39.29005, -76.59975)!;
    expect(s.edge).toBe(0); // 0→1 and 1→0 tie; the lower id wins
    const len = haversineM(39.29, -76.6, 39.29, -76.599);
    expect(s.offsetM).toBeCloseTo(len * 0.25, 0);
    expect(s.fraction).toBeCloseTo(0.25, 3);
    expect(s.distanceM).toBeCloseTo(5.56, 1);
    expect(s.lat).toBeCloseTo(39.29, 7);
    expect(s.lon).toBeCloseTo(-76.59975, 7);
  });

  it('prefers the edge whose direction matches the heading', () => {
    const west = locate(graph, 39.29005, -76.59975, { headingDeg: 265 })!;
    expect(west.edge).toBe(1);
    expect(west.offsetM).toBeCloseTo(haversineM(39.29, -76.6, 39.29, -76.599) * 0.75, 0);
    expect(west.bearingDeg).toBeCloseTo(270, 0);
  });

  it('skips non-routable edges unless asked, and returns undefined beyond the radius', () => {
    const p: [number, number] = [39.2895, -76.59899];
    expect(graph.edgeTarget[locate(graph, ...p)!.edge]).not.toBe(3);
    expect(locate(graph, ...p, { routableOnly: false })!.edge).toBe(3);
    expect(locate(graph, 39.3, -76.6, { maxDistanceM: 200 })).toBeUndefined();
  });

  it('lists one candidate per edge within the radius, nearest first', () => {
    const c = new EdgeLocator(graph).candidates(39.29005, -76.599, 30, { routableOnly: false });
    expect(c.map((s) => s.edge).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(c[0].distanceM).toBeCloseTo(5.56, 1);
    expect(locateCandidates(graph, 39.29005, -76.599, 30, { maxResults: 2 })).toHaveLength(2);
    expect(locateCandidates(graph, 39.29005, -76.599, 3)).toEqual([]);
  });
});
