/**
 * Stop lines and far sides of junctions (`junctionSetbackM`): how far before a junction node a
 * vehicle stops, and how far past it the crossing ends, from the widths of the roads crossing.
 *
 * OSM maps a junction as one node at the centre of the crossing; vehicles stop before the crossing
 * roadway and a crosswalk, so an approach's stop line lies half the width of the widest road
 * crossing it, plus `STOP_LINE_MARGIN_M`, before the node. The far side of the junction on the way
 * out is measured the same way from the road crossing the outbound edge.
 */
import { RoadClass } from './graph.js';
import type { EdgeId, Graph, NodeId } from './graph.js';

/** Width of one traffic lane, metres (a typical urban lane). */
export const LANE_WIDTH_M = 3.25;
/** Between the crossing roadway's edge and the stop line (crosswalk, corner), metres. */
export const STOP_LINE_MARGIN_M = 4;
/** Roads within this angle of the approach's own axis continue it rather than cross it, degrees. */
export const COLLINEAR_DEG = 30;

/** Lanes of edge `e` in its direction; when the way has no lane tags, 2 on motorway to primary, else 1. */
function lanesOf(g: Graph, e: EdgeId): number {
  const n = g.edgeLanes[e];
  if (n > 0) return n;
  return g.edgeRoadClass[e] <= RoadClass.primary ? 2 : 1;
}

/** Width of the road of edge `e` (both directions when it has a twin), metres. */
function roadWidthM(g: Graph, e: EdgeId): number {
  const t = g.edgeTwin[e];
  return (lanesOf(g, e) + (t >= 0 ? lanesOf(g, t) : 0)) * LANE_WIDTH_M;
}

/** Acute angle between two axes (bearings, degrees), 0–90. */
export function axisAngleDeg(a: number, b: number): number {
  const d = Math.abs((((a - b) % 180) + 180) % 180);
  return Math.min(d, 180 - d);
}

/**
 * Distance from junction node `node` back to the stop line of inbound edge `edge` (`inbound`
 * true), or forward to the far side of the junction on outbound edge `edge` (`inbound` false),
 * metres: half the width of the widest road crossing that edge's axis at the node plus
 * `STOP_LINE_MARGIN_M`; 0 where no road crosses it (a signal or way joint on a plain road).
 */
export function junctionSetbackM(g: Graph, node: NodeId, edge: EdgeId, inbound: boolean): number {
  const axis = inbound ? g.edgeBearingIn[edge] : g.edgeBearingOut[edge];
  const twin = g.edgeTwin[edge];
  let crossing = 0;
  const consider = (e: EdgeId, bearing: number): void => {
    if (e === edge || e === twin) return;
    if (axisAngleDeg(bearing, axis) > COLLINEAR_DEG) crossing = Math.max(crossing, roadWidthM(g, e));
  };
  for (let e = g.firstOut[node]; e < g.firstOut[node + 1]; e++)
    if (g.edgeTarget[e] !== node) consider(e, g.edgeBearingOut[e]);
  for (let k = g.firstIn[node]; k < g.firstIn[node + 1]; k++) {
    const e = g.inEdges[k];
    if (g.edgeSource[e] !== node) consider(e, g.edgeBearingIn[e]);
  }
  return crossing > 0 ? crossing / 2 + STOP_LINE_MARGIN_M : 0;
}
