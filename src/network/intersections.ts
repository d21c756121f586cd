/**
 * The intersection catalog for analytics: every graph node flagged `intersection` (≥ 3 distinct
 * road neighbours, or a traffic signal) with all its movements (inbound edge → outbound edge),
 * and the clusters of signal nodes that form one signalized intersection (`signalClusters`).
 */
import { turnAngleDeg } from '../geo/index.js';
import { NodeFlag, ROAD_CLASS_NAMES, TurnRestrictions } from './graph.js';
import type { EdgeId, Graph, NodeId } from './graph.js';
import type { Intersection, Movement, TurnType } from './region.js';

/** |turn angle| up to this (degrees) is "through". */
export const THROUGH_MAX_DEG = 30;
/** |turn angle| from this (degrees) is a U-turn, as is turning onto the twin of the inbound edge. */
export const UTURN_MIN_DEG = 150;

/** Turn type of a movement from its signed angle (degrees, negative = left). */
export function turnTypeOf(angleDeg: number, isTwin: boolean): TurnType {
  const a = Math.abs(angleDeg);
  if (isTwin || a >= UTURN_MIN_DEG) return 'uturn';
  if (a <= THROUGH_MAX_DEG) return 'through';
  return angleDeg < 0 ? 'left' : 'right';
}

function label(g: Graph, e: EdgeId): string {
  return g.names[g.edgeNameId[e]] || g.names[g.edgeRefId[e]];
}

/**
 * Builds intersections in node order (= ascending OSM node id) and movements in intersection then
 * (inbound edge id, turn angle) order; movement ids are dense from 0 in that order.
 */
export function buildIntersections(g: Graph): Intersection[] {
  const tr = new TurnRestrictions(g);
  const out: Intersection[] = [];
  let nextMovementId = 0;
  for (let n = 0; n < g.nodeCount; n++) {
    const flags = g.nodeFlags[n];
    if ((flags & NodeFlag.intersection) === 0) continue;
    const lat = g.nodeLatE7[n] / 1e7, lon = g.nodeLonE7[n] / 1e7;

    // street names, most important road class first, then alphabetical
    const named = new Map<string, number>();
    const touch = (e: EdgeId): void => {
      const s = label(g, e);
      if (!s) return;
      const rc = g.edgeRoadClass[e];
      const prev = named.get(s);
      if (prev === undefined || rc < prev) named.set(s, rc);
    };
    const movements: Movement[] = [];
    for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) touch(g.inEdges[k]);
    for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) touch(e);
    const inList = Array.from(g.inEdges.subarray(g.firstIn[n], g.firstIn[n + 1])).sort((a, b) => a - b);
    for (const inE of inList) {
      if (g.edgeSource[inE] === n) continue; // self-loop
      const inHeading = g.edgeBearingIn[inE];
      const row: Movement[] = [];
      for (let outE = g.firstOut[n]; outE < g.firstOut[n + 1]; outE++) {
        if (g.edgeTarget[outE] === n) continue;
        const outHeading = g.edgeBearingOut[outE];
        const angle = roundDeg(turnAngleDeg(inHeading, outHeading));
        row.push({
          id: 0, inEdge: inE, outEdge: outE,
          turnType: turnTypeOf(angle, g.edgeTwin[inE] === outE),
          inHeadingDeg: roundDeg(inHeading), outHeadingDeg: roundDeg(outHeading),
          turnAngleDeg: angle === -180 ? 180 : angle,
          inName: label(g, inE), outName: label(g, outE),
          allowed: tr.isTurnAllowed(inE, outE),
        });
      }
      row.sort((a, b) => a.turnAngleDeg - b.turnAngleDeg || a.outEdge - b.outEdge);
      movements.push(...row);
    }
    for (const m of movements) m.id = nextMovementId++;
    const streetNames = Array.from(named.entries()).sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([s]) => s);
    out.push({
      id: g.nodeOsmId[n], node: n, lat, lon,
      name: streetNames.join(' & '),
      streetNames,
      signalized: (flags & NodeFlag.trafficSignals) !== 0,
      stop: (flags & NodeFlag.stop) !== 0,
      giveWay: (flags & NodeFlag.giveWay) !== 0,
      movements,
    });
  }
  return out;
}

function roundDeg(d: number): number {
  return Math.round(d * 10) / 10;
}

/** Road class name of an edge (for docs and debugging). */
export function roadClassName(g: Graph, e: EdgeId): string {
  return ROAD_CLASS_NAMES[g.edgeRoadClass[e]];
}

/**
 * A traffic signal on a node that is not a junction (two road neighbours at most) and lies this
 * close to a junction along the road is that junction's approach signal: its stop line. Metres.
 */
export const APPROACH_SIGNAL_M = 30;
/**
 * Signalized junctions this close to each other along the road (through no other junction) are
 * one intersection: the two crossings of a dual carriageway, clustered signal nodes. Metres.
 */
export const SIGNAL_CLUSTER_M = 30;

/** Nodes that form one signalized intersection. */
export interface SignalCluster {
  /** every node of the cluster (junctions and approach signals), ascending */
  nodes: NodeId[];
  /** the cluster's junction nodes (≥ 3 distinct road neighbours), ascending */
  junctions: NodeId[];
}

function neighbourCount(g: Graph, n: NodeId): number {
  const seen: number[] = [];
  for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) {
    const t = g.edgeTarget[e];
    if (t !== n && !seen.includes(t)) seen.push(t);
  }
  for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) {
    const t = g.edgeSource[g.inEdges[k]];
    if (t !== n && !seen.includes(t)) seen.push(t);
  }
  return seen.length;
}

/**
 * Junctions reachable from `start` along the road (either direction of travel) within `maxM`
 * metres without passing another junction, nearest first (ties by node id).
 */
function nearbyJunctions(g: Graph, start: NodeId, maxM: number, isJunction: (n: NodeId) => boolean): Array<{ node: NodeId; distM: number }> {
  const dist = new Map<NodeId, number>([[start, 0]]);
  const queue: NodeId[] = [start];
  const found: Array<{ node: NodeId; distM: number }> = [];
  while (queue.length > 0) {
    // the search is tiny (a few degree-2 nodes): a linear pick of the nearest is enough
    let bi = 0;
    for (let i = 1; i < queue.length; i++) if (dist.get(queue[i])! < dist.get(queue[bi])!) bi = i;
    const n = queue.splice(bi, 1)[0];
    const d = dist.get(n)!;
    if (n !== start && isJunction(n)) { found.push({ node: n, distM: d }); continue; }
    const relax = (m: NodeId, len: number): void => {
      const nd = d + len;
      if (nd > maxM || nd >= (dist.get(m) ?? Infinity)) return;
      if (!dist.has(m)) queue.push(m);
      dist.set(m, nd);
    };
    for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) relax(g.edgeTarget[e], g.edgeLengthM[e]);
    for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) relax(g.edgeSource[g.inEdges[k]], g.edgeLengthM[g.inEdges[k]]);
  }
  return found.sort((a, b) => a.distM - b.distM || a.node - b.node);
}

/**
 * Groups signal nodes into signalized intersections: an approach signal (a signal node that is
 * not a junction) joins the nearest junction within `APPROACH_SIGNAL_M`; signalized junctions
 * (signal on the junction node or on one of its approaches) within `SIGNAL_CLUSTER_M` of each
 * other join one cluster. Returns the clusters of two or more nodes, ordered by their first node.
 */
export function signalClusters(g: Graph, approachM = APPROACH_SIGNAL_M, clusterM = SIGNAL_CLUSTER_M): SignalCluster[] {
  const parent = new Int32Array(g.nodeCount).map((_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) { parent[x] = parent[parent[x]]; x = parent[x]; }
    return x;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a), rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const junction = new Uint8Array(g.nodeCount);
  const signalized = new Uint8Array(g.nodeCount);
  for (let n = 0; n < g.nodeCount; n++) {
    if ((g.nodeFlags[n] & NodeFlag.intersection) === 0) continue;
    if (neighbourCount(g, n) >= 3) junction[n] = 1;
  }
  const isJunction = (n: NodeId): boolean => junction[n] === 1;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((g.nodeFlags[n] & NodeFlag.trafficSignals) === 0) continue;
    if (junction[n]) { signalized[n] = 1; continue; }
    const near = nearbyJunctions(g, n, approachM, isJunction);
    if (near.length === 0) continue; // a signal away from junctions (e.g. a pedestrian crossing) stays alone
    union(n, near[0].node);
    signalized[near[0].node] = 1;
  }
  for (let n = 0; n < g.nodeCount; n++) {
    if (!signalized[n]) continue;
    for (const { node } of nearbyJunctions(g, n, clusterM, isJunction)) if (signalized[node]) union(n, node);
  }
  const members = new Map<number, NodeId[]>();
  for (let n = 0; n < g.nodeCount; n++) {
    const r = find(n);
    if (r === n) continue; // roots are the smallest node of their set: they open the list below
    let arr = members.get(r);
    if (!arr) members.set(r, (arr = [r]));
    arr.push(n);
  }
  const out: SignalCluster[] = [];
  for (const nodes of members.values()) {
    out.push({ nodes, junctions: nodes.filter(isJunction) });
  }
  return out.sort((a, b) => a.nodes[0] - b.nodes[0]);
}
