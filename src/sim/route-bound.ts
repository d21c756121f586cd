/**
 * What a simulated driver expects of the road when choosing a route: each edge's free-flow time
 * and the expected wait after it (a signal's mean wait, a stop sign's stop), and from them the
 * exact goal direction of the simulator's route search (`SimRouter`).
 */
import { type Graph, NodeFlag } from '../network/graph.js';
import type { ExactBound, NodeBound } from './router.js';
import type { SignalPlans } from './signals.js';

/** Time lost stopping at a stop sign, seconds. */
export const STOP_SIGN_S = 3;

/** Expected delay after an edge: a signal's mean wait, a stop sign's stop, else none (seconds). */
export function expectedNodeDelayS(g: Graph, signals: SignalPlans, e: number): number {
  return signals.phaseOfInEdge[e] !== 255 ? 12 : (g.nodeFlags[g.edgeTarget[e]] & NodeFlag.stop) !== 0 ? STOP_SIGN_S : 0;
}

/** The router's exact goal direction: each edge's free-flow time and its expected node delay. */
export function exactBound(
  g: Graph,
  freeKph: Float32Array,
  signals: SignalPlans,
  nodeDistance: (graph: Graph, usable: Uint8Array, weightS: Float64Array) => NodeBound,
): ExactBound {
  const minTimeS = new Float64Array(g.edgeCount);
  const minDelayS = new Float64Array(g.edgeCount);
  for (let e = 0; e < g.edgeCount; e++) {
    // the simulator's link speed never exceeds the free-flow speed; its link time at zero flow
    minTimeS[e] = (g.edgeLengthM[e] * 3.6) / freeKph[e];
    minDelayS[e] = expectedNodeDelayS(g, signals, e);
  }
  return { minTimeS, minDelayS, build: (usable, weightS) => nodeDistance(g, usable, weightS) };
}
