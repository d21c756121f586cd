/**
 * One intersection from a cluster of signal nodes (`signalClusters`): its movements run from an
 * edge entering the cluster to an edge leaving it, through the cluster's inner edges (the median
 * of a dual carriageway, the few metres between an approach signal and its junction).
 */
import { turnAngleDeg } from '../../geo/index.js';
import { TurnRestrictions, type EdgeId, type Graph, type NodeId } from '../../network/graph.js';
import { turnTypeOf, type SignalCluster } from '../../network/intersections.js';
import type { Intersection, Movement } from '../../network/region.js';

const restrictionsOf = new WeakMap<Graph, TurnRestrictions>();

function label(g: Graph, e: EdgeId): string {
  return g.names[g.edgeNameId[e]] || g.names[g.edgeRefId[e]];
}

const roundDeg = (d: number): number => Math.round(d * 10) / 10;

/** Shortest path through the cluster of every (entering edge, leaving edge) pair. */
function clusterPaths(
  g: Graph,
  members: ReadonlySet<NodeId>,
): Array<{ inEdge: EdgeId; outEdge: EdgeId; allowed: boolean }> {
  let tr = restrictionsOf.get(g);
  if (!tr) restrictionsOf.set(g, (tr = new TurnRestrictions(g)));
  const best = new Map<string, { inEdge: EdgeId; outEdge: EdgeId; allowed: boolean; lengthM: number }>();
  const sortedMembers = [...members].sort((a, b) => a - b);
  for (const entry of sortedMembers) {
    for (let k = g.firstIn[entry]; k < g.firstIn[entry + 1]; k++) {
      const inEdge = g.inEdges[k];
      if (members.has(g.edgeSource[inEdge])) continue;
      // depth-first over simple paths inside the cluster (clusters have a handful of nodes)
      const visited = new Set<NodeId>([entry]);
      const walk = (n: NodeId, last: EdgeId, lengthM: number, allowed: boolean): void => {
        for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) {
          const t = g.edgeTarget[e];
          if (t === n) continue;
          const ok = allowed && tr!.isTurnAllowed(last, e);
          if (!members.has(t)) {
            const key = `${inEdge}:${e}`;
            const prev = best.get(key);
            if (!prev || (ok && !prev.allowed) || (ok === prev.allowed && lengthM < prev.lengthM))
              best.set(key, { inEdge, outEdge: e, allowed: ok, lengthM });
            continue;
          }
          if (visited.has(t)) continue;
          visited.add(t);
          walk(t, e, lengthM + g.edgeLengthM[e], ok);
          visited.delete(t);
        }
      };
      walk(entry, inEdge, 0, true);
    }
  }
  return [...best.values()];
}

/**
 * The intersection formed by `cluster`: id = the smallest OSM id of its junction nodes, position =
 * their centroid, street names of the roads entering and leaving it (most important class first),
 * movements numbered from `firstMovementId` in (inbound edge, turn angle, outbound edge) order.
 */
export function clusterIntersection(
  g: Graph,
  cluster: SignalCluster,
  parts: readonly Intersection[],
  firstMovementId: number,
): Intersection {
  const members = new Set(cluster.nodes);
  const jx = cluster.junctions;
  const lat = jx.reduce((a, n) => a + g.nodeLatE7[n], 0) / jx.length / 1e7;
  const lon = jx.reduce((a, n) => a + g.nodeLonE7[n], 0) / jx.length / 1e7;
  let node = jx[0];
  let bestD = Infinity;
  for (const n of jx) {
    const d = (g.nodeLatE7[n] / 1e7 - lat) ** 2 + (g.nodeLonE7[n] / 1e7 - lon) ** 2;
    if (d < bestD) {
      bestD = d;
      node = n;
    }
  }
  const movements: Movement[] = clusterPaths(g, members).map(({ inEdge, outEdge, allowed }) => {
    const inH = g.edgeBearingIn[inEdge];
    const outH = g.edgeBearingOut[outEdge];
    const angle = roundDeg(turnAngleDeg(inH, outH));
    return {
      id: 0,
      inEdge,
      outEdge,
      turnType: turnTypeOf(angle, g.edgeTwin[inEdge] === outEdge),
      inHeadingDeg: roundDeg(inH),
      outHeadingDeg: roundDeg(outH),
      turnAngleDeg: angle === -180 ? 180 : angle,
      inName: label(g, inEdge),
      outName: label(g, outEdge),
      allowed,
    };
  });
  movements.sort((a, b) => a.inEdge - b.inEdge || a.turnAngleDeg - b.turnAngleDeg || a.outEdge - b.outEdge);
  movements.forEach((m, i) => {
    m.id = firstMovementId + i;
  });
  // street names of the roads meeting here, most important road class first
  const named = new Map<string, number>();
  for (const m of movements) {
    for (const e of [m.inEdge, m.outEdge]) {
      const s = label(g, e);
      if (!s) continue;
      const prev = named.get(s);
      if (prev === undefined || g.edgeRoadClass[e] < prev) named.set(s, g.edgeRoadClass[e]);
    }
  }
  const streetNames = [...named.entries()]
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([s]) => s);
  return {
    id: Math.min(...jx.map((n) => g.nodeOsmId[n])),
    node,
    lat,
    lon,
    name: streetNames.join(' & '),
    streetNames,
    signalized: parts.some((p) => p.signalized),
    stop: parts.some((p) => p.stop),
    giveWay: parts.some((p) => p.giveWay),
    movements,
  };
}
