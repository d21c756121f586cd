import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import { EdgeFlag } from '../../src/network/graph.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { RoutingEngine, NO_CRITERIA } from '../../src/routing/engine.js';
import { referenceEngine } from './search-variants.js';
import { CchPotential } from '../../src/routing/search/cch/potential.js';
import { customize } from '../../src/routing/search/cch/customize.js';
import { boundNodesAt } from '../../src/routing/search/cch/bound-graph.js';
import { boundDistances } from '../helpers/bound-distances.js';

/**
 * The CCH search (window metrics, tied arcs dropped) against plain time-dependent Dijkstra on the
 * two small real extracts. Monaco has a zero-length edge, so its metrics keep tied arcs (decision
 * 010); Andorra's have none to drop. Baltimore is compared in baltimore.test.ts.
 */
const EXTRACTS = ['monaco', 'andorra'].map((name) => ({ name, pbf: `../shared/data/${name}.osm.pbf` }));
for (const x of EXTRACTS) {
  if (existsSync(x.pbf)) continue;
  if (process.env.CI === 'true') throw new Error(`${x.pbf} is missing (required in CI)`);
  console.warn(`skipping ${x.name} routing exactness: ${x.pbf} not found`);
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe.each(EXTRACTS)('$name: CCH search equals plain TD-Dijkstra (seed 20261124)', ({ name, pbf }) => {
  it.skipIf(!existsSync(pbf))('100 seeded pairs at the AM peak and at night, window metrics built', () => {
    const region = buildRegion(readOsmExtract(pbf), { name });
    const g = region.graph;
    if (name === 'monaco') {
      let zero = 0;
      for (let e = 0; e < g.edgeCount; e++) if (g.edgeLengthM[e] === 0 && g.edgeFlags[e] & EdgeFlag.routable) zero++;
      expect(zero, 'a zero-length routable edge (the metrics keep ties)').toBeGreaterThan(0);
    }
    const cch = new RoutingEngine(g, new SpeedFeeds(), null, region.meta.timeZone, { potentials: 'cch' });
    const plain = referenceEngine(g, new SpeedFeeds(), region.meta.timeZone);
    const routable: number[] = [];
    for (let e = 0; e < g.edgeCount; e++)
      if (g.edgeFlags[e] & EdgeFlag.routable && !(g.edgeFlags[e] & EdgeFlag.reversible)) routable.push(e);
    const mid = (e: number) => {
      const s = g.edgeGeomStart[e];
      const k = s + Math.max(1, Math.floor((g.edgeGeomStart[e + 1] - s) / 2));
      return { lat: (g.geomLatE7[k - 1] + g.geomLatE7[k]) / 2e7, lon: (g.geomLonE7[k - 1] + g.geomLonE7[k]) / 2e7 };
    };
    const rnd = lcg(20261124);
    const pairs = Array.from({ length: 100 }, () => [
      mid(routable[Math.floor(rnd() * routable.length)]),
      mid(routable[Math.floor(rnd() * routable.length)]),
    ]);
    // Monday 2026-11-23, 08:00 and 03:00 in Central European Time (UTC+1)
    let compared = 0;
    for (const dep of [Date.UTC(2026, 10, 23, 7) / 1000, Date.UTC(2026, 10, 23, 2) / 1000]) {
      cch.prepareWindows(dep);
      for (const [i, [a, b]] of pairs.entries()) {
        const req = {
          waypoints: [a, b],
          departS: dep,
          nowS: dep,
          shortest: false,
          useTraffic: true,
          criteria: NO_CRITERIA,
          maxAlternates: 0,
          ambiguousOrigin: false,
        };
        const [x] = cch.plan(req);
        const [y] = plain.plan(req);
        expect(cch.lastBounds, `pair ${i}`).toBe('window');
        expect(x.searchArrivalS, `pair ${i} at ${dep}`).toBeCloseTo(y.searchArrivalS, 6);
        compared++;
      }
    }
    expect(compared).toBe(200);
  });

  it.skipIf(!existsSync(pbf))(
    'potentials of the free-flow metric equal bound-graph distances at every node, with and without dropping ties',
    () => {
      const region = buildRegion(readOsmExtract(pbf), { name });
      const g = region.graph;
      const eng = new RoutingEngine(g, new SpeedFeeds(), null, region.meta.timeZone, { potentials: 'cch' });
      const { topo } = eng.cch!;
      const edgeTimeS = new Float32Array(g.edgeCount);
      for (let e = 0; e < g.edgeCount; e++) edgeTimeS[e] = eng.model.minTravelTimeS(e);
      const pot = new CchPotential(topo);
      const rnd = lcg(7);
      // real networks have no ties for the rule to drop (Monaco's metrics keep them anyway: it has a zero-weight bound arc)
      expect(customize(topo, edgeTimeS).head.length).toBe(
        customize(topo, edgeTimeS, 1, { dropTies: false }).head.length,
      );
      for (const dropTies of [true, false]) {
        const metric = customize(topo, edgeTimeS, 1, { dropTies });
        for (let q = 0; q < 4; q++) {
          const targets: number[] = [];
          boundNodesAt(g, topo.bound, Math.floor(rnd() * g.nodeCount), targets);
          const want = boundDistances(topo.bound, edgeTimeS, targets);
          pot.reset(metric, targets);
          for (let v = 0; v < topo.bound.nodeCount; v++) {
            const got = pot.at(v);
            if (want[v] === Infinity) expect(got, `node ${v}`).toBe(Infinity);
            else
              expect(Math.abs(got - want[v]), `ties ${dropTies} query ${q} node ${v}`).toBeLessThan(
                1e-4 * Math.max(1, want[v]),
              );
          }
        }
      }
    },
  );
});
