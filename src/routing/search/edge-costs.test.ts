import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { EdgeCosts } from './edge-costs.js';
import { SearchLayout } from './layout.js';
import { SpeedFeeds } from '../../traffic/feeds.js';
import { SpeedMode, TrafficModel, type CostQuery } from '../../traffic/model.js';
import { BIN_SECONDS, SECONDS_PER_WEEK } from '../../traffic/clock.js';
import { BINS_PER_WEEK } from '../../traffic/feeds.js';
import { EdgeFlag, TurnRestrictions, type Graph } from '../../network/graph.js';
import { readOsmExtract } from '../../osm/index.js';
import { buildRegion } from '../../network/index.js';
import { signalizedGrid } from '../../../test/routing/fixtures.js';

const PBF = '../shared/data/baltimore.osm.pbf';
const present = existsSync(PBF);
if (!present) {
  if (process.env.CI === 'true') throw new Error(`${PBF} is missing (required in CI)`);
  console.warn(`skipping the Baltimore edge-cost check: ${PBF} not found`);
}

/**
 * Compares the search's edge costs with the traffic model's for every edge of `g` at two instants
 * of every 15-minute bin of the week (one before, one after the bin centre, so both neighbouring
 * bins are interpolated), bit for bit. Returns how many comparisons took the inline path.
 */
function compareEveryEdgeAndBin(g: Graph, model: TrafficModel, q: CostQuery): number {
  const usable = Uint8Array.from({ length: g.edgeCount }, (_, e) => (g.edgeFlags[e] & EdgeFlag.reversible ? 0 : 1));
  const layout = new SearchLayout(model, new TurnRestrictions(g), usable);
  const costs = new EdgeCosts(model, layout);
  costs.begin(q);
  // unix second where the local week starts (the query's clock)
  const weekStartS = q.depUnixS - q.depWeekS;
  let inline = 0;
  let mismatches = 0;
  for (let f = 0; f < layout.edgeCount; f++) {
    const e = layout.extEdge[f];
    if (costs.isInline(f)) inline++;
    for (let b = 0; b < BINS_PER_WEEK; b++) {
      for (const offsetS of [137, 811]) {
        // the week before and the week after: the search wraps the second of the week itself
        const t = weekStartS + b * BIN_SECONDS + offsetS + (b % 2 === 0 ? SECONDS_PER_WEEK : -SECONDS_PER_WEEK);
        if (!Object.is(costs.travelTimeS(f, t), model.travelTimeS(q, e, t))) mismatches++;
      }
    }
  }
  expect(mismatches).toBe(0);
  return inline;
}

describe("the search's edge costs equal the traffic model's, every edge and every bin", () => {
  // 12 × 12 grid of 100 m blocks, arterials every 4th line (two profile groups), signals where they cross
  const g = signalizedGrid(12, 4).graph;
  const dep = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000; // Monday 08:00 America/New_York

  it('hand-built grid, typical speeds: every edge costed inline, bit-identical to the model', () => {
    const model = new TrafficModel(g, new SpeedFeeds(), null, 'America/New_York');
    const inline = compareEveryEdgeAndBin(g, model, model.query(dep, dep, SpeedMode.typical));
    expect(inline).toBe(g.edgeCount);
  });

  it('hand-built grid, current speeds with learned profiles and live speeds: those edges go to the model', () => {
    const feeds = new SpeedFeeds();
    const model = new TrafficModel(g, feeds, null, 'America/New_York');
    feeds.setLearnedProfile(3, new Float32Array(BINS_PER_WEEK).fill(17));
    feeds.setLive(10, { speedKph: 12, observedAtS: dep, samples: 4 });
    const inline = compareEveryEdgeAndBin(g, model, model.query(dep, dep, SpeedMode.current));
    expect(inline).toBe(g.edgeCount - 2);
  });

  it('hand-built grid, free flow: nothing inline, the model answers', () => {
    const model = new TrafficModel(g, new SpeedFeeds(), null, 'America/New_York');
    expect(compareEveryEdgeAndBin(g, model, model.query(dep, dep, SpeedMode.freeFlow))).toBe(0);
  });

  it.skipIf(!present)('Baltimore extract, typical speeds: bit-identical for every edge and bin', () => {
    const region = buildRegion(readOsmExtract(PBF), { name: 'baltimore' });
    const model = new TrafficModel(region.graph, new SpeedFeeds(), null, region.meta.timeZone);
    const q = model.query(dep, dep, SpeedMode.typical);
    expect(compareEveryEdgeAndBin(region.graph, model, q)).toBe(region.graph.edgeCount);
  });
});
