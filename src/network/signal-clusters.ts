/**
 * Signalized intersections as clusters of graph nodes (`signalClusters`): approach signals join
 * their junction, and signalized junctions join the nodes that belong to the same crossing —
 * close along the road, touching crossing areas (`junctionSetbackM`), the other carriageway of a
 * divided road, an offset leg.
 */
import { NodeFlag, RoadClass } from './graph.js';
import type { EdgeId, Graph, NodeId } from './graph.js';
import { COLLINEAR_DEG, axisAngleDeg, junctionSetbackM } from './junction-setback.js';

/**
 * A traffic signal on a node that is not a junction (two road neighbours at most) and lies this
 * close to a junction along the road is that junction's approach signal: its stop line. Metres.
 */
export const APPROACH_SIGNAL_M = 30;
/**
 * Signalized junctions whose junction areas are this close to each other along the road are one
 * intersection: the road between them is the node-to-node distance less each junction's stop-line
 * setback on it (`junctionSetbackM`). Two crossings of a dual carriageway, clustered signal nodes,
 * two signals 41 m apart on roads 13 m wide (20 m of road between their areas). Metres.
 */
export const SIGNAL_CLUSTER_M = 30;

/**
 * The two junctions where a crossing road meets the two carriageways of a divided road are one
 * intersection when the crossing road between them is no longer than this (the median's width),
 * metres. The carriageways are one-way roads of one name or ref, parallel within
 * `CARRIAGEWAY_PARALLEL_DEG`, in opposite directions.
 */
export const DIVIDED_ROAD_MEDIAN_M = 45;
/** Carriageways of one divided road run parallel within this angle, degrees. */
export const CARRIAGEWAY_PARALLEL_DEG = 25;
/**
 * Offset legs: a junction whose side roads all leave the main road on one side, and a junction
 * this close along the main road (no junction between) whose side roads all leave it on the other
 * side, form one crossing (a staggered crossroads), metres. Side roads of class `service` and
 * below (alleys, driveways, parking aisles) do not make a leg.
 */
export const OFFSET_LEG_M = 40;

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
 * Nodes reachable from `start` along the road (either direction of travel) within `maxM` metres,
 * nearest first (ties by node id), each with the node it was reached from. With `throughJunctions`
 * false the search does not continue past a junction (it is reported, not expanded).
 */
function reachable(
  g: Graph,
  start: NodeId,
  maxM: number,
  isJunction: (n: NodeId) => boolean,
  throughJunctions: boolean,
): Array<{ node: NodeId; distM: number; via: NodeId }> {
  const dist = new Map<NodeId, number>([[start, 0]]);
  const via = new Map<NodeId, NodeId>([[start, start]]);
  const queue: NodeId[] = [start];
  const found: Array<{ node: NodeId; distM: number; via: NodeId }> = [];
  while (queue.length > 0) {
    // the search is tiny (a few nodes within tens of metres): a linear pick of the nearest is enough
    let bi = 0;
    for (let i = 1; i < queue.length; i++) {
      const di = dist.get(queue[i])!,
        db = dist.get(queue[bi])!;
      if (di < db || (di === db && queue[i] < queue[bi])) bi = i;
    }
    const n = queue.splice(bi, 1)[0];
    const d = dist.get(n)!;
    if (n !== start) found.push({ node: n, distM: d, via: via.get(n)! });
    if (n !== start && !throughJunctions && isJunction(n)) continue;
    const relax = (m: NodeId, len: number): void => {
      const nd = d + len;
      if (nd > maxM || nd >= (dist.get(m) ?? Infinity)) return;
      if (!dist.has(m)) queue.push(m);
      dist.set(m, nd);
      via.set(m, n);
    };
    for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) relax(g.edgeTarget[e], g.edgeLengthM[e]);
    for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++)
      relax(g.edgeSource[g.inEdges[k]], g.edgeLengthM[g.inEdges[k]]);
  }
  return found;
}

/**
 * Groups signal nodes into signalized intersections: an approach signal (a signal node that is
 * not a junction) joins the nearest junction within `APPROACH_SIGNAL_M`; signalized junctions
 * (signal on the junction node or on one of its approaches) whose junction areas lie within
 * `SIGNAL_CLUSTER_M` of each other along the road join one cluster, with the nodes on the road between them (an unsignalized
 * node inside a crossing belongs to it), and so does a junction node whose crossing area touches
 * a signalized junction's (the road between them no longer than the two stop-line setbacks,
 * `junctionSetbackM`), and so does the junction where the same crossing road meets the other
 * carriageway of a divided road (`DIVIDED_ROAD_MEDIAN_M`), and the junction of an offset leg: a
 * side road leaving the main road on the other side within `OFFSET_LEG_M`. Returns the clusters of
 * two or more nodes, ordered by their first node.
 */
export function signalClusters(
  g: Graph,
  approachM = APPROACH_SIGNAL_M,
  clusterM = SIGNAL_CLUSTER_M,
  dividedMedianM = DIVIDED_ROAD_MEDIAN_M,
  offsetLegM = OFFSET_LEG_M,
): SignalCluster[] {
  const sets = new NodeSets(g.nodeCount);
  const junction = junctionsOf(g);
  const signalized = joinApproachSignals(g, sets, junction, approachM);
  joinAlongRoad(g, sets, signalized, junction, clusterM);
  // a junction node whose crossing area touches a signalized junction's — the road between them
  // is no longer than the two stop-line setbacks — is part of that junction (OSM maps complex
  // junctions with several nodes a few metres apart)
  joinAdjacentJunctions(
    g,
    sets,
    signalized,
    junction,
    (from, to, e) => g.edgeLengthM[e] <= junctionSetbackM(g, from, e, false) + junctionSetbackM(g, to, e, true),
  );
  // the two crossings of a divided road: a junction joined by a short piece of the crossing road
  // to a junction on the other carriageway (same road, parallel, opposite direction) is one
  // intersection with it, however wide the median, up to `DIVIDED_ROAD_MEDIAN_M`
  joinAdjacentJunctions(
    g,
    sets,
    signalized,
    junction,
    (from, to, e) => g.edgeLengthM[e] <= dividedMedianM && otherCarriageway(g, from, to, e),
  );
  // offset legs: a junction whose side road leaves the main road on the other side, a few tens of
  // metres from a signalized junction's side road, is the same crossing (`OFFSET_LEG_M`)
  joinAdjacentJunctions(
    g,
    sets,
    signalized,
    junction,
    (from, to, e) => g.edgeLengthM[e] <= offsetLegM && offsetLegs(g, from, to, e),
  );
  return clustersOf(g, sets, junction);
}

/** Disjoint sets of nodes (union-find); the root of a set is its smallest node. */
class NodeSets {
  private readonly parent: Int32Array;

  constructor(nodeCount: number) {
    this.parent = new Int32Array(nodeCount).map((_, i) => i);
  }

  find(x: number): number {
    const parent = this.parent;
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }

  union(a: number, b: number): void {
    const ra = this.find(a),
      rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** 1 on intersection nodes with ≥ 3 distinct road neighbours. */
function junctionsOf(g: Graph): Uint8Array {
  const junction = new Uint8Array(g.nodeCount);
  for (let n = 0; n < g.nodeCount; n++) {
    if ((g.nodeFlags[n] & NodeFlag.intersection) === 0) continue;
    if (neighbourCount(g, n) >= 3) junction[n] = 1;
  }
  return junction;
}

/**
 * Signalized junctions: those with a signal on their node, and the nearest junction within
 * `approachM` of an approach signal, which joins its set. Returns 1 per signalized junction.
 */
function joinApproachSignals(g: Graph, sets: NodeSets, junction: Uint8Array, approachM: number): Uint8Array {
  const signalized = new Uint8Array(g.nodeCount);
  const isJunction = (n: NodeId): boolean => junction[n] === 1;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((g.nodeFlags[n] & NodeFlag.trafficSignals) === 0) continue;
    if (junction[n]) {
      signalized[n] = 1;
      continue;
    }
    const near = reachable(g, n, approachM, isJunction, false).find((r) => isJunction(r.node));
    if (near === undefined) continue; // a signal away from junctions (e.g. a pedestrian crossing) stays alone
    sets.union(n, near.node);
    signalized[near.node] = 1;
  }
  return signalized;
}

/**
 * Setback (`junctionSetbackM`) of junction `n` on the road to its neighbour `m`: how far the
 * junction's area reaches along that road, metres (0 when no edge joins them).
 */
function areaTowardsM(g: Graph, n: NodeId, m: NodeId): number {
  for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++)
    if (g.edgeTarget[e] === m) return junctionSetbackM(g, n, e, false);
  for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++)
    if (g.edgeSource[g.inEdges[k]] === m) return junctionSetbackM(g, n, g.inEdges[k], true);
  return 0;
}

/** The largest setback of junction `n` on any of its roads, metres. */
function maxAreaM(g: Graph, n: NodeId): number {
  let a = 0;
  for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) a = Math.max(a, junctionSetbackM(g, n, e, false));
  for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) a = Math.max(a, junctionSetbackM(g, n, g.inEdges[k], true));
  return a;
}

/**
 * Joins signalized junctions whose junction areas are within `clusterM` of each other along the
 * road — node-to-node distance less each junction's setback on the road between them
 * (`junctionSetbackM`) — with every node on the road between.
 */
function joinAlongRoad(g: Graph, sets: NodeSets, signalized: Uint8Array, junction: Uint8Array, clusterM: number): void {
  const isJunction = (n: NodeId): boolean => junction[n] === 1;
  const area = new Float64Array(g.nodeCount);
  let widest = 0;
  for (let n = 0; n < g.nodeCount; n++) if (signalized[n]) widest = Math.max(widest, (area[n] = maxAreaM(g, n)));
  for (let n = 0; n < g.nodeCount; n++) {
    if (!signalized[n]) continue;
    const found = reachable(g, n, clusterM + area[n] + widest, isJunction, true);
    const viaOf = new Map(found.map((r) => [r.node, r.via]));
    for (const r of found) {
      if (!signalized[r.node]) continue;
      let first = r.node; // the node after n on the road to r.node
      while (viaOf.get(first) !== n) first = viaOf.get(first)!;
      const between = r.distM - areaTowardsM(g, n, first) - areaTowardsM(g, r.node, r.via);
      if (between > clusterM) continue;
      for (let m = r.node; m !== n; m = viaOf.get(m)!) sets.union(n, m);
    }
  }
}

/**
 * Joins each signalized junction with every junction one edge away (either direction) for which
 * `joins(source, target, edge)` holds.
 */
function joinAdjacentJunctions(
  g: Graph,
  sets: NodeSets,
  signalized: Uint8Array,
  junction: Uint8Array,
  joins: (source: NodeId, target: NodeId, e: EdgeId) => boolean,
): void {
  for (let n = 0; n < g.nodeCount; n++) {
    if (!signalized[n] || !junction[n]) continue;
    for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) {
      const t = g.edgeTarget[e];
      if (t !== n && junction[t] && joins(n, t, e)) sets.union(n, t);
    }
    for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) {
      const e = g.inEdges[k];
      const s = g.edgeSource[e];
      if (s !== n && junction[s] && joins(s, n, e)) sets.union(n, s);
    }
  }
}

/** The sets of two or more nodes, each with its junctions, ordered by their first node. */
function clustersOf(g: Graph, sets: NodeSets, junction: Uint8Array): SignalCluster[] {
  const members = new Map<number, NodeId[]>();
  for (let n = 0; n < g.nodeCount; n++) {
    const r = sets.find(n);
    if (r === n) continue; // roots are the smallest node of their set: they open the list below
    let arr = members.get(r);
    if (!arr) members.set(r, (arr = [r]));
    arr.push(n);
  }
  const out: SignalCluster[] = [];
  for (const nodes of members.values()) out.push({ nodes, junctions: nodes.filter((n) => junction[n] === 1) });
  return out.sort((a, b) => a.nodes[0] - b.nodes[0]);
}

/** Travel headings (degrees) of the one-way roads at `n` other than edge `e` and its twin, with their name or ref ids. */
function oneWaysAt(g: Graph, n: NodeId, e: EdgeId): Array<{ headingDeg: number; nameId: number; refId: number }> {
  const out: Array<{ headingDeg: number; nameId: number; refId: number }> = [];
  const twin = g.edgeTwin[e];
  for (let x = g.firstOut[n]; x < g.firstOut[n + 1]; x++)
    if (x !== e && x !== twin && g.edgeTwin[x] < 0 && g.edgeTarget[x] !== n)
      out.push({ headingDeg: g.edgeBearingOut[x], nameId: g.edgeNameId[x], refId: g.edgeRefId[x] });
  for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) {
    const x = g.inEdges[k];
    if (x !== e && x !== twin && g.edgeTwin[x] < 0 && g.edgeSource[x] !== n)
      out.push({ headingDeg: g.edgeBearingIn[x], nameId: g.edgeNameId[x], refId: g.edgeRefId[x] });
  }
  return out;
}

/**
 * Whether junctions `a` and `b`, joined by edge `e` (either direction), sit on the two
 * carriageways of one divided road: a one-way road of the same name (or ref) at each, parallel,
 * in opposite directions, crossed by `e` at more than `CARRIAGEWAY_PARALLEL_DEG`.
 */
function otherCarriageway(g: Graph, a: NodeId, b: NodeId, e: EdgeId): boolean {
  const axis = g.edgeBearingOut[e];
  for (const x of oneWaysAt(g, a, e)) {
    if (axisAngleDeg(x.headingDeg, axis) <= CARRIAGEWAY_PARALLEL_DEG) continue;
    for (const y of oneWaysAt(g, b, e)) {
      const sameRoad = (x.nameId !== 0 && x.nameId === y.nameId) || (x.refId !== 0 && x.refId === y.refId);
      if (!sameRoad) continue;
      const delta = (((x.headingDeg - y.headingDeg) % 360) + 360) % 360;
      if (Math.abs(delta - 180) <= CARRIAGEWAY_PARALLEL_DEG) return true; // opposite directions
    }
  }
  return false;
}

/** Headings (degrees) pointing away from `n` of its roads other than edge `e` and its twin, with their class. */
function legsAt(g: Graph, n: NodeId, e: EdgeId): Array<{ headingDeg: number; roadClass: number }> {
  const out: Array<{ headingDeg: number; roadClass: number }> = [];
  const twin = g.edgeTwin[e];
  for (let x = g.firstOut[n]; x < g.firstOut[n + 1]; x++)
    if (x !== e && x !== twin && g.edgeTarget[x] !== n)
      out.push({ headingDeg: g.edgeBearingOut[x], roadClass: g.edgeRoadClass[x] });
  for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) {
    const x = g.inEdges[k];
    // a one-way road into n: its twin-less reverse heading points away from n
    if (x !== e && x !== twin && g.edgeSource[x] !== n && g.edgeTwin[x] < 0)
      out.push({ headingDeg: (g.edgeBearingIn[x] + 180) % 360, roadClass: g.edgeRoadClass[x] });
  }
  return out;
}

/**
 * Whether junctions `a` and `b`, joined by edge `e` (either direction) along the main road, are a
 * staggered crossroads: at each the main road continues (a leg within `COLLINEAR_DEG` of its axis,
 * away from the other node), and every other leg is a road above `service` class leaving the main
 * road on one side at `a` and on the other side at `b`.
 */
function offsetLegs(g: Graph, a: NodeId, b: NodeId, e: EdgeId): boolean {
  const forward = g.edgeSource[e] === a ? g.edgeBearingOut[e] : (g.edgeBearingOut[e] + 180) % 360; // a → b
  const sideOf = (node: NodeId, away: number): number => {
    let side = 0;
    let continues = false;
    for (const leg of legsAt(g, node, e)) {
      const rel = (((leg.headingDeg - forward) % 360) + 360) % 360; // 0 = towards b, 180 = back
      if (Math.abs(rel - away) <= COLLINEAR_DEG || Math.abs(rel - away) >= 360 - COLLINEAR_DEG) {
        continues = true;
        continue;
      }
      if (axisAngleDeg(leg.headingDeg, forward) <= COLLINEAR_DEG) continue; // the main road the other way
      if (leg.roadClass >= RoadClass.service) return Number.NaN;
      const s = rel < 180 ? 1 : -1; // 1 = right of the main road's direction a → b
      if (side !== 0 && s !== side) return Number.NaN;
      side = s;
    }
    return continues ? side : Number.NaN;
  };
  const sa = sideOf(a, 180); // the main road continues behind a
  const sb = sideOf(b, 0); // and ahead of b
  return sa !== 0 && sb !== 0 && sa === -sb;
}
