import { describe, it, expect } from 'vitest';
import { RoutingEngine, NO_CRITERIA, type Criteria, type PlanRequest } from '../../src/routing/engine.js';
import { sharedShare } from '../../src/routing/engine.js';
import { IncidentCache, type Incident } from '../../src/traffic/incidents.js';
import { EdgeFlag, RestrictionKind } from '../../src/network/graph.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { SpeedMode } from '../../src/traffic/model.js';
import { TdAstar } from '../../src/routing/search/td-astar.js';
import { DeadEndAudit, EngineWithSearch, KeepDeadEnds, referenceEngine, tdAstarOf } from './search-variants.js';
import {
  DESTINATION,
  E,
  NO_TURN_COSTS,
  ORIGIN,
  SIGNAL_GRID,
  grid,
  monday,
  signalizedGrid,
  twoRoutes,
  type TwoRoutes,
} from './fixtures.js';

function engineFor(f: TwoRoutes | ReturnType<typeof grid>, incidents?: IncidentCache): RoutingEngine {
  return new RoutingEngine(f.region.graph, f.feeds, incidents ?? null, 'UTC', {
    traffic: { turnCosts: NO_TURN_COSTS },
  });
}

function req(departS: number, extra: Partial<PlanRequest> = {}): PlanRequest {
  return {
    waypoints: [ORIGIN, DESTINATION],
    departS,
    nowS: monday(0),
    shortest: false,
    useTraffic: true,
    criteria: NO_CRITERIA,
    maxAlternates: 0,
    ambiguousOrigin: false,
    ...extra,
  };
}

function incident(edges: number[], over: Partial<Incident> = {}): Incident {
  return {
    id: 1,
    version: 1,
    type: 1,
    severity: 4,
    eventCode: 701,
    lat: 0,
    lon: 0,
    edges,
    startS: monday(0),
    endS: monday(23),
    delayImpactMinutes: 0,
    closure: true,
    shortDescription: 'closed',
    fullDescription: '',
    createdAtS: monday(0),
    ...over,
  };
}

const usesMotorway = (f: TwoRoutes, legs: { edges: number[] }[]) => legs[0].edges.includes(f.edgeIdOf[E.motorway]);

describe('time-dependent fastest routes on twoRoutes', () => {
  const f = twoRoutes();
  const eng = engineFor(f);

  it('takes the motorway at 03:00 in exactly 580 s', () => {
    const [r] = eng.plan(req(monday(3)));
    expect(usesMotorway(f, r.legs)).toBe(true);
    expect(r.searchArrivalS - monday(3)).toBeCloseTo(580, 6);
    expect(eng.costPath(r.legs, monday(3), monday(0), SpeedMode.current).totalS).toBeCloseTo(580, 6);
  });

  it('takes the primary road at 08:00 (motorway congested: 2020 s) in exactly 796 s', () => {
    const [r] = eng.plan(req(monday(8)));
    expect(usesMotorway(f, r.legs)).toBe(false);
    expect(r.searchArrivalS - monday(8)).toBeCloseTo(796, 6);
    const [night] = eng.plan(req(monday(3)));
    expect(eng.costPath(night.legs, monday(8), monday(0), SpeedMode.current).totalS).toBeCloseTo(2020, 6);
  });

  it('costs an edge at the time the vehicle reaches it: leaving 06:55 enters the motorway at 06:56:50', () => {
    // speeds interpolate between bin centres 06:52:30 (100 km/h) and 07:07:30 (20 km/h):
    // 100 − 80 × 260/900 = 76.889 km/h → 468.208 s on the motorway, 110 s before it
    const [r] = eng.plan(req(monday(6, 55)));
    expect(usesMotorway(f, r.legs)).toBe(true);
    const motorwayS = 10_000 / ((100 - (80 * 260) / 900) / 3.6);
    expect(r.searchArrivalS - monday(6, 55)).toBeCloseTo(10 + 100 + motorwayS + 100 + 10, 6);
    expect(eng.costPath(r.legs, monday(6, 55), monday(0), SpeedMode.current).totalS).toBeCloseTo(
      r.searchArrivalS - monday(6, 55),
      6,
    );
  });

  it('shortest (RouteType 1) takes the 10.2 km primary route while fastest takes the 12.2 km motorway', () => {
    const [fast] = eng.plan(req(monday(3)));
    const [short] = eng.plan(req(monday(3), { shortest: true }));
    expect(usesMotorway(f, fast.legs)).toBe(true);
    expect(usesMotorway(f, short.legs)).toBe(false);
    expect(eng.costPath(short.legs, monday(3), monday(0), SpeedMode.freeFlow).distanceM).toBeCloseTo(10_200, 3);
    expect(eng.costPath(fast.legs, monday(3), monday(0), SpeedMode.freeFlow).distanceM).toBeCloseTo(12_200, 3);
  });

  it('UseTraffic=false routes on free-flow speeds (motorway even at 08:00)', () => {
    const [r] = eng.plan(req(monday(8), { useTraffic: false }));
    expect(usesMotorway(f, r.legs)).toBe(true);
  });
});

describe('turn restrictions and live speeds', () => {
  it('a no-turn restriction onto the motorway ramp forces the primary route (796 s)', () => {
    const f = twoRoutes({
      restrictions: [{ fromEdge: E.stubIn, via: 1, toEdge: E.toMotorway, kind: RestrictionKind.no }],
    });
    const eng = engineFor(f);
    const [r] = eng.plan(req(monday(3)));
    expect(usesMotorway(f, r.legs)).toBe(false);
    expect(r.searchArrivalS - monday(3)).toBeCloseTo(796, 6);
  });

  it('a fresh live speed is seen by the next plan without any rebuild and fades after the blend window', () => {
    const f = twoRoutes();
    const eng = engineFor(f);
    expect(usesMotorway(f, eng.plan(req(monday(3), { nowS: monday(3) }))[0].legs)).toBe(true);
    f.feeds.setLive(f.edgeIdOf[E.motorway], { speedKph: 20, observedAtS: monday(3), samples: 5 });
    expect(usesMotorway(f, eng.plan(req(monday(3), { nowS: monday(3) }))[0].legs)).toBe(false);
    // two hours later the live observation no longer applies
    expect(usesMotorway(f, eng.plan(req(monday(5), { nowS: monday(3) }))[0].legs)).toBe(true);
  });
});

describe('incidents', () => {
  it('a closure on the motorway forces the detour while active', () => {
    const f = twoRoutes();
    const cache = new IncidentCache(null);
    cache.setIncidents([incident([f.edgeIdOf[E.motorway]], { startS: monday(2), endS: monday(4) })]);
    const eng = engineFor(f, cache);
    const [r] = eng.plan(req(monday(3)));
    expect(usesMotorway(f, r.legs)).toBe(false);
    expect(r.searchArrivalS - monday(3)).toBeCloseTo(796, 6);
    expect(r.viaClosure).toBe(false);
    // after the closure ends the motorway is back
    expect(usesMotorway(f, eng.plan(req(monday(4, 30)))[0].legs)).toBe(true);
  });

  it('a severity-4 incident slows the motorway to 30 % (1200 s) so the primary road wins', () => {
    const f = twoRoutes();
    const cache = new IncidentCache(null);
    cache.setIncidents([incident([f.edgeIdOf[E.motorway]], { closure: false, severity: 4 })]);
    const eng = engineFor(f, cache);
    const [r] = eng.plan(req(monday(3)));
    expect(usesMotorway(f, r.legs)).toBe(false);
    const [other] = engineFor(f).plan(req(monday(3)));
    expect(eng.costPath(other.legs, monday(3), monday(0), SpeedMode.current).totalS).toBeCloseTo(
      10 + 100 + 1200 + 100 + 10,
      4,
    );
  });

  it('when every way is closed the route goes through the closure and is flagged', () => {
    const f = twoRoutes({ noPrimary: true });
    const cache = new IncidentCache(null);
    cache.setIncidents([incident([f.edgeIdOf[E.motorway]])]);
    const eng = engineFor(f, cache);
    const [r] = eng.plan(req(monday(3)));
    expect(r.viaClosure).toBe(true);
    expect(eng.costPath(r.legs, monday(3), monday(0), SpeedMode.current).hasClosures).toBe(true);
  });
});

describe('criteria', () => {
  const cases: Array<[keyof Criteria, number]> = [
    ['avoidTollRoads', EdgeFlag.toll],
    ['avoidHighways', EdgeFlag.highway],
    ['avoidFerries', EdgeFlag.ferry],
    ['avoidVignette', EdgeFlag.vignette],
  ];
  for (const [key, flag] of cases) {
    it(`${key} excludes the flagged motorway when another route exists, and penalises it otherwise`, () => {
      const f = twoRoutes({ motorwayFlags: flag });
      const eng = engineFor(f);
      const criteria = { ...NO_CRITERIA, [key]: true };
      expect(usesMotorway(f, eng.plan(req(monday(3)))[0].legs)).toBe(true);
      const [r] = eng.plan(req(monday(3), { criteria }));
      expect(usesMotorway(f, r.legs)).toBe(false);
      expect(r.avoidRelaxed).toBe(false);
      const only = twoRoutes({ motorwayFlags: flag, noPrimary: true });
      const [forced] = engineFor(only).plan(req(monday(3), { criteria }));
      expect(usesMotorway(only, forced.legs)).toBe(true);
      expect(forced.avoidRelaxed).toBe(true);
    });
  }

  it('PreferExpress takes a slightly slower express road (637.6 s vs 580 s)', () => {
    const f = twoRoutes({ primaryFlags: EdgeFlag.express, primaryLengthM: 5800 });
    const eng = engineFor(f);
    expect(usesMotorway(f, eng.plan(req(monday(3)))[0].legs)).toBe(true);
    const [r] = eng.plan(req(monday(3), { criteria: { ...NO_CRITERIA, preferExpress: true } }));
    expect(usesMotorway(f, r.legs)).toBe(false);
    expect(r.searchArrivalS - monday(3)).toBeCloseTo(10 + 100 + 417.6 + 100 + 10, 4);
  });

  it('car-pool lanes are used only with PreferCarPool', () => {
    const f = twoRoutes({ motorwayFlags: EdgeFlag.hov });
    const eng = engineFor(f);
    expect(usesMotorway(f, eng.plan(req(monday(3)))[0].legs)).toBe(false);
    expect(
      usesMotorway(f, eng.plan(req(monday(3), { criteria: { ...NO_CRITERIA, preferCarPool: true } }))[0].legs),
    ).toBe(true);
  });
});

describe('alternatives', () => {
  it('MaxAlternates=1 adds the primary route: sharing ≤ 65 %, stretch ≤ 1.4', () => {
    const f = twoRoutes();
    const eng = engineFor(f);
    const routes = eng.plan(req(monday(3), { maxAlternates: 1 }));
    expect(routes).toHaveLength(2);
    const [a, b] = routes;
    expect(usesMotorway(f, a.legs)).toBe(true);
    expect(usesMotorway(f, b.legs)).toBe(false);
    expect(sharedShare(f.region.graph, b.legs[0], a.legs[0])).toBeLessThanOrEqual(0.65);
    const ta = eng.costPath(a.legs, monday(3), monday(0), SpeedMode.current).totalS;
    const tb = eng.costPath(b.legs, monday(3), monday(0), SpeedMode.current).totalS;
    expect(tb / ta).toBeCloseTo(796 / 580, 6);
    expect(tb / ta).toBeLessThanOrEqual(1.4);
  });

  it('rejects alternatives beyond the stretch bound (primary 16 km: 1372 s > 1.4 × 580 s)', () => {
    const f = twoRoutes({ primaryLengthM: 16_000 });
    const routes = engineFor(f).plan(req(monday(3), { maxAlternates: 2 }));
    expect(routes).toHaveLength(1);
  });

  it('grid alternatives are loop-free, different and bounded', () => {
    const g = grid();
    const eng = engineFor(g);
    const routes = eng.plan({
      ...req(monday(3), { maxAlternates: 2 }),
      waypoints: [
        { lat: 0, lon: 0.0001 },
        { lat: 0.0018, lon: 0.0017 },
      ],
    });
    expect(routes.length).toBeGreaterThanOrEqual(2);
    const base = eng.costPath(routes[0].legs, monday(3), monday(0), SpeedMode.current).totalS;
    for (let i = 1; i < routes.length; i++) {
      const leg = routes[i].legs[0];
      const nodes = leg.edges.map((e) => g.region.graph.edgeTarget[e]);
      expect(new Set(nodes).size).toBe(nodes.length);
      for (let j = 0; j < i; j++) expect(sharedShare(g.region.graph, leg, routes[j].legs[0])).toBeLessThanOrEqual(0.65);
      expect(eng.costPath(routes[i].legs, monday(3), monday(0), SpeedMode.current).totalS / base).toBeLessThanOrEqual(
        1.4,
      );
    }
  });
});

describe('waypoints', () => {
  it('visits the waypoints in the given order, one leg each', () => {
    const g = grid();
    const eng = engineFor(g);
    // A on 0-1 (south), B on 6-7 (north), C on 2-5 (east)
    const A = { lat: 0, lon: 0.00045 },
      B = { lat: 0.0018, lon: 0.00045 },
      C = { lat: 0.00045, lon: 0.0018 };
    const [r] = eng.plan({ ...req(monday(3)), waypoints: [A, B, C] });
    expect(r.legs).toHaveLength(2);
    const gr = g.region.graph;
    const last0 = r.legs[0].edges[r.legs[0].edges.length - 1];
    expect([g.edgeBetween(6, 7), g.edgeBetween(7, 6)]).toContain(last0);
    const last1 = r.legs[1].edges[r.legs[1].edges.length - 1];
    expect([g.edgeBetween(2, 5), g.edgeBetween(5, 2)]).toContain(last1);
    // 45 m + 200 m + 45 m to B, then from B to C; every consecutive pair is connected
    for (const leg of r.legs)
      for (let i = 1; i < leg.edges.length; i++)
        expect(gr.edgeSource[leg.edges[i]]).toBe(gr.edgeTarget[leg.edges[i - 1]]);
    const [direct] = eng.plan({ ...req(monday(3)), waypoints: [A, C] });
    expect(eng.costPath(r.legs, monday(3), monday(0), SpeedMode.current).totalS).toBeGreaterThan(
      eng.costPath(direct.legs, monday(3), monday(0), SpeedMode.current).totalS,
    );
  });

  it('a heading at the origin picks the matching direction of a two-way street', () => {
    const g = grid();
    const eng = engineFor(g);
    const east = eng.snap({ lat: 0, lon: 0.00045, headingDeg: 90 }, 0, true);
    const west = eng.snap({ lat: 0, lon: 0.00045, headingDeg: 270 }, 0, true);
    expect(east.map((s) => s.edge)).toEqual([g.edgeBetween(0, 1)]);
    expect(west.map((s) => s.edge)).toEqual([g.edgeBetween(1, 0)]);
    expect(eng.snap({ lat: 0, lon: 0.00045 }, 0, true)).toHaveLength(2);
  });

  it('a search over its label limit answers Service Call Timed Out (90), not "no route"', () => {
    const g = grid();
    const eng = new RoutingEngine(g.region.graph, g.feeds, null, 'UTC', { maxSettled: 3 });
    expect(() =>
      eng.plan({
        ...req(monday(3)),
        waypoints: [
          { lat: 0, lon: 0.00045 },
          { lat: 0.0018, lon: 0.00135 },
        ],
      }),
    ).toThrow(expect.objectContaining({ code: 'TIMEOUT' }));
  });

  it('throws Unroutable Waypoint (121) far from any road', () => {
    const eng = engineFor(grid());
    expect(() => eng.plan({ ...req(monday(3)), waypoints: [{ lat: 0.5, lon: 0.5 }, DESTINATION] })).toThrow(
      expect.objectContaining({ code: 'UNROUTABLE_WAYPOINT' }),
    );
  });
});

/** 30 × 30 signalized grid (arterials every 5th line, signals where they cross: many near-equal paths). */
const SMALL_GRID_N = 30;
const smallGrid = signalizedGrid(SMALL_GRID_N, 5).graph;
const AM = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000; // Monday 08:00 America/New_York

/** Seeded points on west–east blocks of the small grid, `along` of the way along the block. */
function gridPoints(seed: number, along: number): () => { lat: number; lon: number } {
  const { lat0, lon0, dLat, dLon } = SIGNAL_GRID;
  const n = SMALL_GRID_N;
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  return () => ({ lat: lat0 + Math.floor(rnd() * n) * dLat, lon: lon0 + (Math.floor(rnd() * (n - 1)) + along) * dLon });
}

describe('dead-end labels dropped at push', () => {
  // a label whose every way on already has a label as good as it could give would push nothing
  // once settled: dropping it changes no decision, so every route must come out edge for edge the same
  const graph = smallGrid;
  const tz = 'America/New_York';
  const pruned = new RoutingEngine(graph, new SpeedFeeds(), null, tz);
  const full = new EngineWithSearch(graph, new SpeedFeeds(), null, tz, {}, (e) => tdAstarOf(e, KeepDeadEnds));
  const am = AM;
  const point = gridPoints(7, 0.4);
  const edgesOf = (legs: { edges: number[] }[]) => legs.map((l) => l.edges.join(',')).join('|');

  it.each([
    ['fastest, Mon 08:00', am, NO_CRITERIA, 0],
    ['fastest, Mon 03:00', am - 5 * 3600, NO_CRITERIA, 0],
    ['two alternatives (per-edge cost factors), 08:00', am, NO_CRITERIA, 2],
    ['PreferExpress (a discount factor), 08:00', am, { ...NO_CRITERIA, preferExpress: true }, 0],
  ] as const)(
    '%s: 120 seeded trips, the same routes with fewer settled labels',
    (_label, dep, criteria, maxAlternates) => {
      let settledPruned = 0,
        settledFull = 0;
      for (let i = 0; i < 120; i++) {
        const base: PlanRequest = {
          waypoints: [point(), point(), point()],
          departS: dep,
          nowS: dep,
          shortest: false,
          useTraffic: true,
          criteria,
          maxAlternates,
          ambiguousOrigin: false,
        };
        const a = pruned.plan(base);
        settledPruned += pruned.lastSettled;
        const b = full.plan(base);
        settledFull += full.lastSettled;
        expect(
          a.map((r) => edgesOf(r.legs)),
          `pair ${i}`,
        ).toEqual(b.map((r) => edgesOf(r.legs)));
        expect(
          a.map((r) => r.searchArrivalS),
          `pair ${i}`,
        ).toEqual(b.map((r) => r.searchArrivalS));
      }
      expect(settledPruned).toBeLessThan(settledFull);
    },
  );

  it('every label the rule drops would push nothing and improve no target (checked label by label)', () => {
    const verified = new EngineWithSearch(graph, new SpeedFeeds(), null, tz, {}, (e) => tdAstarOf(e, DeadEndAudit));
    const astar = verified.search;
    for (const [dep, maxAlternates] of [
      [am, 0],
      [am - 5 * 3600, 0],
      [am, 2],
    ] as const) {
      for (let i = 0; i < 120; i++) {
        verified.plan({
          waypoints: [point(), point()],
          departS: dep,
          nowS: dep,
          shortest: false,
          useTraffic: true,
          criteria: NO_CRITERIA,
          maxAlternates,
          ambiguousOrigin: false,
        });
      }
    }
    expect(astar.marked).toBeGreaterThan(1000);
    expect(astar.violations).toBe(0);
  });
});

describe('the bucket queue (pops within 1/32 s of the minimum, labels reopen) answers like exact key order', () => {
  const graph = smallGrid;
  const tz = 'America/New_York';
  const buckets = new RoutingEngine(graph, new SpeedFeeds(), null, tz);
  const heap = referenceEngine(graph, new SpeedFeeds(), tz);
  const am = AM;
  const point = gridPoints(11, 0.6);

  it.each([
    ['fastest, Mon 08:00', false, am],
    ['fastest, Mon 03:00', false, am - 5 * 3600],
    ['shortest', true, am],
  ] as const)('%s: 60 seeded pairs, equal costs', (_label, shortest, dep) => {
    for (let i = 0; i < 60; i++) {
      const base: PlanRequest = {
        waypoints: [point(), point()],
        departS: dep,
        nowS: dep,
        shortest,
        useTraffic: true,
        criteria: NO_CRITERIA,
        maxAlternates: 0,
        ambiguousOrigin: false,
      };
      const [a] = buckets.plan(base);
      const [b] = heap.plan(base);
      // shortest: equal lengths (tied paths may differ in time); fastest: equal arrivals
      if (shortest)
        expect(buckets.costPath(a.legs, dep, dep, SpeedMode.freeFlow).distanceM, `pair ${i}`).toBeCloseTo(
          heap.costPath(b.legs, dep, dep, SpeedMode.freeFlow).distanceM,
          6,
        );
      else expect(a.searchArrivalS, `pair ${i}`).toBeCloseTo(b.searchArrivalS, 6);
    }
  });

  it('a pass that leaves its window resumes on a longer horizon (open labels re-keyed) and still equals exact Dijkstra', () => {
    // short horizons and a low trip estimate: most first passes leave their coverage
    const eng = new EngineWithSearch(
      graph,
      new SpeedFeeds(),
      null,
      tz,
      { windowBounds: { horizonsS: [30, 60, 120, 240, 480, 960] } },
      (e) => tdAstarOf(e, TdAstar),
    );
    const astar = eng.search;
    astar.expectedOverBound = 0.3;
    const dep = am + 14 * 60; // one minute before the bin ends
    for (const h of [30, 60, 120, 240, 480, 960]) eng.prepareWindows(dep, [h]);
    let resumed = 0;
    for (let i = 0; i < 60; i++) {
      const base: PlanRequest = {
        waypoints: [point(), point()],
        departS: dep,
        nowS: dep,
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
        maxAlternates: 0,
        ambiguousOrigin: false,
      };
      const [a] = eng.plan(base);
      if (astar.lastWindowRetry) resumed++;
      const [b] = heap.plan(base);
      expect(a.searchArrivalS, `pair ${i}`).toBeCloseTo(b.searchArrivalS, 6);
    }
    expect(resumed).toBeGreaterThan(20);
  });
});

describe('a departure bin without its own window table', () => {
  const graph = smallGrid;
  const tz = 'America/New_York';
  const heap = referenceEngine(graph, new SpeedFeeds(), tz);
  const point = gridPoints(23, 0.6);

  it("is searched on an earlier bin's table whose coverage reaches as far, and equals exact Dijkstra", () => {
    const eng = new RoutingEngine(graph, new SpeedFeeds(), null, tz);
    eng.prepareWindows(AM); // the 08:00 bin only
    const built = eng.windows!.built;
    const dep = AM + 20 * 60; // the 08:15 bin: no table of its own
    let onWindow = 0;
    for (let i = 0; i < 40; i++) {
      const base: PlanRequest = {
        waypoints: [point(), point()],
        departS: dep,
        nowS: dep,
        shortest: false,
        useTraffic: true,
        criteria: NO_CRITERIA,
        maxAlternates: 0,
        ambiguousOrigin: false,
      };
      const [a] = eng.plan(base);
      if (eng.lastBounds === 'window') onWindow++;
      const [b] = heap.plan(base);
      expect(a.searchArrivalS, `pair ${i}`).toBeCloseTo(b.searchArrivalS, 6);
    }
    // the 08:15 tables are only queued (built in later event-loop turns): every search borrowed
    expect(eng.windows!.built).toBe(built);
    expect(onWindow).toBe(40);
    expect(eng.windows!.borrowed).toBeGreaterThanOrEqual(40);
  });
});
