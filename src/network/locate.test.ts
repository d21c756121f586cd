import { describe, expect, it } from 'vitest';
import { haversineM } from '../geo/index.js';
import { buildGraph, EdgeFlag, RoadClass } from './graph.js';
import { locate, locateCandidates } from './locate.js';
import { SegmentIndex } from './segment-index.js';

// 0 ———— 1 ———— 2        two-way along lat 39.29 (edges 0→1, 1→0, 1→2, 2→1), routable
//        |
//        3               one-way 1→3 going south, NOT routable
const R = EdgeFlag.routable;
const { graph } = buildGraph({
  nodes: [
    { lat: 39.29, lon: -76.6 },
    { lat: 39.29, lon: -76.599 },
    { lat: 39.29, lon: -76.598 },
    { lat: 39.289, lon: -76.599 },
  ],
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
    const c = new SegmentIndex(graph).candidates(39.29005, -76.599, 30, { routableOnly: false });
    expect(c.map((s) => s.edge).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(c[0].distanceM).toBeCloseTo(5.56, 1);
    expect(locateCandidates(graph, 39.29005, -76.599, 30, { maxResults: 2 })).toHaveLength(2);
    expect(locateCandidates(graph, 39.29005, -76.599, 3)).toEqual([]);
  });
});

describe('locate on random graphs', () => {
  it('finds the same nearest distance as a brute-force scan of every segment', async () => {
    const fc = await import('fast-check');
    const { projectOnSegment } = await import('../geo/index.js');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 999 })), {
          minLength: 2,
          maxLength: 15,
        }),
        fc.array(fc.tuple(fc.nat(14), fc.nat(14)), { minLength: 1, maxLength: 20 }),
        fc.tuple(fc.integer({ min: -100, max: 1100 }), fc.integer({ min: -100, max: 1100 })),
        (pts, pairs, [qy, qx]) => {
          const nodes = pts.map(([y, x]) => ({ lat: 39.28 + y * 1e-5, lon: -76.61 + x * 1e-5 }));
          const edges = pairs
            .map(([a, b]) => [a % nodes.length, b % nodes.length])
            .filter(([a, b]) => a !== b)
            .map(([a, b]) => ({ source: a, target: b, speedKph: 30, roadClass: RoadClass.residential, flags: R }));
          if (edges.length === 0) return;
          const { graph: g } = buildGraph({ nodes, edges });
          const lat = 39.28 + qy * 1e-5,
            lon = -76.61 + qx * 1e-5;
          let best = Infinity;
          for (let e = 0; e < g.edgeCount; e++) {
            const s = g.nodeLatE7[g.edgeSource[e]] / 1e7,
              so = g.nodeLonE7[g.edgeSource[e]] / 1e7;
            const t = g.nodeLatE7[g.edgeTarget[e]] / 1e7,
              to = g.nodeLonE7[g.edgeTarget[e]] / 1e7;
            best = Math.min(best, projectOnSegment(lat, lon, s, so, t, to).distanceM);
          }
          const snap = locate(g, lat, lon, { maxDistanceM: 5000 })!;
          expect(snap.distanceM).toBeCloseTo(best, 6);
        },
      ),
      { seed: 20261121, numRuns: 200 },
    );
  });
});
