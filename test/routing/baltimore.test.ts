import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import { EdgeFlag, TurnRestrictions } from '../../src/network/graph.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { SpeedMode } from '../../src/traffic/model.js';
import { RoutingEngine, NO_CRITERIA } from '../../src/routing/engine.js';

const PBF = '../shared/data/baltimore.osm.pbf';
const present = existsSync(PBF);
if (!present) {
  if (process.env.CI === 'true') throw new Error(`${PBF} is missing (required in CI)`);
  console.warn(`skipping Baltimore routing: ${PBF} not found`);
}

/** Deterministic PRNG (LCG); the seed is printed on failure via the test name. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe.skipIf(!present)('Baltimore: 200 seeded OD pairs (seed 20261123)', () => {
  const region = present ? buildRegion(readOsmExtract(PBF), { name: 'baltimore' }) : undefined;

  it('all route; every route is connected, follows edge directions and turn restrictions, and its time is the sum of its time-dependent edge costs', () => {
    const g = region!.graph;
    const eng = new RoutingEngine(g, new SpeedFeeds(), null, region!.meta.timeZone);
    const turns = new TurnRestrictions(g);
    const routable: number[] = [];
    for (let e = 0; e < g.edgeCount; e++) if (g.edgeFlags[e] & EdgeFlag.routable && !(g.edgeFlags[e] & EdgeFlag.reversible)) routable.push(e);
    expect(routable.length).toBeGreaterThan(1000);
    const rnd = lcg(20261123);
    const mid = (e: number) => {
      const s = g.edgeGeomStart[e];
      const k = s + Math.floor((g.edgeGeomStart[e + 1] - s) / 2);
      const k0 = k === s ? s : k - 1;
      return { lat: (g.geomLatE7[k0] + g.geomLatE7[k]) / 2e7, lon: (g.geomLonE7[k0] + g.geomLonE7[k]) / 2e7 };
    };
    // Monday 2026-11-23 08:00 in Baltimore (13:00 UTC): weekday AM peak in the predicted profiles
    const dep = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000;
    let restrictedTurnsChecked = 0;
    for (let i = 0; i < 200; i++) {
      const a = mid(routable[Math.floor(rnd() * routable.length)]);
      const b = mid(routable[Math.floor(rnd() * routable.length)]);
      const [r] = eng.plan({ waypoints: [a, b], departS: dep, nowS: dep, shortest: false, useTraffic: true, criteria: NO_CRITERIA, maxAlternates: 0, ambiguousOrigin: false });
      const leg = r.legs[0];
      expect(leg.edges.length, `pair ${i}`).toBeGreaterThan(0);
      // independent re-costing: turn delay, then each edge at the instant it is entered
      const q = eng.model.query(dep, dep, SpeedMode.current);
      let t = dep;
      for (let k = 0; k < leg.edges.length; k++) {
        const e = leg.edges[k];
        expect(g.edgeFlags[e] & EdgeFlag.reversible).toBe(0);
        if (k > 0) {
          const prev = leg.edges[k - 1];
          expect(g.edgeSource[e], `pair ${i} edge ${k} connected`).toBe(g.edgeTarget[prev]);
          expect(turns.isTurnAllowed(prev, e), `pair ${i} turn ${prev}->${e}`).toBe(true);
          if (turns.size > 0) restrictedTurnsChecked++;
          t += eng.model.turns.costS(prev, e);
        }
        const share = leg.edges.length === 1 ? leg.endFraction - leg.startFraction : k === 0 ? 1 - leg.startFraction : k === leg.edges.length - 1 ? leg.endFraction : 1;
        t += share * eng.model.travelTimeS(q, e, t);
      }
      expect(r.searchArrivalS, `pair ${i}`).toBeCloseTo(t, 6);
      expect(eng.costPath(r.legs, dep, dep, SpeedMode.current).totalS, `pair ${i}`).toBeCloseTo(t - dep, 6);
    }
    expect(restrictedTurnsChecked).toBeGreaterThan(0);
  });

  it('landmark A* finds exactly the travel times of plain time-dependent Dijkstra (50 pairs, live speeds above free flow present)', () => {
    const g = region!.graph;
    const feeds = new SpeedFeeds();
    const dep = Date.UTC(2026, 10, 23, 21, 30, 0) / 1000;
    // live speeds far above free flow on 500 edges: capped at the upper bound, bounds stay admissible
    const rnd = lcg(7);
    for (let i = 0; i < 500; i++) feeds.setLive(Math.floor(rnd() * g.edgeCount), { speedKph: 200, observedAtS: dep, samples: 3 });
    const alt = new RoutingEngine(g, feeds, null, region!.meta.timeZone);
    const plain = new RoutingEngine(g, feeds, null, region!.meta.timeZone, { landmarkCount: 0 });
    const routable: number[] = [];
    for (let e = 0; e < g.edgeCount; e++) if (g.edgeFlags[e] & EdgeFlag.routable && !(g.edgeFlags[e] & EdgeFlag.reversible)) routable.push(e);
    let fewer = 0;
    for (let i = 0; i < 50; i++) {
      const pick = () => { const e = routable[Math.floor(rnd() * routable.length)]; const s = g.edgeGeomStart[e]; return { lat: g.geomLatE7[s] / 1e7, lon: g.geomLonE7[s] / 1e7 }; };
      const a = pick(), b = pick();
      const base = { waypoints: [a, b], departS: dep, nowS: dep, shortest: false, useTraffic: true, criteria: NO_CRITERIA, maxAlternates: 0, ambiguousOrigin: false };
      const [x] = alt.plan(base);
      const sx = alt.lastSettled;
      const [y] = plain.plan(base);
      if (sx < plain.lastSettled) fewer++;
      expect(x.searchArrivalS, `pair ${i}`).toBeCloseTo(y.searchArrivalS, 6);
    }
    expect(fewer).toBeGreaterThan(25);
  });
});
