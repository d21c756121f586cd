/**
 * Hand-built graphs for routing tests, with learned speed profiles so every expected time is exact.
 *
 * twoRoutes — two one-way ways from an origin stub S→0 to a destination stub 3→T:
 *
 *            1 ========= motorway 10 km (100 km/h; 20 km/h weekdays 07:00–09:30) ========= 2
 *           /  1 km                                                              1 km   \
 *   S ---- 0                                                                              3 ---- T
 *    200 m  \  1 km                                                              1 km   /  200 m
 *            4 ------------------------- primary 8 km (50 km/h) ----------------------- 5
 *
 * Connectors and stubs run at 36 km/h (10 m/s). Limits are set so that every learned speed is at
 * most the free-flow speed (speeds are capped there). Origin = middle of S→0, destination = middle of
 * 3→T. With turn costs off: motorway route 10+100+360+100+10 = 580 s off-peak (2020 s at 08:00),
 * primary route 10+100+576+100+10 = 796 s at any time; distances 12 200 m and 10 200 m.
 */
import {
  buildGraph,
  EdgeFlag,
  NodeFlag,
  RoadClass,
  type EdgeInput,
  type RestrictionInput,
} from '../../src/network/graph.js';
import type { Region } from '../../src/network/region.js';
import { BINS_PER_WEEK, SpeedFeeds } from '../../src/traffic/feeds.js';
import type { TurnCostConfig } from '../../src/traffic/turn-costs.js';

/** Turn costs all zero (exact arithmetic in tests). */
export const NO_TURN_COSTS: TurnCostConfig = {
  signalThroughS: 0,
  signalRightS: 0,
  signalLeftS: 0,
  stopS: 0,
  giveWayS: 0,
  uturnS: 0,
  plainLeftS: 0,
  plainRightS: 0,
};

/** Monday 2026-11-23 at `hh:mm` UTC, unix seconds. */
export function monday(hh: number, mm = 0): number {
  return Date.UTC(2026, 10, 23, hh, mm, 0) / 1000;
}

/** Flat learned profile (km/h in every bin). */
export function flatProfile(kph: number): Float32Array {
  return new Float32Array(BINS_PER_WEEK).fill(kph);
}

/** Profile at `kph` with weekday 07:00–09:30 at `peakKph`. */
export function peakProfile(kph: number, peakKph: number): Float32Array {
  const p = flatProfile(kph);
  for (let d = 0; d < 5; d++) for (let b = 28; b < 38; b++) p[d * 96 + b] = peakKph;
  return p;
}

/** Edge input indices of twoRoutes. */
export const E = {
  stubIn: 0,
  toMotorway: 1,
  motorway: 2,
  fromMotorway: 3,
  toPrimary: 4,
  primary: 5,
  fromPrimary: 6,
  stubOut: 7,
} as const;

/** Origin of twoRoutes: middle of the S→0 stub. */
export const ORIGIN = { lat: 0, lon: -0.001 };
/** Destination: middle of the 3→T stub. */
export const DESTINATION = { lat: 0, lon: 0.101 };

/** The twoRoutes fixture: region, input-index → edge id map, learned speeds. */
export interface TwoRoutes {
  region: Region;
  /** input edge index → EdgeId */
  edgeIdOf: Uint32Array;
  feeds: SpeedFeeds;
}

/** Options: extra flags on the motorway / primary, drop the primary route, restrictions. */
export function twoRoutes(
  opts: {
    motorwayFlags?: number;
    primaryFlags?: number;
    primaryLengthM?: number;
    noPrimary?: boolean;
    restrictions?: RestrictionInput[];
  } = {},
  feeds = new SpeedFeeds(),
): TwoRoutes {
  const nodes = [
    { lat: 0, lon: -0.002 }, // 0: S
    { lat: 0, lon: 0 }, // 1: node "0"
    { lat: 0.005, lon: 0.005 }, // 2: node "1"
    { lat: 0.005, lon: 0.095 }, // 3: node "2"
    { lat: 0, lon: 0.1 }, // 4: node "3"
    { lat: 0, lon: 0.102 }, // 5: T
    { lat: -0.005, lon: 0.005 }, // 6: node "4"
    { lat: -0.005, lon: 0.095 }, // 7: node "5"
  ];
  const R = EdgeFlag.routable | EdgeFlag.oneway;
  const conn = { speedKph: 40, roadClass: RoadClass.tertiary, flags: R } as const;
  const edges: EdgeInput[] = [
    { ...conn, source: 0, target: 1, lengthM: 200, name: 'Origin Rd' },
    { ...conn, source: 1, target: 2, lengthM: 1000, name: 'North Ramp' },
    {
      source: 2,
      target: 3,
      lengthM: 10_000,
      speedKph: 110,
      roadClass: RoadClass.motorway,
      flags: R | EdgeFlag.highway | (opts.motorwayFlags ?? 0),
      name: 'Express Way',
      ref: 'I 95',
    },
    { ...conn, source: 3, target: 4, lengthM: 1000, name: 'North Ramp' },
    { ...conn, source: 1, target: 6, lengthM: 1000, name: 'South Rd' },
    {
      source: 6,
      target: 7,
      lengthM: opts.primaryLengthM ?? 8000,
      speedKph: 53,
      roadClass: RoadClass.primary,
      flags: R | (opts.primaryFlags ?? 0),
      name: 'Main St',
    },
    { ...conn, source: 7, target: 4, lengthM: 1000, name: 'South Rd' },
    { ...conn, source: 4, target: 5, lengthM: 200, name: 'Destination Rd' },
  ];
  const used = opts.noPrimary ? edges.filter((_, i) => i < 4 || i === 7) : edges;
  const { graph, edgeIdOf } = buildGraph({ nodes, edges: used, restrictions: opts.restrictions });
  const idOf = (inputIndex: number) => edgeIdOf[opts.noPrimary && inputIndex === 7 ? 4 : inputIndex];
  for (let i = 0; i < edges.length; i++) {
    if (opts.noPrimary && i >= 4 && i < 7) continue;
    feeds.setLearnedProfile(idOf(i), i === E.motorway ? peakProfile(100, 20) : flatProfile(i === E.primary ? 50 : 36));
  }
  const fullIdOf = new Uint32Array(edges.length);
  for (let i = 0; i < edges.length; i++) fullIdOf[i] = opts.noPrimary && i >= 4 && i < 7 ? 0xffffffff : idOf(i);
  return { region: regionOf(graph, 'two-routes'), edgeIdOf: fullIdOf, feeds };
}

/** Corner and spacing of `signalizedGrid` (100 m blocks near 39° N). */
export const SIGNAL_GRID = { lat0: 39.0, lon0: -77.0, dLat: 0.0009, dLon: 0.00116 } as const;

/**
 * n × n two-way grid, 100 m blocks, arterials (primary, 60 km/h) on every `every`-th row and
 * column, residential streets (30 km/h) elsewhere, traffic signals where arterials cross; in
 * America/New_York. At n = 501 it is the routing benchmark's 1M-edge grid.
 */
export function signalizedGrid(n = 501, every = 10): Region {
  const { lat0, lon0, dLat, dLon } = SIGNAL_GRID;
  const nodes = [];
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++) {
      nodes.push({
        lat: lat0 + r * dLat,
        lon: lon0 + c * dLon,
        flags: r % every === 0 && c % every === 0 ? NodeFlag.trafficSignals : 0,
      });
    }
  const edges: EdgeInput[] = [];
  const add = (a: number, b: number, arterial: boolean) => {
    const i = edges.length;
    const base = arterial
      ? { speedKph: 60, roadClass: RoadClass.primary, flags: EdgeFlag.routable }
      : { speedKph: 30, roadClass: RoadClass.residential, flags: EdgeFlag.routable };
    edges.push({ ...base, source: a, target: b, twin: i + 1, lengthM: 100 });
    edges.push({ ...base, source: b, target: a, twin: i, lengthM: 100 });
  };
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++) {
      const v = r * n + c;
      if (c + 1 < n) add(v, v + 1, r % every === 0);
      if (r + 1 < n) add(v, v + n, c % every === 0);
    }
  const { graph } = buildGraph({ nodes, edges });
  return {
    meta: {
      name: 'grid',
      mapVersion: 'grid-1',
      source: 'generated',
      importedAt: '',
      bounds: [lat0, lon0, lat0 + n * dLat, lon0 + n * dLon],
      country: 'US',
      timeZone: 'America/New_York',
    },
    graph,
    intersections: [],
    blocks: [],
    lots: [],
  };
}

/** Wraps a graph as a region in UTC. */
export function regionOf(graph: Region['graph'], name: string): Region {
  return {
    meta: {
      name,
      mapVersion: `${name}-1`,
      source: 'hand-built',
      importedAt: '2026-01-01T00:00:00Z',
      bounds: [-1, -1, 1, 1],
      country: '',
      timeZone: 'UTC',
    },
    graph,
    intersections: [],
    blocks: [],
    lots: [],
  };
}

/**
 * grid — 3 × 3 two-way residential grid, 100 m blocks, 36 km/h learned everywhere (limit 43,
 * free flow 36.55):
 *
 *   6 ---- 7 ---- 8
 *   |      |      |
 *   3 ---- 4 ---- 5
 *   |      |      |
 *   0 ---- 1 ---- 2
 */
export function grid(): { region: Region; feeds: SpeedFeeds; edgeBetween: (a: number, b: number) => number } {
  const D = 0.0009;
  const nodes = [];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) nodes.push({ lat: r * D, lon: c * D });
  const edges: EdgeInput[] = [];
  const add = (a: number, b: number, name: string) => {
    const i = edges.length;
    const base = { speedKph: 43, roadClass: RoadClass.residential, flags: EdgeFlag.routable, name };
    edges.push({ ...base, source: a, target: b, twin: i + 1 });
    edges.push({ ...base, source: b, target: a, twin: i });
  };
  const rows = ['South St', 'Middle St', 'North St'];
  const cols = ['West Ave', 'Center Ave', 'East Ave'];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 2; c++) add(r * 3 + c, r * 3 + c + 1, rows[r]);
  for (let c = 0; c < 3; c++) for (let r = 0; r < 2; r++) add(r * 3 + c, (r + 1) * 3 + c, cols[c]);
  const { graph } = buildGraph({ nodes, edges });
  const feeds = new SpeedFeeds();
  for (let e = 0; e < graph.edgeCount; e++) feeds.setLearnedProfile(e, flatProfile(36));
  const edgeBetween = (a: number, b: number) => {
    for (let e = graph.firstOut[a]; e < graph.firstOut[a + 1]; e++) if (graph.edgeTarget[e] === b) return e;
    throw new Error(`no edge ${a}->${b}`);
  };
  return { region: regionOf(graph, 'grid'), feeds, edgeBetween };
}
