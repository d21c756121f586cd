import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import { EdgeFlag, TurnRestrictions } from '../../src/network/graph.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { SpeedMode } from '../../src/traffic/model.js';
import { RoutingEngine, NO_CRITERIA } from '../../src/routing/engine.js';
import { DeadEndAudit, EngineWithSearch, referenceEngine, tdAstarOf } from './search-variants.js';

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
    for (let e = 0; e < g.edgeCount; e++)
      if (g.edgeFlags[e] & EdgeFlag.routable && !(g.edgeFlags[e] & EdgeFlag.reversible)) routable.push(e);
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
      const [r] = eng.plan({
        waypoints: [a, b],
        departS: dep,
        nowS: dep,
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
        maxAlternates: 0,
        ambiguousOrigin: false,
      });
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
        const share =
          leg.edges.length === 1
            ? leg.endFraction - leg.startFraction
            : k === 0
              ? 1 - leg.startFraction
              : k === leg.edges.length - 1
                ? leg.endFraction
                : 1;
        t += share * eng.model.travelTimeS(q, e, t);
      }
      expect(r.searchArrivalS, `pair ${i}`).toBeCloseTo(t, 6);
      expect(eng.costPath(r.legs, dep, dep, SpeedMode.current).totalS, `pair ${i}`).toBeCloseTo(t - dep, 6);
    }
    expect(restrictedTurnsChecked).toBeGreaterThan(0);
  });

  it.each(['cch', 'landmarks'] as const)(
    'A* on %s bounds finds exactly the travel times of plain time-dependent Dijkstra (50 pairs, live speeds above free flow present; every dead-end label checked)',
    (potentials) => {
      const g = region!.graph;
      const feeds = new SpeedFeeds();
      const dep = Date.UTC(2026, 10, 23, 21, 30, 0) / 1000;
      // live speeds far above free flow on 500 edges: capped at the upper bound, bounds stay admissible
      const rnd = lcg(7);
      for (let i = 0; i < 500; i++)
        feeds.setLive(Math.floor(rnd() * g.edgeCount), { speedKph: 200, observedAtS: dep, samples: 3 });
      // dead ends marked instead of dropped: anything a marked label does once settled is counted
      const alt = new EngineWithSearch(g, feeds, null, region!.meta.timeZone, { potentials }, (e) =>
        tdAstarOf(e, DeadEndAudit),
      );
      const astar = alt.search;
      const plain = referenceEngine(g, feeds, region!.meta.timeZone);
      const routable: number[] = [];
      for (let e = 0; e < g.edgeCount; e++)
        if (g.edgeFlags[e] & EdgeFlag.routable && !(g.edgeFlags[e] & EdgeFlag.reversible)) routable.push(e);
      let fewer = 0;
      for (let i = 0; i < 50; i++) {
        const pick = () => {
          const e = routable[Math.floor(rnd() * routable.length)];
          const s = g.edgeGeomStart[e];
          return { lat: g.geomLatE7[s] / 1e7, lon: g.geomLonE7[s] / 1e7 };
        };
        const a = pick(),
          b = pick();
        const base = {
          waypoints: [a, b],
          departS: dep,
          nowS: dep,
          shortest: false,
          useTraffic: true,
          criteria: NO_CRITERIA,
          maxAlternates: 0,
          ambiguousOrigin: false,
        };
        const [x] = alt.plan(base);
        const sx = alt.lastSettled;
        const [y] = plain.plan(base);
        if (sx < plain.lastSettled) fewer++;
        expect(x.searchArrivalS, `pair ${i}`).toBeCloseTo(y.searchArrivalS, 6);
      }
      expect(fewer).toBeGreaterThan(25);
      expect(astar.marked).toBeGreaterThan(0);
      expect(astar.violations).toBe(0);
    },
  );
});

describe.skipIf(!present)('Baltimore: time-window landmark tables stay exact', () => {
  const region = present ? buildRegion(readOsmExtract(PBF), { name: 'baltimore' }) : undefined;
  const routableOf = (g: NonNullable<typeof region>['graph']) => {
    const out: number[] = [];
    for (let e = 0; e < g.edgeCount; e++)
      if (g.edgeFlags[e] & EdgeFlag.routable && !(g.edgeFlags[e] & EdgeFlag.reversible)) out.push(e);
    return out;
  };

  it.each(['cch', 'landmarks'] as const)(
    '%s: a live speed above a window bound makes that table unusable until rebuilt; answers equal plain TD-Dijkstra throughout',
    async (potentials) => {
      const g = region!.graph;
      const feeds = new SpeedFeeds();
      const dep = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000; // Monday 08:00 local, AM peak
      const eng = new RoutingEngine(g, feeds, null, region!.meta.timeZone, {
        potentials,
        windowBounds: { minRebuildMs: 0 },
      });
      const plain = referenceEngine(g, feeds, region!.meta.timeZone);
      eng.prepareWindows(dep);
      const routable = routableOf(g);
      const rnd = lcg(99);
      const pick = () => {
        const e = routable[Math.floor(rnd() * routable.length)];
        const s = g.edgeGeomStart[e];
        return { lat: g.geomLatE7[s] / 1e7, lon: g.geomLonE7[s] / 1e7 };
      };
      const pairs = Array.from({ length: 15 }, () => [pick(), pick()] as const);
      const check = (label: string): string[] => {
        const used: string[] = [];
        for (const [i, [a, b]] of pairs.entries()) {
          const base = {
            waypoints: [a, b],
            departS: dep,
            nowS: dep,
            shortest: false,
            useTraffic: true,
            criteria: NO_CRITERIA,
            maxAlternates: 0,
            ambiguousOrigin: false,
          };
          const [x] = eng.plan(base);
          used.push(eng.lastBounds);
          const [y] = plain.plan(base);
          expect(x.searchArrivalS, `${label} pair ${i}`).toBeCloseTo(y.searchArrivalS, 6);
        }
        return used;
      };
      expect(check('tables built').every((u) => u === 'window')).toBe(true);
      // a slow live speed stays under every bound: the tables remain usable
      feeds.setLive(routable[0], { speedKph: 4, observedAtS: dep, samples: 2 });
      expect(check('slow live speed').every((u) => u === 'window')).toBe(true);
      expect(eng.windows!.invalidated).toBe(0);
      // free-flow live speeds on the edges of a peak route: above the peak-window bounds
      const [r] = plain.plan({
        waypoints: [...pairs[0]],
        departS: dep,
        nowS: dep,
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
        maxAlternates: 0,
        ambiguousOrigin: false,
      });
      for (const e of r.legs[0].edges)
        feeds.setLive(e, { speedKph: eng.model.upperKph[e], observedAtS: dep, samples: 5 });
      const after = check('fast live speeds, before rebuild');
      expect(eng.windows!.invalidated).toBeGreaterThan(0);
      expect(after[0]).toBe('freeFlow');
      // rebuilt in the background with the live speeds inside the bounds
      await eng.windows!.idle();
      const rebuilt = check('fast live speeds, after rebuild');
      expect(rebuilt.filter((u) => u === 'window').length).toBeGreaterThan(10);
      // with rebuilds spaced (the default), a table a feed value broke waits: free-flow bounds serve, answers stay exact
      const spaced = new RoutingEngine(g, feeds, null, region!.meta.timeZone, {
        potentials,
        windowBounds: { minRebuildMs: 60_000 },
      });
      spaced.prepareWindows(dep);
      const [r2] = plain.plan({
        waypoints: [...pairs[1]],
        departS: dep,
        nowS: dep,
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
        maxAlternates: 0,
        ambiguousOrigin: false,
      });
      for (const e of r2.legs[0].edges)
        feeds.setLive(e, { speedKph: eng.model.upperKph[e], observedAtS: dep, samples: 5 });
      const base1 = {
        waypoints: [...pairs[1]],
        departS: dep,
        nowS: dep,
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
        maxAlternates: 0,
        ambiguousOrigin: false,
      };
      expect(spaced.plan(base1)[0].searchArrivalS).toBeCloseTo(plain.plan(base1)[0].searchArrivalS, 6);
      expect(spaced.lastBounds).toBe('freeFlow');
      await spaced.windows!.idle();
      expect(spaced.windows!.busy).toBe(false);
      spaced.plan(base1);
      expect(spaced.lastBounds).toBe('freeFlow');
    },
  );

  it.each(['cch', 'landmarks'] as const)(
    'randomized, %s: window-bounded A* equals plain TD-Dijkstra across departures with learned and live speeds (seeded)',
    (potentials) => {
      const seed = Number(process.env.ROUTING_SEED ?? 20261121);
      console.log(`window-bounds randomized comparison seed ${seed} (set ROUTING_SEED to replay)`);
      const g = region!.graph;
      const rnd = lcg(seed);
      const feeds = new SpeedFeeds();
      const routable = routableOf(g);
      const eng0 = referenceEngine(g, feeds, region!.meta.timeZone);
      // learned profiles (between 20 % and 100 % of free flow, some bins unknown) on 400 edges
      for (let i = 0; i < 400; i++) {
        const e = routable[Math.floor(rnd() * routable.length)];
        const p = new Float32Array(672);
        for (let b = 0; b < 672; b++) p[b] = rnd() < 0.1 ? NaN : eng0.model.freeFlowKph[e] * (0.2 + 0.8 * rnd());
        feeds.setLearnedProfile(e, p);
      }
      const eng = new RoutingEngine(g, feeds, null, region!.meta.timeZone, { potentials });
      const plain = referenceEngine(g, feeds, region!.meta.timeZone);
      const pick = () => {
        const e = routable[Math.floor(rnd() * routable.length)];
        const s = g.edgeGeomStart[e];
        return { lat: g.geomLatE7[s] / 1e7, lon: g.geomLonE7[s] / 1e7 };
      };
      // Mon 08:00, Tue 17:30, Fri 16:15, Sat 13:00, Wed 12:40 (local, UTC−5)
      const deps = [
        Date.UTC(2026, 10, 23, 13, 0),
        Date.UTC(2026, 10, 24, 22, 30),
        Date.UTC(2026, 10, 27, 21, 15),
        Date.UTC(2026, 10, 28, 18, 0),
        Date.UTC(2026, 10, 25, 17, 40),
      ].map((x) => x / 1000);
      let windowAnswers = 0;
      for (const dep of deps) {
        // live speeds observed at departure on 150 edges, some above the window bounds
        for (let i = 0; i < 150; i++) {
          const e = routable[Math.floor(rnd() * routable.length)];
          feeds.setLive(e, { speedKph: eng.model.upperKph[e] * (0.3 + 0.8 * rnd()), observedAtS: dep, samples: 3 });
        }
        eng.prepareWindows(dep);
        for (let i = 0; i < 20; i++) {
          const base = {
            waypoints: [pick(), pick()],
            departS: dep,
            nowS: dep,
            shortest: false,
            useTraffic: true,
            criteria: NO_CRITERIA,
            maxAlternates: 0,
            ambiguousOrigin: false,
          };
          const [x] = eng.plan(base);
          if (eng.lastBounds === 'window') windowAnswers++;
          const [y] = plain.plan(base);
          expect(x.searchArrivalS, `seed ${seed} dep ${dep} pair ${i}`).toBeCloseTo(y.searchArrivalS, 6);
          // the search's inline edge times (learned/live edges through the model) = the model's costing
          expect(
            dep + eng.costPath(x.legs, dep, dep, SpeedMode.current).totalS,
            `seed ${seed} dep ${dep} pair ${i} cost`,
          ).toBeCloseTo(x.searchArrivalS, 6);
        }
      }
      expect(windowAnswers).toBeGreaterThan(50);
    },
  );
});
