/**
 * Hand-built fixtures for the analytics tests: a four-way signalized crossing and trajectories
 * with exactly known timing.
 *
 *              N (3)
 *              |
 *   W (0) ---- C (1) -- E (2) - D (5)      W-C, N-C, C-S 400 m; C-E 120 m; E-D 20 m;
 *              |                  |        D-DN, D-DS 100 m; everything 36 km/h (10 m/s)
 *              S (4)              DS (7)   C = intersection 1001 "Main St & 1st Ave" (signals)
 *                                          D = intersection 1002 "Main St & 2nd Ave", 140 m east
 *                                          of C, so D's upstream zone is clipped at C.
 */
import { buildGraph, NodeFlag, RoadClass, type EdgeId, type EdgeInput, type Graph } from '../../src/network/graph.js';
import type { Intersection, Movement, Region, TurnType } from '../../src/network/region.js';
import type { EdgeTraversal, MatchedPing, Trajectory } from '../../src/probes/trajectory.js';

export const ARM_M = 400;
export const SPEED_KPH = 36;
const LAT = 39.29;
const LON = -76.61;
const DLAT = ARM_M / 111_195;
const DLON = ARM_M / (111_195 * Math.cos((LAT * Math.PI) / 180));

/** Node ids of the fixture. */
export const N = { W: 0, C: 1, E: 2, N: 3, S: 4, D: 5, DN: 6, DS: 7 } as const;

export interface Fixture {
  region: Region;
  graph: Graph;
  /** directed edge id from node a to node b */
  edge: (a: number, b: number) => EdgeId;
}

function turnTypeOf(angle: number): TurnType {
  if (Math.abs(angle) < 30) return 'through';
  if (Math.abs(angle) > 150) return 'uturn';
  return angle < 0 ? 'left' : 'right';
}

/** Builds the fixture region (time zone America/New_York). */
export function buildFixture(): Fixture {
  const nodes = [
    { lat: LAT, lon: LON - DLON }, // W
    { lat: LAT, lon: LON, flags: NodeFlag.trafficSignals | NodeFlag.intersection, osmId: 1001 }, // C
    { lat: LAT, lon: LON + DLON * 0.3 }, // E
    { lat: LAT + DLAT, lon: LON }, // N
    { lat: LAT - DLAT, lon: LON }, // S
    { lat: LAT, lon: LON + DLON * 0.35, flags: NodeFlag.intersection, osmId: 1002 }, // D, 20 m east of E
    { lat: LAT + DLAT / 4, lon: LON + DLON * 0.35 }, // DN
    { lat: LAT - DLAT / 4, lon: LON + DLON * 0.35 }, // DS
  ];
  const pairs: Array<[number, number, string, number]> = [
    [N.W, N.C, 'Main St', ARM_M],
    [N.C, N.E, 'Main St', 120],
    [N.N, N.C, '1st Ave', ARM_M],
    [N.C, N.S, '1st Ave', ARM_M],
    [N.E, N.D, 'Main St', 20],
    [N.DN, N.D, '2nd Ave', 100],
    [N.D, N.DS, '2nd Ave', 100],
  ];
  const edges: EdgeInput[] = [];
  for (const [a, b, name, len] of pairs) {
    const i: number = edges.length;
    edges.push({
      source: a,
      target: b,
      speedKph: SPEED_KPH,
      roadClass: RoadClass.secondary,
      name,
      lengthM: len,
      twin: i + 1,
    });
    edges.push({
      source: b,
      target: a,
      speedKph: SPEED_KPH,
      roadClass: RoadClass.secondary,
      name,
      lengthM: len,
      twin: i,
    });
  }
  const { graph } = buildGraph({ nodes, edges });
  const edge = (a: number, b: number): EdgeId => {
    for (let e = graph.firstOut[a]; e < graph.firstOut[a + 1]; e++) if (graph.edgeTarget[e] === b) return e;
    throw new Error(`no edge ${a}->${b}`);
  };
  let movementId = 0;
  const makeIx = (node: number, id: number, name: string, signalized: boolean): Intersection => {
    const movements: Movement[] = [];
    for (let k = graph.firstIn[node]; k < graph.firstIn[node + 1]; k++) {
      const inEdge = graph.inEdges[k];
      for (let outEdge = graph.firstOut[node]; outEdge < graph.firstOut[node + 1]; outEdge++) {
        const inH = graph.edgeBearingIn[inEdge];
        const outH = graph.edgeBearingOut[outEdge];
        let angle = ((outH - inH + 540) % 360) - 180;
        if (angle === -180) angle = 180;
        movements.push({
          id: movementId++,
          inEdge,
          outEdge,
          turnType: turnTypeOf(angle),
          inHeadingDeg: inH,
          outHeadingDeg: outH,
          turnAngleDeg: angle,
          inName: graph.names[graph.edgeNameId[inEdge]],
          outName: graph.names[graph.edgeNameId[outEdge]],
          allowed: true,
        });
      }
    }
    return {
      id,
      node,
      lat: graph.nodeLatE7[node] / 1e7,
      lon: graph.nodeLonE7[node] / 1e7,
      name,
      streetNames: name.split(' & '),
      signalized,
      stop: false,
      giveWay: false,
      movements,
    };
  };
  const intersections = [makeIx(N.C, 1001, 'Main St & 1st Ave', true), makeIx(N.D, 1002, 'Main St & 2nd Ave', false)];
  const region: Region = {
    meta: {
      name: 'fixture',
      mapVersion: 'fixture-20261101',
      source: 'hand-built',
      importedAt: '2026-11-01T00:00:00Z',
      bounds: [LAT - DLAT, LON - DLON, LAT + DLAT, LON + DLON * 0.35],
      country: 'US',
      timeZone: 'America/New_York',
    },
    graph,
    intersections,
    blocks: [],
    lots: [],
  };
  return { region, graph, edge };
}

/** A phase of a vehicle's motion: drive `distanceM` at `speedMps`, or stand still `stopS`. */
export type Phase = { distanceM: number; speedMps: number } | { stopS: number };

/**
 * A trajectory over `path` (consecutive node ids) starting at `startS` at the first node, moving
 * by `phases`, pinged every `pingEveryS` seconds (reported speeds included when `withSpeed`).
 */
export function makeTrajectory(
  fx: Fixture,
  traceId: string,
  path: number[],
  startS: number,
  phases: Phase[],
  opts: { pingEveryS?: number; withSpeed?: boolean; part?: number } = {},
): Trajectory {
  const every = opts.pingEveryS ?? 1;
  // breakpoints of distance over time
  const bp: Array<{ t: number; d: number; v: number }> = [{ t: startS, d: 0, v: 0 }];
  for (const ph of phases) {
    const last = bp[bp.length - 1];
    if ('stopS' in ph) bp.push({ t: last.t + ph.stopS, d: last.d, v: 0 });
    else bp.push({ t: last.t + ph.distanceM / ph.speedMps, d: last.d + ph.distanceM, v: ph.speedMps });
  }
  const endS = bp[bp.length - 1].t;
  const posAt = (t: number): { d: number; v: number } => {
    for (let i = 1; i < bp.length; i++) {
      if (t <= bp[i].t + 1e-9) {
        const a = bp[i - 1];
        const b = bp[i];
        const f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 1;
        return { d: a.d + f * (b.d - a.d), v: b.v };
      }
    }
    return { d: bp[bp.length - 1].d, v: 0 };
  };
  const lastTimeAt = (d: number): number => {
    // the moment the vehicle moves past d
    for (let i = 1; i < bp.length; i++) {
      if (bp[i].d > d + 1e-9 && bp[i].d > bp[i - 1].d)
        return bp[i - 1].t + ((d - bp[i - 1].d) / (bp[i].d - bp[i - 1].d)) * (bp[i].t - bp[i - 1].t);
    }
    return endS;
  };
  const edges = path.slice(1).map((b, i) => fx.edge(path[i], b));
  const cum = [0];
  for (const e of edges) cum.push(cum[cum.length - 1] + fx.graph.edgeLengthM[e]);
  const total = bp[bp.length - 1].d;
  const traversals: EdgeTraversal[] = [];
  edges.forEach((e, i) => {
    if (cum[i] >= total) return;
    const enterS = i === 0 ? startS : lastTimeAt(cum[i]);
    const full = cum[i + 1] <= total;
    const exitS = full ? lastTimeAt(cum[i + 1]) : endS;
    traversals.push({
      edge: e,
      enterS,
      exitS,
      coveredFraction: full ? 1 : (total - cum[i]) / (cum[i + 1] - cum[i]),
      pings: [],
    });
  });
  let index = 0;
  for (let t = startS; t <= endS + 1e-9; t += every) {
    const { d, v } = posAt(t);
    // a vehicle standing exactly on a node stays on the edge it arrived by
    let i = cum.findIndex((c, k) => k > 0 && d <= c + 1e-9) - 1;
    if (i < 0) i = edges.length - 1;
    i = Math.min(i, traversals.length - 1);
    const ping: MatchedPing = { index: index++, tS: t, lat: 0, lon: 0, edge: edges[i], offsetM: d - cum[i] };
    if (opts.withSpeed) ping.speedKph = v * 3.6;
    traversals[i].pings.push(ping);
  }
  return { traceId, part: opts.part ?? 0, traversals };
}

/** Unix seconds of a local New York wall-clock time (EST, UTC−5, valid for the November dates used). */
export function nyS(isoLocal: string): number {
  return Date.parse(`${isoLocal}-05:00`) / 1000;
}
