/**
 * Intersection costs: the delay of moving from one edge onto the next at their shared node.
 * Traffic signals cost the average wait by turn type (left > through > right), stop signs and
 * give-way signs a fixed stop/slow-down penalty, U-turns a large penalty; plain unsignalised turns
 * at real intersections a small geometric cost. Turn restrictions are not costs: the search asks
 * `TurnRestrictions` separately.
 */
import { NodeFlag, type Graph } from '../network/graph.js';

// Module-local copies: imported bindings can compile to getter calls under some loaders.
const SIGNALS = NodeFlag.trafficSignals;
const STOP = NodeFlag.stop;
const GIVE_WAY = NodeFlag.giveWay;

/** Turn types, by signed angle between the inbound and outbound directions. */
export const TurnKind = { through: 0, right: 1, left: 2, uturn: 3, slightRight: 4, slightLeft: 5 } as const;

/** Delays in seconds; all values ≥ 0 so lower bounds stay admissible. */
export interface TurnCostConfig {
  signalThroughS: number;
  signalRightS: number;
  signalLeftS: number;
  stopS: number;
  giveWayS: number;
  uturnS: number;
  /** unsignalised left turn at a node with ≥ 3 roads */
  plainLeftS: number;
  /** unsignalised right turn at a node with ≥ 3 roads */
  plainRightS: number;
}

/** Default delays, seconds (average waits at a fixed-time signal cycle of ~90 s). */
export const DEFAULT_TURN_COSTS: TurnCostConfig = {
  signalThroughS: 15,
  signalRightS: 10,
  signalLeftS: 25,
  stopS: 8,
  giveWayS: 4,
  uturnS: 60,
  plainLeftS: 5,
  plainRightS: 2,
};

/** Signed turn angle in degrees (-180, 180]: negative = left, positive = right. */
export function signedTurnDeg(inBearingDeg: number, outBearingDeg: number): number {
  let d = outBearingDeg - inBearingDeg;
  while (d > 180) d -= 360;
  while (d <= -180) d += 360;
  return d;
}

/** Classifies a signed angle (degrees) into a TurnKind. */
export function turnKindOf(angleDeg: number): number {
  const a = Math.abs(angleDeg);
  if (a < 20) return 0;
  if (a > 165) return 3;
  if (a < 45) return angleDeg < 0 ? 5 : 4;
  return angleDeg < 0 ? 2 : 1;
}

/**
 * Precomputed turn-cost evaluator for one graph. `costS(from, to)` is the delay in seconds of
 * leaving edge `from` onto edge `to` (to must leave from's target node).
 */
export class TurnCosts {
  private readonly degree: Uint8Array;

  constructor(
    private readonly g: Graph,
    private readonly cfg: TurnCostConfig = DEFAULT_TURN_COSTS,
  ) {
    // Undirected degree per node: distinct neighbours (counts a two-way street once).
    this.degree = new Uint8Array(g.nodeCount);
    for (let n = 0; n < g.nodeCount; n++) {
      const seen = new Set<number>();
      for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) seen.add(g.edgeTarget[e]);
      for (let i = g.firstIn[n]; i < g.firstIn[n + 1]; i++) seen.add(g.edgeSource[g.inEdges[i]]);
      this.degree[n] = Math.min(255, seen.size);
    }
  }

  /** Delay in seconds for the movement from edge `from` to edge `to`. */
  costS(from: number, to: number): number {
    const g = this.g;
    const c = this.cfg;
    if (g.edgeTwin[from] === to || g.edgeSource[from] === g.edgeTarget[to]) return c.uturnS;
    const node = g.edgeTarget[from];
    const flags = g.nodeFlags[node];
    const kind = turnKindOf(signedTurnDeg(g.edgeBearingIn[from], g.edgeBearingOut[to]));
    if (kind === TurnKind.uturn) return c.uturnS;
    if (flags & SIGNALS) {
      if (kind === TurnKind.left || kind === TurnKind.slightLeft) return c.signalLeftS;
      if (kind === TurnKind.right || kind === TurnKind.slightRight) return c.signalRightS;
      return c.signalThroughS;
    }
    let s = 0;
    if (flags & STOP) s += c.stopS;
    else if (flags & GIVE_WAY) s += c.giveWayS;
    if (this.degree[node] >= 3) {
      if (kind === TurnKind.left) s += c.plainLeftS;
      else if (kind === TurnKind.right) s += c.plainRightS;
    }
    return s;
  }

  /** Number of distinct neighbouring nodes of `node`. */
  degreeOf(node: number): number {
    return this.degree[node];
  }
}
