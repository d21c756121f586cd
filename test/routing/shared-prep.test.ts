/**
 * Engines that wrap read-only structures built once (`prep.ts`) answer exactly like engines that
 * build their own, and window tables built by one thread serve another (`shared-routing.ts`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import { RoutingEngine, DEFAULT_ENGINE_CONFIG, NO_CRITERIA, type PlanRequest } from '../../src/routing/engine.js';
import { buildEnginePrep, registerEnginePrep, shareEnginePrep } from '../../src/routing/prep.js';
import { decodeGraph, encodeGraph } from '../../src/network/bundle.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { TrafficModel } from '../../src/traffic/model.js';
import { threadWindowExchange } from '../../src/app/serving/shared-routing.js';
import { SIGNAL_GRID, signalizedGrid } from './fixtures.js';
import { typedArrays } from '../helpers/typed-arrays.js';

// 20 × 20 signalised grid (arterials every 5th line), America/New_York
const N = 20;
const graph = signalizedGrid(N, 5).graph;
const TZ = 'America/New_York';
const AM = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000; // Monday 08:00 America/New_York

function points(seed: number): () => { lat: number; lon: number } {
  const { lat0, lon0, dLat, dLon } = SIGNAL_GRID;
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  return () => ({ lat: lat0 + Math.floor(rnd() * N) * dLat, lon: lon0 + (Math.floor(rnd() * (N - 1)) + 0.4) * dLon });
}

function request(a: { lat: number; lon: number }, b: { lat: number; lon: number }): PlanRequest {
  return {
    waypoints: [a, b],
    departS: AM,
    nowS: AM,
    shortest: false,
    useTraffic: true,
    criteria: NO_CRITERIA,
    maxAlternates: 0,
    ambiguousOrigin: false,
  };
}

describe('engines wrapping structures built once', () => {
  const prep = shareEnginePrep(buildEnginePrep(graph, DEFAULT_ENGINE_CONFIG));

  it('holds every typed array in shared memory', () => {
    const arrays = typedArrays(prep);
    expect(arrays.length).toBeGreaterThan(20);
    for (const a of arrays) expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('answers 40 seeded pairs like an engine that builds its own, two engines on one copy taking turns', () => {
    const own = new RoutingEngine(graph, new SpeedFeeds(), null, TZ);
    const a = new RoutingEngine(graph, new SpeedFeeds(), null, TZ, {}, prep);
    const b = new RoutingEngine(graph, new SpeedFeeds(), null, TZ, {}, prep);
    expect(a.cch).toBe(prep.cch);
    expect(b.landmarks).toBe(prep.landmarks);
    // a search marks its targets in the layout's flags (threads search at the same time): each
    // engine has its own flags, every other array is the shared one
    const layoutOf = (e: RoutingEngine) => (e as unknown as { astar: { layout: typeof prep.layout } }).astar.layout;
    expect(layoutOf(a).turnCode).toBe(prep.layout.turnCode);
    expect(layoutOf(a).edgeFlags).not.toBe(prep.layout.edgeFlags);
    expect(layoutOf(a).edgeFlags).not.toBe(layoutOf(b).edgeFlags);
    expect(layoutOf(a).edgeFlags).toEqual(prep.layout.edgeFlags);
    const point = points(5);
    for (let i = 0; i < 40; i++) {
      const r = request(point(), point());
      const [ref] = own.plan(r);
      const [x] = (i % 2 === 0 ? a : b).plan(r);
      const [y] = (i % 2 === 0 ? b : a).plan({ ...r, waypoints: [r.waypoints[1], r.waypoints[0]] });
      const [refBack] = own.plan({ ...r, waypoints: [r.waypoints[1], r.waypoints[0]] });
      expect(x.searchArrivalS, `pair ${i}`).toBe(ref.searchArrivalS);
      expect(x.legs[0].edges, `pair ${i}`).toEqual(ref.legs[0].edges);
      expect(y.searchArrivalS, `pair ${i} back`).toBe(refBack.searchArrivalS);
    }
  });

  it("a thread's other traffic models of the graph share the registered per-edge constants", () => {
    const g = decodeGraph(encodeGraph(graph));
    const before = new TrafficModel(g, new SpeedFeeds(), null, TZ);
    registerEnginePrep(g, prep);
    const after = new TrafficModel(g, new SpeedFeeds(), null, 'UTC');
    expect(after.freeFlowKph).toBe(prep.model.freeFlowKph);
    expect(after.upperKph).toBe(prep.model.upperKph);
    expect(after.profileGroup).toBe(prep.model.profileGroup);
    expect(after.freeFlowKph).toEqual(before.freeFlowKph);
    expect(after.profileGroup).toEqual(before.profileGroup);
    // other settings of the constants: the model computes its own
    const rural = new TrafficModel(g, new SpeedFeeds(), null, TZ, { urbanContext: 'rural' });
    expect(rural.profileGroup).not.toBe(prep.model.profileGroup);
  });

  it('refuses structures built with other settings', () => {
    expect(() => new RoutingEngine(graph, new SpeedFeeds(), null, TZ, { landmarkCount: 3 }, prep)).toThrow(
      /other settings/,
    );
  });
});

describe('window tables built by the window builder serve a serving thread', () => {
  const prep = shareEnginePrep(buildEnginePrep(graph, DEFAULT_ENGINE_CONFIG));
  const channel = new MessageChannel();
  afterAll(() => {
    channel.port1.close();
    channel.port2.close();
  });
  // two "threads": each its own graph object (as a thread decodes it), registered with the structures
  const bytes = encodeGraph(graph);
  const gA = decodeGraph(bytes);
  const gB = decodeGraph(bytes);
  registerEnginePrep(gA, prep, threadWindowExchange(channel.port1, 'builder'));
  registerEnginePrep(gB, prep, threadWindowExchange(channel.port2, 'serving'));
  const feedsB = new SpeedFeeds();
  const engA = new RoutingEngine(gA, new SpeedFeeds(), null, TZ);
  const engB = new RoutingEngine(gB, feedsB, null, TZ);
  // what `window-builder.ts` does with a request (here without the main thread's relay)
  const requests: string[] = [];
  channel.port1.on('message', (m: { t?: string; bin: number; horizonS: number }) => {
    if (m.t !== 'window-build') return;
    requests.push(`${m.bin}:${m.horizonS}`);
    engA.windows!.requested(m.bin, m.horizonS);
  });
  const exact = new RoutingEngine(graph, new SpeedFeeds(), null, TZ, { windowBounds: false });
  const point = points(11);
  const pairs = Array.from({ length: 10 }, () => request(point(), point()));

  it('a serving thread builds none: it asks, answers exactly meanwhile, then with the tables the builder publishes', async () => {
    const wa = engA.windows!;
    const wb = engB.windows!;
    const [first] = engB.plan(pairs[0]);
    expect(engB.lastBounds).toBe('freeFlow');
    expect(first.searchArrivalS).toBeCloseTo(exact.plan(pairs[0])[0].searchArrivalS, 6);
    expect(wb.busy).toBe(false);
    for (let i = 0; i < 200 && (requests.length === 0 || wa.busy || wb.adopted < wa.built); i++)
      await new Promise((r) => setImmediate(r));
    // the bin's longest horizon first, then the one the trip asked for
    expect(requests.length).toBeGreaterThan(0);
    expect(wa.built).toBeGreaterThan(0);
    expect(wb.adopted).toBe(wa.built);
    expect(wb.built).toBe(0);
    let windowAnswers = 0;
    for (const r of pairs) {
      const [x] = engB.plan(r);
      if (engB.lastBounds === 'window') windowAnswers++;
      expect(x.searchArrivalS).toBeCloseTo(exact.plan(r)[0].searchArrivalS, 6);
    }
    expect(windowAnswers).toBeGreaterThan(0);
    expect(wb.built).toBe(0);
  });

  it('the builder publishes a table it holds again when asked for it', async () => {
    const wa = engA.windows!;
    const wb = engB.windows!;
    const built = wa.built;
    const adopted = wb.adopted;
    const [bin, horizonS] = requests[0].split(':').map(Number);
    wa.requested(bin, horizonS);
    for (let i = 0; i < 100 && wb.adopted === adopted; i++) await new Promise((r) => setImmediate(r));
    expect(wb.adopted).toBe(adopted + 1);
    expect(wa.built).toBe(built);
  });

  it("a live speed faster than a shared table's bound drops it in that thread only", () => {
    const wa = engA.windows!;
    const wb = engB.windows!;
    // every edge at 200 km/h (capped at its free-flow speed): above every peak bound
    for (let e = 0; e < graph.edgeCount; e++) feedsB.setLive(e, { speedKph: 200, observedAtS: AM, samples: 5 });
    const [x] = engB.plan(pairs[0]);
    expect(engB.lastBounds).toBe('freeFlow');
    expect(wb.invalidated).toBeGreaterThan(0);
    const exactB = new RoutingEngine(graph, feedsB, null, TZ, { windowBounds: false });
    expect(x.searchArrivalS).toBeCloseTo(exactB.plan(pairs[0])[0].searchArrivalS, 6);
    engA.plan(pairs[0]);
    expect(engA.lastBounds).toBe('window');
    expect(wa.invalidated).toBe(0);
  });
});
