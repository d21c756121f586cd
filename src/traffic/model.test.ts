import { describe, expect, it } from 'vitest';
import { buildGraph, RoadClass } from '../network/graph.js';
import { BINS_PER_WEEK, SpeedFeeds } from './feeds.js';
import { SpeedMode, TrafficModel, type SpeedModeId } from './model.js';
import { IncidentCache } from './incidents.js';
import { DEFAULT_TURN_COSTS, TurnCosts } from './turn-costs.js';
import { NodeFlag } from '../network/graph.js';

// 0 ---- 1  one primary edge, 50 km/h limit, 1 km; urban context forced
const { graph } = buildGraph({
  nodes: [
    { lat: 0, lon: 0 },
    { lat: 0, lon: 0.009 },
  ],
  edges: [{ source: 0, target: 1, speedKph: 50, roadClass: RoadClass.primary, lengthM: 1000 }],
});
const monday = (h: number, m = 0) => Date.UTC(2026, 10, 23, h, m) / 1000;
const saturday = (h: number) => Date.UTC(2026, 10, 28, h) / 1000;

describe('TrafficModel', () => {
  const feeds = new SpeedFeeds();
  const model = new TrafficModel(graph, feeds, null, 'UTC', { urbanContext: 'urban' });
  const at = (t: number, mode: SpeedModeId = SpeedMode.current, now = monday(0)) =>
    model.speedKph(model.query(t, now, mode), 0, t);

  it('free flow is the limit times the class ratio (primary 0.95)', () => {
    expect(model.freeFlowKph[0]).toBeCloseTo(47.5, 5);
    expect(at(monday(8), SpeedMode.freeFlow)).toBeCloseTo(47.5, 5);
  });

  it('predicted profile: night free flow, weekday peaks at 08:00 and 17:30, lighter weekends', () => {
    expect(at(monday(3))).toBeCloseTo(47.5, 0);
    expect(at(monday(8)) / 47.5).toBeLessThan(0.7);
    expect(at(monday(17, 30)) / 47.5).toBeLessThan(0.7);
    expect(at(monday(12))).toBeGreaterThan(at(monday(8)));
    expect(at(saturday(8))).toBeGreaterThan(at(monday(8)));
  });

  it('learned speeds replace the predicted profile per bin and never exceed the upper bound', () => {
    const f = new SpeedFeeds();
    const m = new TrafficModel(graph, f, null, 'UTC', { urbanContext: 'urban' });
    const p = new Float32Array(BINS_PER_WEEK).fill(NaN);
    p[32] = 30;
    p[31] = 30;
    p[33] = 30; // Monday 07:45–08:30
    p[12] = 500;
    p[11] = 500;
    p[13] = 500; // Monday 03:00: absurd, capped
    f.setLearnedProfile(0, p);
    const q = (t: number) => m.speedKph(m.query(t, monday(0), SpeedMode.current), 0, t);
    expect(q(monday(8, 7) + 30)).toBeCloseTo(30, 5);
    expect(q(monday(3, 7) + 30)).toBeCloseTo(m.upperKph[0], 5);
    // no learned value at 20:00: predicted
    expect(q(monday(20))).toBeCloseTo(
      model.speedKph(model.query(monday(20), monday(0), SpeedMode.current), 0, monday(20)),
      5,
    );
  });

  it('live speeds apply at now and blend back over liveBlendS; typical mode ignores them', () => {
    const f = new SpeedFeeds();
    const m = new TrafficModel(graph, f, null, 'UTC', { urbanContext: 'urban', liveBlendS: 1800 });
    const now = monday(3);
    f.setLive(0, { speedKph: 10, observedAtS: now, samples: 4 });
    const sp = (t: number, mode: SpeedModeId = SpeedMode.current) => m.speedKph(m.query(t, now, mode), 0, t);
    const base = sp(now, SpeedMode.typical);
    expect(sp(now)).toBeCloseTo(10, 5);
    expect(sp(now + 900)).toBeCloseTo(0.5 * 10 + 0.5 * base, 1);
    expect(sp(now + 1800)).toBeCloseTo(base, 1);
    // stale observations are ignored
    expect(m.speedKph(m.query(now + 3600, now + 3600, SpeedMode.current), 0, now + 3600)).toBeCloseTo(
      sp(now + 3600, SpeedMode.typical),
      5,
    );
  });

  it('incidents: closures block while active, others slow by severity', () => {
    const cache = new IncidentCache(null);
    const m = new TrafficModel(graph, new SpeedFeeds(), cache, 'UTC', { urbanContext: 'urban' });
    cache.setIncidents([
      {
        id: 1,
        version: 1,
        type: 4,
        severity: 2,
        eventCode: 201,
        lat: 0,
        lon: 0,
        edges: [0],
        startS: monday(2),
        endS: monday(4),
        delayImpactMinutes: 5,
        closure: false,
        shortDescription: '',
        fullDescription: '',
        createdAtS: 0,
      },
    ]);
    const q = m.query(monday(3), monday(0), SpeedMode.current);
    expect(
      m.speedKph(q, 0, monday(3)) / m.speedKph(m.query(monday(3), monday(0), SpeedMode.typical), 0, monday(3)),
    ).toBeCloseTo(0.6, 5);
    cache.setIncidents([
      {
        id: 2,
        version: 1,
        type: 1,
        severity: 4,
        eventCode: 701,
        lat: 0,
        lon: 0,
        edges: [0],
        startS: monday(2),
        endS: monday(4),
        delayImpactMinutes: 0,
        closure: true,
        shortDescription: '',
        fullDescription: '',
        createdAtS: 0,
      },
    ]);
    expect(m.travelTimeS(m.query(monday(3), monday(0), SpeedMode.current), 0, monday(3))).toBe(Infinity);
    expect(m.travelTimeS(m.query(monday(5), monday(0), SpeedMode.current), 0, monday(5))).toBeLessThan(Infinity);
  });
});

describe('TurnCosts', () => {
  //        3
  //        |
  //  0 --> 1 --> 2     node 1 signalized; 1→3 is a left turn for 0→1 (eastbound)
  //        |
  //        4
  const { graph: g } = buildGraph({
    nodes: [
      { lat: 0, lon: 0 },
      { lat: 0, lon: 0.001, flags: NodeFlag.trafficSignals },
      { lat: 0, lon: 0.002 },
      { lat: 0.001, lon: 0.001 },
      { lat: -0.001, lon: 0.001 },
    ],
    edges: [
      { source: 0, target: 1, speedKph: 50, roadClass: RoadClass.primary, twin: 1 },
      { source: 1, target: 0, speedKph: 50, roadClass: RoadClass.primary, twin: 0 },
      { source: 1, target: 2, speedKph: 50, roadClass: RoadClass.primary },
      { source: 1, target: 3, speedKph: 50, roadClass: RoadClass.primary },
      { source: 1, target: 4, speedKph: 50, roadClass: RoadClass.primary },
    ],
  });
  const tc = new TurnCosts(g, DEFAULT_TURN_COSTS);
  const id = (s: number, t: number) => {
    for (let e = g.firstOut[s]; e < g.firstOut[s + 1]; e++) if (g.edgeTarget[e] === t) return e;
    return -1;
  };
  it('signal delay: left 25 s > through 15 s > right 10 s; U-turn 60 s', () => {
    expect(tc.costS(id(0, 1), id(1, 3))).toBe(25);
    expect(tc.costS(id(0, 1), id(1, 2))).toBe(15);
    expect(tc.costS(id(0, 1), id(1, 4))).toBe(10);
    expect(tc.costS(id(0, 1), id(1, 0))).toBe(60);
  });
});
