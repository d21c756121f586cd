/**
 * Length of a turning vehicle's path through a junction. The graph runs a crossing's path from the
 * stop line to the junction node and on to the far side: two straight legs meeting at the node. A
 * turning vehicle does not drive to the centre of the junction and back out; it follows an arc
 * tangent to both legs, which is shorter. Free flow over a turning crossing counted on the legs was
 * too long by that difference (3.1 m for a right-angle turn between stop lines 7.25 m from the
 * node, 0.3 s at 36 km/h), and the turning vehicle's delay too small by as much.
 * See docs/analytics.md, *Traversal facts*.
 */
import type { EdgeId, Graph } from '../../network/graph.js';

const RAD = Math.PI / 180;

/**
 * Metres saved by a circular arc tangent to two straight legs of `legInM` and `legOutM` that meet
 * with a change of direction of `deflectionDeg` (0 = straight on): the arc's tangent length is the
 * shorter leg t, its radius r = t / tan(θ/2), and it replaces 2t of legs by r·θ. 0 for a straight
 * path or a leg of zero length; a U-turn (θ ≥ 179°) saves nothing (the legs are driven out and back).
 *
 * @example
 * cornerCutM(90, 7.25, 7.25); // 3.112 (14.5 m of legs, 11.388 m of arc)
 */
export function cornerCutM(deflectionDeg: number, legInM: number, legOutM: number): number {
  const theta = Math.abs(deflectionDeg) * RAD;
  const t = Math.min(legInM, legOutM);
  if (!(t > 0) || !(theta > 1e-6) || theta >= 179 * RAD) return 0;
  return 2 * t - (t / Math.tan(theta / 2)) * theta;
}

/** Change of direction from edge `a` (arriving) to edge `b` (leaving) at their shared node, degrees, 0–180. */
export function deflectionDeg(g: Graph, a: EdgeId, b: EdgeId): number {
  const d = Math.abs(((g.edgeBearingOut[b] - g.edgeBearingIn[a] + 540) % 360) - 180);
  return Math.min(d, 360 - d);
}

/**
 * Metres by which a crossing's path along the graph (`edges[0]`, the edge entering the
 * intersection, to `edges[edges.length − 1]`, the edge leaving it past the far side) is longer
 * than the arcs a vehicle drives: at every node between two of the edges, the corner cut of the
 * turn there (`cornerCutM`), with legs of `stopLineM` (stop line to the first node), `farSideM`
 * (last node to the far side) and half the edge between two nodes of the intersection.
 */
export function junctionPathCutM(g: Graph, edges: readonly EdgeId[], stopLineM: number, farSideM: number): number {
  let cut = 0;
  for (let k = 0; k + 1 < edges.length; k++) {
    const legIn = k === 0 ? stopLineM : g.edgeLengthM[edges[k]] / 2;
    const legOut = k + 2 === edges.length ? farSideM : g.edgeLengthM[edges[k + 1]] / 2;
    cut += cornerCutM(deflectionDeg(g, edges[k], edges[k + 1]), legIn, legOut);
  }
  return cut;
}
