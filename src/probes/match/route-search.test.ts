import { describe, it, expect } from 'vitest';
import { existsSync } from 'node:fs';
import { buildGraph, RoadClass, type Graph } from '../../network/graph.js';
import { readOsmExtract } from '../../osm/index.js';
import { buildRegion } from '../../network/index.js';
import { createRng } from '../../sim/prng.js';
import { RouteSearch, type EdgePosition } from './route-search.js';
import { SegmentIndex } from '../../network/segment-index.js';

describe('RouteSearch', () => {
  it('finds a target through an edge much shorter than the straight line between its ends', () => {
    // d --10 m--> a --(stated 5 m, 1 km apart)--> b --10 m--> c
    const pos = [
      [0, 0],
      [0, 0.009],
      [0, 0.00909],
      [0.00009, 0],
    ];
    const { graph: g, edgeIdOf } = buildGraph({
      nodes: pos.map(([lat, lon]) => ({ lat, lon })),
      edges: [
        { source: 3, target: 0, speedKph: 50, roadClass: RoadClass.residential },
        { source: 0, target: 1, lengthM: 5, speedKph: 50, roadClass: RoadClass.residential },
        { source: 1, target: 2, speedKph: 50, roadClass: RoadClass.residential },
      ],
    });
    const [da, ab, bc] = [edgeIdOf[0], edgeIdOf[1], edgeIdOf[2]];
    const out = new Float64Array(1);
    for (const goalBound of [true, false]) {
      const s = new RouteSearch(g, 0, goalBound);
      // from the middle of d→a, to 2 m into b→c: 5 + 5 + 2 = 12 m, within a 50 m bound
      s.distancesInto({ edge: da, offsetM: g.edgeLengthM[da] / 2 }, [{ edge: bc, offsetM: 2 }], 50, 0, out);
      expect(out[0]).toBeCloseTo(g.edgeLengthM[da] / 2 + 5 + 2, 5);
      expect(s.pathTo(bc)).toEqual([ab]);
    }
  });

  // Skipping edges from which no target is within reach changes no answer: distances and paths
  // equal the plain bounded search's, for matcher-like queries on real extracts.
  const EXTRACTS = ['monaco', 'andorra'].map((name) => ({ name, pbf: `../shared/data/${name}.osm.pbf` }));
  for (const x of EXTRACTS) {
    if (existsSync(x.pbf)) continue;
    if (process.env.CI === 'true') throw new Error(`${x.pbf} is missing (required in CI)`);
    console.warn(`skipping the ${x.name} route-search comparison: ${x.pbf} not found`);
  }
  for (const { name, pbf } of EXTRACTS) {
    it.skipIf(!existsSync(pbf))(
      `${name}: the goal bound gives the plain search's distances and paths (seeded queries)`,
      () => {
        const g: Graph = buildRegion(readOsmExtract(pbf), { name }).graph;
        const index = new SegmentIndex(g);
        const pruned = new RouteSearch(g, 100, true);
        const plain = new RouteSearch(g, 100, false);
        const rnd = createRng(20261126).next;
        const a = new Float64Array(16),
          b = new Float64Array(16);
        let reached = 0,
          compared = 0;
        for (let q = 0; q < 3000; q++) {
          // a ping near a random node, the next one 10–150 m away: their candidates, as the matcher takes them
          const n = Math.floor(rnd() * g.nodeCount);
          const lat = g.nodeLatE7[n] / 1e7,
            lon = g.nodeLonE7[n] / 1e7;
          const step = (10 + rnd() * 140) / 111_195,
            dir = rnd() * 2 * Math.PI;
          const from: EdgePosition[] = [];
          const to: EdgePosition[] = [];
          index.candidatesInto(lat, lon, 50, 10, from as never);
          index.candidatesInto(
            lat + step * Math.cos(dir),
            lon + (step * Math.sin(dir)) / Math.cos((lat * Math.PI) / 180),
            50,
            10,
            to as never,
          );
          if (from.length === 0 || to.length === 0) continue;
          const src = { ...from[Math.floor(rnd() * from.length)] };
          const targets = to.map((c) => ({ edge: c.edge, offsetM: c.offsetM }));
          const bound = 20 + rnd() * 800;
          pruned.distancesInto(src, targets, bound, 30, a);
          plain.distancesInto(src, targets, bound, 30, b);
          for (let i = 0; i < targets.length; i++) {
            compared++;
            expect(Object.is(a[i], b[i]), `query ${q}, target ${i}: ${a[i]} vs ${b[i]}`).toBe(true);
            if (a[i] === Infinity || (targets[i].edge === src.edge && targets[i].offsetM >= src.offsetM - 30)) continue;
            reached++;
            expect(pruned.pathTo(targets[i].edge)).toEqual(plain.pathTo(targets[i].edge));
          }
        }
        expect(compared).toBeGreaterThan(5000);
        expect(reached).toBeGreaterThan(1000);
      },
      60_000,
    );
  }
});
