/**
 * Alternatives by the penalty method: the best route's edges (and each candidate's) cost more per
 * round, and a candidate is kept when it shares little with the routes kept before it, is not much
 * slower than the best one and is locally sensible.
 */
import type { Graph } from '../network/graph.js';
import { RoutingError } from './errors.js';
import type { Snap } from './locate.js';
import type { Leg } from './path-cost.js';
import type { SearchOptions } from './search/td-astar.js';
import type { PlanRequest, RoutingEngine } from './engine.js';

/**
 * Penalty-method alternatives: re-search with the edges of found routes made more expensive;
 * keep a candidate when it shares ≤ altMaxSharing of its length with every accepted route, takes
 * ≤ altMaxStretch × the best travel time, and is locally sensible (no repeated node, no U-turn).
 */
export function alternatives(
  eng: RoutingEngine,
  snaps: Snap[][],
  req: PlanRequest,
  base: SearchOptions,
  best: Leg,
  count: number,
): Array<{ leg: Leg; arrivalS: number }> {
  const g = eng.graph;
  const af = eng.altFactor; // all 0 between calls: the edges penalised here are reset on return
  const penalised: number[] = [];
  try {
    const o: SearchOptions = { ...base, edgeFactor: af, boundWeight: eng.cfg.altBoundWeight, sameTargets: true };
    const mode = eng.speedMode(req.shortest, req.useTraffic, req.typicalOnly);
    const bestCost = eng.costPath([best], req.departS, req.nowS, mode);
    const accepted: Leg[] = [best];
    const arrivals: number[] = [req.departS + bestCost.totalS];
    const acceptedSets: Array<Set<number>> = [new Set(best.edges)];
    const penalize = (leg: Leg) => {
      for (const e of leg.edges) {
        if (af[e] === 0) penalised.push(e);
        af[e] = (af[e] || 1) * eng.cfg.altPenaltyFactor;
        const tw = g.edgeTwin[e];
        if (tw < 0) continue;
        if (af[tw] === 0) penalised.push(tw);
        af[tw] = (af[tw] || 1) * Math.sqrt(eng.cfg.altPenaltyFactor);
      }
    };
    penalize(best);
    const seen = new Set<string>([best.edges.join(',')]);
    for (let round = 0; round < 8 && accepted.length <= count; round++) {
      let r: ReturnType<RoutingEngine['searchLegs']>;
      try {
        r = eng.searchLegs([snaps[0], snaps[1]], req.departS, o);
      } catch (err) {
        if (err instanceof RoutingError && err.code === 'TIMEOUT') break; // keep what was found
        throw err;
      }
      if (!r) break;
      const cand = r.legs[0];
      penalize(cand);
      const key = cand.edges.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      const cost = eng.costPath([cand], req.departS, req.nowS, mode);
      const metric = req.shortest
        ? cost.distanceM / Math.max(1e-9, bestCost.distanceM)
        : cost.totalS / Math.max(1e-9, bestCost.totalS);
      if (metric > eng.cfg.altMaxStretch) continue;
      if (!locallySensible(g, cand)) continue;
      let ok = true;
      for (let i = 0; i < accepted.length && ok; i++) {
        if (sharedShare(g, cand, accepted[i], acceptedSets[i]) > eng.cfg.altMaxSharing) ok = false;
      }
      if (!ok) continue;
      accepted.push(cand);
      arrivals.push(req.departS + cost.totalS);
      acceptedSets.push(new Set(cand.edges));
    }
    return accepted.slice(1, count + 1).map((leg, i) => ({ leg, arrivalS: arrivals[i + 1] }));
  } finally {
    for (const e of penalised) af[e] = 0;
  }
}

/** No node visited twice and no U-turn inside the path. */
function locallySensible(g: Graph, leg: Leg): boolean {
  const nodes = new Set<number>();
  for (let i = 0; i < leg.edges.length; i++) {
    const e = leg.edges[i];
    if (i > 0 && g.edgeTwin[leg.edges[i - 1]] === e) return false;
    const v = g.edgeTarget[e];
    if (nodes.has(v)) return false;
    nodes.add(v);
  }
  return true;
}

/** Length shared by two legs (same street segment, either direction) over the shorter one's length. */
export function sharedShare(g: Graph, a: Leg, b: Leg, bSet?: Set<number>): number {
  const set = bSet ?? new Set(b.edges);
  let shared = 0,
    lenA = 0,
    lenB = 0;
  for (const e of a.edges) {
    lenA += g.edgeLengthM[e];
    const tw = g.edgeTwin[e];
    if (set.has(e) || (tw >= 0 && set.has(tw))) shared += g.edgeLengthM[e];
  }
  for (const e of b.edges) lenB += g.edgeLengthM[e];
  return shared / Math.max(1e-9, Math.min(lenA, lenB));
}
