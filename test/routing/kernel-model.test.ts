/**
 * Routing relaxes through `InlinedLabelSearch`, a specialised copy of the shared kernel's loop
 * (`src/search/edge-search.ts`) with `LabelSearch`'s hooks written out. This test runs the copy and
 * the model (`KernelModel`: the kernel's own loop with those hooks) on the same searches and
 * requires the same answers and the same labels settled: every source/target edge pair of a small
 * grid (fastest at the peak and at night, shortest, with penalty factors), and the searches the
 * engine makes for seeded Baltimore trips (alternatives, criteria, window bounds, turn restrictions).
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import { EdgeFlag } from '../../src/network/graph.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { SpeedMode } from '../../src/traffic/model.js';
import { NO_CRITERIA, type RoutingEngine } from '../../src/routing/engine.js';
import { TdAstar } from '../../src/routing/search/td-astar.js';
import type { SearchOptions, SearchPath, SearchSource, SearchTarget } from '../../src/routing/search/search-types.js';
import { EngineWithSearch, KernelModel } from './search-variants.js';
import { signalizedGrid } from './fixtures.js';

/** The production search, checked against the model on every search it makes. */
class ModelChecked extends TdAstar {
  readonly twin: KernelModel;
  searches = 0;
  readonly mismatches: string[] = [];

  constructor(e: RoutingEngine) {
    super(e.model, e.landmarks, e.restrictions, e.usable, e.cfg.activeLandmarks, e.windows, e.cch);
    this.twin = new KernelModel(
      e.model,
      e.landmarks,
      e.restrictions,
      e.usable,
      e.cfg.activeLandmarks,
      e.windows,
      e.cch,
    );
  }

  override search(sources: SearchSource[], targets: SearchTarget[], depS: number, o: SearchOptions): SearchPath | null {
    const a = super.search(sources, targets, depS, o);
    const b = this.twin.search(sources, targets, depS, o);
    const seen = (x: TdAstar, p: SearchPath | null) =>
      JSON.stringify([p, x.lastSettled, x.lastExhausted, x.lastBounds, x.lastDeadEnds, x.lastWindowRetry]);
    this.searches++;
    if (seen(this, a) !== seen(this.twin, b))
      this.mismatches.push(`${JSON.stringify({ sources, targets, depS })}: ${seen(this, a)} vs ${seen(this.twin, b)}`);
    return a;
  }
}

const AM = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000; // Monday 08:00 America/New_York

describe('the inlined relaxation equals the kernel model', () => {
  it.each([
    ['fastest, Mon 08:00', AM, false, 0],
    ['fastest, Mon 03:00', AM - 5 * 3600, false, 0],
    ['shortest', AM, false, 1],
    ['fastest, every edge penalised x3 (the per-edge factor path)', AM, true, 0],
  ] as const)('6 × 6 signalized grid, every source and target edge: %s', (_label, dep, penalise, shortest) => {
    const graph = signalizedGrid(6, 3).graph;
    const eng = new EngineWithSearch(graph, new SpeedFeeds(), null, 'America/New_York', {}, (e) => new ModelChecked(e));
    const o: SearchOptions = {
      q: eng.model.query(dep, dep, SpeedMode.current),
      shortest: shortest === 1,
      excludeFlags: 0,
      penaltyFlags: penalise ? EdgeFlag.routable : 0,
      penaltyFactor: 3,
      discountFlags: 0,
      discountFactor: 1,
      edgeFactor: null,
      maxSettled: 1e9,
    };
    for (let s = 0; s < graph.edgeCount; s++)
      for (let t = 0; t < graph.edgeCount; t++)
        eng.search.search([{ edge: s, fraction: 0.25, offsetS: 0 }], [{ edge: t, fraction: 0.75 }], dep, o);
    expect(eng.search.searches).toBe(graph.edgeCount ** 2);
    expect(eng.search.mismatches.slice(0, 3)).toEqual([]);
  });

  const PBF = '../shared/data/baltimore.osm.pbf';
  it.skipIf(!existsSync(PBF))('Baltimore, 150 seeded trips with alternatives and criteria', () => {
    const region = buildRegion(readOsmExtract(PBF), { name: 'baltimore' });
    const g = region.graph;
    const eng = new EngineWithSearch(g, new SpeedFeeds(), null, region.meta.timeZone, {}, (e) => new ModelChecked(e));
    const routable: number[] = [];
    for (let e = 0; e < g.edgeCount; e++)
      if (g.edgeFlags[e] & EdgeFlag.routable && !(g.edgeFlags[e] & EdgeFlag.reversible)) routable.push(e);
    let x = 20261127;
    const rnd = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const at = (e: number) => {
      const k = g.edgeGeomStart[e];
      return { lat: g.geomLatE7[k] / 1e7, lon: g.geomLonE7[k] / 1e7 };
    };
    const variants = [
      { shortest: false, criteria: NO_CRITERIA, maxAlternates: 2, dep: AM },
      { shortest: false, criteria: { ...NO_CRITERIA, avoidHighways: true }, maxAlternates: 0, dep: AM - 5 * 3600 },
      { shortest: true, criteria: NO_CRITERIA, maxAlternates: 0, dep: AM },
    ];
    for (let i = 0; i < 150; i++) {
      const v = variants[i % variants.length];
      const waypoints = [0, 1, 2].map(() => at(routable[Math.floor(rnd() * routable.length)]));
      try {
        eng.plan({
          waypoints,
          departS: v.dep,
          nowS: v.dep,
          shortest: v.shortest,
          useTraffic: true,
          criteria: v.criteria,
          maxAlternates: v.maxAlternates,
          ambiguousOrigin: false,
        });
      } catch {
        // a waypoint without a route: the searches made up to there were checked all the same
      }
    }
    expect(eng.search.searches).toBeGreaterThan(300);
    expect(eng.search.mismatches.slice(0, 3)).toEqual([]);
  });
});
