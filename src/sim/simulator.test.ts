import { describe, it, expect } from 'vitest';
import { NodeFlag, RoadClass } from '../network/graph.js';
import type { Region } from '../network/region.js';
import { planGraph } from '../../test/probes/plan-graph.js';
import { MapMatcher } from '../probes/match/matcher.js';
import type { ProbeRecord } from '../probes/ingest/records.js';
import { createRng } from './prng.js';
import { LOST_TIME_S, SignalPlans } from './signals.js';
import { newStats, simulate, type SimulationOptions } from './simulator.js';

//            n
//            |  (residential)
// w ------- x* ------- e      (primary, signal at x)
//            |
//            s
const plan = planGraph(
  { w: [-400, 0], x: [0, 0], e: [400, 0], n: [0, 300], s: [0, -300] },
  [
    { path: 'wxe', roadClass: RoadClass.primary, speedKph: 50 },
    { path: 'nxs', roadClass: RoadClass.residential, speedKph: 40 },
  ],
  { x: NodeFlag.trafficSignals },
);
const region: Region = {
  meta: {
    name: 'cross',
    mapVersion: 'cross-1',
    source: '',
    importedAt: '',
    bounds: [0, 0, 1, 1],
    country: '',
    timeZone: 'UTC',
  },
  graph: plan.graph,
  intersections: [],
  blocks: [],
  lots: [],
};
const MONDAY_07 = Date.UTC(2026, 0, 5, 7) / 1000;

async function run(opts: Partial<SimulationOptions>) {
  const stats = newStats();
  const out: ProbeRecord[] = [];
  for await (const b of simulate(
    region,
    { startS: MONDAY_07, durationS: 3600, penetration: 1, seed: 3, tripsPerDay: 4000, ...opts },
    stats,
  ))
    out.push(...b);
  return { stats, out };
}

describe('fixed-time signal plans', () => {
  it('gives the primary axis the larger green split and holds the side street until its phase', () => {
    const signals = new SignalPlans(plan.graph, createRng(1));
    const p = signals.planOf(plan.node('x'))!;
    expect(p.cycleS).toBe(90);
    // usable green 90 − 2 × 4 = 82 s split 3 : 1 (primary : residential weights)
    expect(p.green0S).toBeCloseTo(61.5, 6);
    expect(signals.phaseOfInEdge[plan.edge('wx')]).toBe(0);
    expect(signals.phaseOfInEdge[plan.edge('ex')]).toBe(0);
    expect(signals.phaseOfInEdge[plan.edge('nx')]).toBe(1);
    expect(signals.phaseOfInEdge[plan.edge('xe')]).toBe(255);
    const t = p.offsetS + 10 * 90 + 5; // 5 s into a cycle
    expect(signals.nextGreenS(plan.graph, plan.edge('wx'), t)).toBe(t);
    expect(signals.nextGreenS(plan.graph, plan.edge('nx'), t)).toBeCloseTo(p.offsetS + 10 * 90 + 61.5 + LOST_TIME_S, 6);
    // during the side-street green the main road waits for the next cycle
    expect(signals.nextGreenS(plan.graph, plan.edge('wx'), t + 65)).toBeCloseTo(p.offsetS + 11 * 90, 6);
  });
});

describe('simulate', () => {
  it('is deterministic for a seed and reports nothing at zero penetration', async () => {
    const a = await run({});
    const b = await run({});
    expect(a.out.length).toBeGreaterThan(100);
    expect(b.out).toEqual(a.out);
    const none = await run({ penetration: 0 });
    expect(none.out).toHaveLength(0);
    expect(none.stats.routedTrips).toBe(a.stats.routedTrips);
  });

  it('stops vehicles at red lights and slows traffic as demand rises', async () => {
    const light = await run({ tripsPerDay: 2000 });
    const heavy = await run({ tripsPerDay: 20_000, penetration: 0.2 });
    // every routed trip crosses the signal: with random arrivals some wait for green
    expect(light.stats.meanControlDelayS).toBeGreaterThan(5);
    expect(light.out.some((r) => r.ping.speedKph === 0)).toBe(true);
    // the side street (16.5 s of green per 90 s) saturates: queues and slower links
    expect(heavy.stats.meanControlDelayS).toBeGreaterThan(light.stats.meanControlDelayS * 2);
    expect(heavy.stats.meanTripS).toBeGreaterThan(light.stats.meanTripS * 1.3);
  });

  it('produces pings that the map matcher puts back on the driven streets', async () => {
    const { out } = await run({ tripsPerDay: 300, noiseM: 5 });
    const byTrace = new Map<string, ProbeRecord[]>();
    for (const r of out) byTrace.set(r.traceId, [...(byTrace.get(r.traceId) ?? []), r]);
    const matcher = new MapMatcher(plan.graph);
    let matched = 0;
    for (const [id, recs] of byTrace) {
      const trajs = matcher.match(
        id,
        recs.map((r) => r.ping),
      );
      if (trajs.length === 1 && trajs[0].traversals.length >= 2) matched++;
    }
    expect(matched / byTrace.size).toBeGreaterThan(0.9);
  });
});
