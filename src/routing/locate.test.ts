import { describe, expect, it } from 'vitest';
import { buildGraph, EdgeFlag, RoadClass } from '../network/graph.js';
import { EdgeLocator } from './locate.js';

describe('EdgeLocator', () => {
  // A long curved one-way road 0→1 (its box covers the query point) and a short straight
  // two-way street 2–3 right next to the point; the short street must win.
  //
  //   0 ~~~~~~~~~~~~~~~~~~~~~~ (big arc) ~~~~~~~~~~~~~~~~~~~~ 1
  //                    2 --x-- 3        x = query point, 5 m from 2–3
  const R = EdgeFlag.routable;
  const { graph } = buildGraph({
    nodes: [
      { lat: 0, lon: 0 },
      { lat: 0, lon: 0.02 },
      { lat: 0.005, lon: 0.0099 },
      { lat: 0.005, lon: 0.0101 },
    ],
    edges: [
      {
        source: 0,
        target: 1,
        speedKph: 50,
        roadClass: RoadClass.primary,
        flags: R | EdgeFlag.oneway,
        shape: [
          [0.01, 0.005],
          [0.011, 0.01],
          [0.01, 0.015],
        ],
      },
      { source: 2, target: 3, speedKph: 30, roadClass: RoadClass.residential, flags: R, twin: 2, name: 'Short St' },
      { source: 3, target: 2, speedKph: 30, roadClass: RoadClass.residential, flags: R, twin: 1, name: 'Short St' },
    ],
  });
  const loc = new EdgeLocator(graph);

  it('snaps to the nearest edge (both directions of a two-way street) at the projected fraction', () => {
    const snaps = loc.locate(0.005045, 0.01, 500);
    expect(snaps.map((s) => graph.names[graph.edgeNameId[s.edge]])).toEqual(['Short St', 'Short St']);
    expect(snaps[0].fraction).toBeCloseTo(0.5, 6);
    expect(snaps[1].fraction).toBeCloseTo(0.5, 6);
    expect(snaps[0].distanceM).toBeCloseTo(5, 0);
  });

  it('keeps the direction matching a heading, and returns nothing beyond the radius', () => {
    expect(loc.locate(0.005045, 0.01, 500, 270).map((s) => graph.edgeSource[s.edge])).toEqual([3]);
    expect(loc.locate(0.5, 0.5, 500)).toEqual([]);
  });
});
