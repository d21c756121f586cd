/**
 * The intersection catalog for analytics: every graph node flagged `intersection` (≥ 3 distinct
 * road neighbours, or a traffic signal) with all its movements (inbound edge → outbound edge),
 * and (re-exported from signal-clusters.ts) the clusters of signal nodes that form one signalized
 * intersection (`signalClusters`), with the stop-line setbacks of junction-setback.ts.
 */
import { turnAngleDeg } from '../geo/index.js';
import { NodeFlag, ROAD_CLASS_NAMES, TurnRestrictions } from './graph.js';
import type { EdgeId, Graph } from './graph.js';
import type { Intersection, Movement, TurnType } from './region.js';

export {
  APPROACH_SIGNAL_M,
  CARRIAGEWAY_PARALLEL_DEG,
  DIVIDED_ROAD_MEDIAN_M,
  OFFSET_LEG_M,
  SIGNAL_CLUSTER_M,
  signalClusters,
} from './signal-clusters.js';
export { LANE_WIDTH_M, STOP_LINE_MARGIN_M, junctionSetbackM } from './junction-setback.js';
export type { SignalCluster } from './signal-clusters.js';

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
  return Array.from(intersectionsOf(g));
}

/** The intersections of `buildIntersections`, one at a time (the import writes them as they come). */
export function* intersectionsOf(g: Graph): Generator<Intersection> {
  const tr = new TurnRestrictions(g);
  let nextMovementId = 0;
  for (let n = 0; n < g.nodeCount; n++) {
    const flags = g.nodeFlags[n];
    if ((flags & NodeFlag.intersection) === 0) continue;
    const lat = g.nodeLatE7[n] / 1e7,
      lon = g.nodeLonE7[n] / 1e7;

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
          id: 0,
          inEdge: inE,
          outEdge: outE,
          turnType: turnTypeOf(angle, g.edgeTwin[inE] === outE),
          inHeadingDeg: roundDeg(inHeading),
          outHeadingDeg: roundDeg(outHeading),
          turnAngleDeg: angle === -180 ? 180 : angle,
          inName: label(g, inE),
          outName: label(g, outE),
          allowed: tr.isTurnAllowed(inE, outE),
        });
      }
      row.sort((a, b) => a.turnAngleDeg - b.turnAngleDeg || a.outEdge - b.outEdge);
      movements.push(...row);
    }
    for (const m of movements) m.id = nextMovementId++;
    const streetNames = Array.from(named.entries())
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([s]) => s);
    yield {
      id: g.nodeOsmId[n],
      node: n,
      lat,
      lon,
      name: streetNames.join(' & '),
      streetNames,
      signalized: (flags & NodeFlag.trafficSignals) !== 0,
      stop: (flags & NodeFlag.stop) !== 0,
      giveWay: (flags & NodeFlag.giveWay) !== 0,
      movements,
    };
  }
}

function roundDeg(d: number): number {
  return Math.round(d * 10) / 10;
}

/** Road class name of an edge (for docs and debugging). */
export function roadClassName(g: Graph, e: EdgeId): string {
  return ROAD_CLASS_NAMES[g.edgeRoadClass[e]];
}
