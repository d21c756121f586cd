/**
 * Fixed-time signal plans for signalized nodes (OSM highway=traffic_signals): two phases — the
 * axis of the most important approach and the crossing axis — with green splits in proportion to
 * approach importance, 4 s of lost time (amber + all-red) per phase, a 60 s cycle (90 s when a
 * primary or bigger road is involved) and a seeded offset. A lone approach axis (mid-block or
 * pedestrian signal) gets 80 % green.
 */
import { NodeFlag, RoadClass, type Graph } from '../network/graph.js';
import type { Rng } from './prng.js';

/** Lost time per phase change, seconds. */
export const LOST_TIME_S = 4;

/** The plan of one signalized node. */
export interface SignalPlan {
  cycleS: number;
  offsetS: number;
  /** green window of phase 0 in the cycle: [0, green0S); phase 1: [green0S + LOST, cycleS − LOST) */
  green0S: number;
}

/** Importance weight of an approach's road class for green splits. */
function classWeight(c: number): number {
  if (c <= RoadClass.trunk) return 4;
  if (c === RoadClass.primary) return 3;
  if (c === RoadClass.secondary) return 2.5;
  if (c === RoadClass.tertiary) return 2;
  return 1;
}

/** Axis difference of two bearings, 0..90 degrees (direction-agnostic). */
function axisDiff(a: number, b: number): number {
  const d = Math.abs(((a - b) % 180) + 180) % 180;
  return Math.min(d, 180 - d);
}

/** Signal plans of every signalized node plus the phase of each inbound edge. */
export class SignalPlans {
  private readonly plans = new Map<number, SignalPlan>();
  /** phase (0 or 1) of each edge at its target node; 255 when the target is not signalized */
  readonly phaseOfInEdge: Uint8Array;

  constructor(g: Graph, rng: Rng) {
    this.phaseOfInEdge = new Uint8Array(g.edgeCount).fill(255);
    for (let n = 0; n < g.nodeCount; n++) {
      if ((g.nodeFlags[n] & NodeFlag.trafficSignals) === 0) continue;
      const ins: number[] = [];
      for (let i = g.firstIn[n]; i < g.firstIn[n + 1]; i++) ins.push(g.inEdges[i]);
      if (ins.length === 0) continue;
      let main = ins[0];
      for (const e of ins) if (g.edgeRoadClass[e] < g.edgeRoadClass[main]) main = e;
      const axis = g.edgeBearingIn[main];
      let w0 = 0,
        w1 = 0,
        big = false;
      for (const e of ins) {
        const phase = axisDiff(g.edgeBearingIn[e], axis) <= 45 ? 0 : 1;
        this.phaseOfInEdge[e] = phase;
        const w = classWeight(g.edgeRoadClass[e]);
        if (phase === 0) w0 = Math.max(w0, w);
        else w1 = Math.max(w1, w);
        if (g.edgeRoadClass[e] <= RoadClass.primary) big = true;
      }
      const cycleS = big ? 90 : 60;
      const usable = cycleS - 2 * LOST_TIME_S;
      const green0S = w1 === 0 ? 0.8 * cycleS : Math.max(12, Math.min(usable - 12, (usable * w0) / (w0 + w1)));
      this.plans.set(n, { cycleS, offsetS: rng.next() * cycleS, green0S });
    }
  }

  /** Number of signalized nodes with a plan. */
  get size(): number {
    return this.plans.size;
  }

  /** The plan of a node, if signalized. */
  planOf(node: number): SignalPlan | undefined {
    return this.plans.get(node);
  }

  /**
   * Earliest time ≥ `tS` at which a vehicle on `inEdge` may cross its target node (green for its
   * phase); `tS` itself when the node is not signalized.
   */
  nextGreenS(g: Graph, inEdge: number, tS: number): number {
    const phase = this.phaseOfInEdge[inEdge];
    if (phase === 255) return tS;
    const p = this.plans.get(g.edgeTarget[inEdge]) as SignalPlan;
    const c = (((tS - p.offsetS) % p.cycleS) + p.cycleS) % p.cycleS;
    const cycleStart = tS - c;
    const [gs, ge] = phase === 0 ? [0, p.green0S] : [p.green0S + LOST_TIME_S, p.cycleS - LOST_TIME_S];
    if (ge <= gs) return tS; // degenerate: always go
    if (c >= gs && c < ge) return tS;
    return c < gs ? cycleStart + gs : cycleStart + p.cycleS + gs;
  }
}
