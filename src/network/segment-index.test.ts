import { describe, expect, it } from 'vitest';
import { M_PER_DEG, haversineM } from '../geo/index.js';
import { buildGraph, RoadClass } from './graph.js';
import { type Candidate, SegmentIndex } from './segment-index.js';

// 0 ———— 1        residential 0→1 along lat 39.29, 0.001° long (≈ 86 m) but a nominal length of 100 m
//        |
//        2        ferry 1→2, 0.001° south
const { graph } = buildGraph({
  nodes: [
    { lat: 39.29, lon: -76.6 },
    { lat: 39.29, lon: -76.599 },
    { lat: 39.289, lon: -76.599 },
  ],
  edges: [
    { source: 0, target: 1, lengthM: 100, speedKph: 40, roadClass: RoadClass.residential },
    { source: 1, target: 2, speedKph: 10, roadClass: RoadClass.ferry },
  ],
});

describe('SegmentIndex', () => {
  it("gives map matching's candidates: ferries left out, offsets scaled to the edge's nominal length", () => {
    const out: Candidate[] = [];
    // a quarter of the way along 0→1, 0.00005° north of it
    const n = new SegmentIndex(graph).candidatesInto(39.29005, -76.59975, 100, 5, out);
    expect(n).toBe(1);
    expect(out[0].edge).toBe(0);
    expect(out[0].offsetM).toBeCloseTo(25, 4);
    expect(out[0].distanceM).toBeCloseTo(0.00005 * M_PER_DEG, 4);
    expect(out[0].bearingDeg).toBeCloseTo(90, 6);
  });

  it('snaps to the ferry too (snapping filters by flags, not class), with offsets in geometry metres', () => {
    const c = new SegmentIndex(graph).candidates(39.29005, -76.59975, 100, { routableOnly: false });
    expect(c.map((s) => s.edge)).toEqual([0, 1]);
    // a quarter of the drawn ≈ 86 m, not of the nominal 100 m; the fraction is of the nominal length
    const drawnM = haversineM(39.29, -76.6, 39.29, -76.599);
    expect(c[0].offsetM).toBeCloseTo(drawnM / 4, 3);
    expect(c[0].fraction).toBeCloseTo(drawnM / 4 / 100, 5);
  });

  it('places an offset along an edge', () => {
    const [lat, lon] = new SegmentIndex(graph).pointAt(0, 25);
    expect(lat).toBeCloseTo(39.29, 9);
    expect(lon).toBeCloseTo(-76.59975, 9);
  });
});
