import { describe, expect, it } from 'vitest';
import { buildGraph, EdgeFlag, RoadClass, type EdgeInput } from '../../network/graph.js';
import { SpeedFeeds, BINS_PER_WEEK } from '../../traffic/feeds.js';
import { TrafficModel, SpeedMode } from '../../traffic/model.js';
import { BIN_SECONDS, localSecondOfWeek } from '../../traffic/clock.js';
import { TimeWarp, buildWarpedMetric, staticCeilings, type WarpedMetric } from './time-warp.js';
import { tripUse } from './trip-use.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('TimeWarp', () => {
  it('inverts its work function, beyond the last cell too', () => {
    const rnd = lcg(7);
    const rate = Float64Array.from({ length: 50 }, () => 0.2 + rnd() * 0.8);
    const w = new TimeWarp(0, 10, rate);
    for (let i = 0; i < 500; i++) {
      const x = rnd() * 700; // cells end at 500 s
      expect(w.inverse(w.work(x))).toBeCloseTo(x, 9);
    }
    expect(w.remainingS(123, 0)).toBe(0);
    for (let i = 0; i < 500; i++) {
      const x = rnd() * 700,
        omega = rnd() * 300;
      expect(w.remainingS(x, omega)).toBeCloseTo(w.inverse(w.work(x) + omega) - x, 9);
    }
    // constant rate 0.5: 10 work takes 20 s
    const c = new TimeWarp(0, 10, new Float64Array(8).fill(0.5));
    expect(c.remainingS(15, 10)).toBeCloseTo(20, 12);
    expect(c.remainingS(75, 10)).toBeCloseTo(20, 12);
  });
});

/** Arterials and local streets (urban and rural), a ferry-slow service road, signals, one-ways. */
function mixedCase() {
  const rnd = lcg(11);
  const k = 14;
  const nodes = [];
  for (let r = 0; r < k; r++)
    for (let c = 0; c < k; c++) nodes.push({ lat: 39 + r * 0.002, lon: -77 + c * 0.0026, flags: 0 });
  const edges: EdgeInput[] = [];
  const classes = [RoadClass.motorway, RoadClass.primary, RoadClass.tertiary, RoadClass.residential, RoadClass.service];
  const add = (a: number, b: number) => {
    const roadClass = classes[Math.floor(rnd() * classes.length)];
    const speedKph = roadClass === RoadClass.service ? 5 : 20 + Math.floor(rnd() * 80);
    const base = { speedKph, roadClass, flags: EdgeFlag.routable, lengthM: 50 + rnd() * 3000 };
    const i = edges.length;
    edges.push({ ...base, source: a, target: b, twin: i + 1 });
    edges.push({ ...base, source: b, target: a, twin: i });
  };
  for (let r = 0; r < k; r++)
    for (let c = 0; c < k; c++) {
      const v = r * k + c;
      if (c + 1 < k) add(v, v + 1);
      if (r + 1 < k) add(v, v + k);
    }
  const g = buildGraph({ nodes, edges }).graph;
  const feeds = new SpeedFeeds();
  // learned profiles on some edges (faster than predicted in places), live speeds on others
  for (let e = 0; e < g.edgeCount; e += 7) {
    const p = new Float32Array(BINS_PER_WEEK);
    for (let b = 0; b < BINS_PER_WEEK; b++) p[b] = rnd() < 0.1 ? NaN : 5 + rnd() * 90;
    feeds.setLearnedProfile(e, p);
  }
  return { g, feeds, rnd };
}

/** Checks ∫ R over every traversal ≥ its work, for entries spread over the window. */
function checkAdmissible(
  model: TrafficModel,
  wm: WarpedMetric,
  startUnixS: number,
  spanS: number,
  rnd: () => number,
): number {
  const g = model.graph;
  const w = wm.warp;
  const q = model.query(startUnixS, startUnixS - 600, SpeedMode.current);
  let tightest = Infinity;
  for (let e = 0; e < g.edgeCount; e++) {
    for (let i = 0; i < 24; i++) {
      const x = i === 0 ? 0 : i === 1 ? spanS : rnd() * spanS;
      const tt = model.travelTimeS(q, e, startUnixS + x);
      const did = w.work(x + tt) - w.work(x);
      expect(did).toBeGreaterThanOrEqual(wm.edgeWork[e] * 0.99999);
      tightest = Math.min(tightest, did / wm.edgeWork[e]);
    }
  }
  for (const tc of [2, 10, 25, 60]) {
    for (let i = 0; i < 200; i++) {
      const x = rnd() * spanS;
      expect(w.work(x + tc) - w.work(x)).toBeGreaterThanOrEqual(tc * wm.turnScale * 0.99999);
    }
  }
  return tightest;
}

describe('warped window metric', () => {
  it('never credits an edge or a turn with more work than its traversal does (peaks, night, week wrap, learned and live speeds)', () => {
    const { g, feeds, rnd } = mixedCase();
    const model = new TrafficModel(g, feeds, null, 'America/New_York');
    const usable = new Uint8Array(g.edgeCount).fill(1);
    const use = tripUse(model, usable, new Float32Array(g.edgeCount).fill(2));
    // live speeds observed at "now" (10 min before the window start), some above the predicted ones
    const departures = [
      Date.UTC(2026, 10, 23, 13, 0, 0) / 1000, // Mon 08:00 local
      Date.UTC(2026, 10, 23, 21, 15, 0) / 1000, // Mon 16:15, into the PM peak
      Date.UTC(2026, 10, 24, 8, 0, 0) / 1000, // Tue 03:00
      Date.UTC(2026, 10, 30, 3, 45, 0) / 1000, // Sun 22:45 → Monday across the week end
    ];
    for (const dep of departures) {
      for (let e = 3; e < g.edgeCount; e += 11)
        feeds.setLive(e, { speedKph: 5 + rnd() * 100, observedAtS: dep - 600, samples: 3 });
      const weekS = localSecondOfWeek(dep, 'America/New_York');
      const startWeekS = Math.floor(weekS / BIN_SECONDS) * BIN_SECONDS;
      const startUnixS = dep - (weekS - startWeekS);
      for (const horizonS of [600, 4800]) {
        const win = { startWeekS, coverEndWeekS: startWeekS + BIN_SECONDS + horizonS };
        const bound = windowCeilings(model, feeds, win.startWeekS, win.coverEndWeekS);
        const wm = buildWarpedMetric(model, win, staticCeilings(model, feeds, bound), use, 60);
        const tightest = checkAdmissible(model, wm, startUnixS, BIN_SECONDS + horizonS, rnd);
        // and not trivially loose: some traversal does just the work it is credited with
        expect(tightest).toBeLessThan(1.01);
      }
    }
  });

  it('follows the reference road group: its edges are bounded within 1 % at every instant of an AM-peak window', () => {
    const { g } = mixedCase();
    const model = new TrafficModel(g, new SpeedFeeds(), null, 'America/New_York');
    const usable = new Uint8Array(g.edgeCount).fill(1);
    const use = tripUse(model, usable, new Float32Array(g.edgeCount));
    const dep = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000;
    const weekS = localSecondOfWeek(dep, 'America/New_York');
    const startWeekS = Math.floor(weekS / BIN_SECONDS) * BIN_SECONDS;
    const win = { startWeekS, coverEndWeekS: startWeekS + BIN_SECONDS + 4800 };
    const wm = buildWarpedMetric(model, win, new Float64Array(g.edgeCount).fill(NaN), use, 60);
    expect(wm.reference).toMatch(/^group \d/);
    const ref = Number(wm.reference.split(' ')[1]);
    const q = model.query(dep, dep, SpeedMode.typical);
    const startUnixS = dep - (weekS - startWeekS);
    let n = 0;
    for (let e = 0; e < g.edgeCount; e++) {
      if (model.profileGroup[e] !== ref || model.freeFlowTimeS(e) > 60) continue;
      for (let x = 0; x <= 900 + 4800; x += 300) {
        const tt = model.travelTimeS(q, e, startUnixS + x);
        const boundS = wm.warp.remainingS(x, wm.edgeWork[e]);
        expect(boundS).toBeLessThanOrEqual(tt * 1.00001);
        expect(boundS).toBeGreaterThan(tt * 0.99);
        n++;
      }
    }
    expect(n).toBeGreaterThan(50);
  });
});

/** Static speed ceilings of every edge over a window (as the window tables compute them). */
function windowCeilings(model: TrafficModel, feeds: SpeedFeeds, startWeekS: number, endWeekS: number): Float64Array {
  const g = model.graph;
  const out = new Float64Array(g.edgeCount);
  const first = Math.floor(startWeekS / BIN_SECONDS - 0.5);
  const last = Math.floor(endWeekS / BIN_SECONDS - 0.5) + 1;
  for (let e = 0; e < g.edgeCount; e++) {
    let mx = 0;
    for (let b = first; b <= last; b++) {
      const bin = ((b % BINS_PER_WEEK) + BINS_PER_WEEK) % BINS_PER_WEEK;
      mx = Math.max(mx, model.freeFlowKph[e] * model.factors[model.profileGroup[e] * BINS_PER_WEEK + bin]);
      const l = feeds.learnedSpeedKph(e, bin);
      if (l === l) mx = Math.max(mx, l);
    }
    const live = feeds.liveSpeed(e);
    if (live) mx = Math.max(mx, live.speedKph);
    out[e] = Math.max(model.cfg.minSpeedKph, Math.min(model.upperKph[e], mx));
  }
  return out;
}
