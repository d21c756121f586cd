/**
 * Exact distances to one target node in a fixed metric with per-edge weights and no turn costs,
 * for another component's own A* (the traffic simulator's drivers, `src/sim/router.ts`): a CCH of
 * the plain node graph (no node expanded), customized once, queried with CH-potentials
 * (`potential.ts`). A distance in a metric whose weights never exceed the caller's edge costs is
 * an admissible and consistent A* heuristic for it.
 */
import type { Graph } from '../../../network/graph.js';
import { buildBoundGraph } from './bound-graph.js';
import { CchCustomization } from './customize.js';
import type { CchMetric } from './customize.js';
import { CchPotential } from './potential.js';
import { buildCchTopology } from './topology.js';

/**
 * Float32 weights may round a sum up by a few parts in 10⁸ (`customize.ts`): distances are shaved
 * by this factor so they never exceed the Float64 sum of the caller's costs.
 */
const SHAVE = 1 - 1e-6;

/** Distances from any graph node to one target graph node, by a customized CCH. */
export class NodeDistance {
  private readonly potential: CchPotential;
  private readonly target: number[] = [0];

  private constructor(
    private readonly metric: CchMetric,
    potential: CchPotential,
  ) {
    this.potential = potential;
  }

  /**
   * Builds the hierarchy over the edges with `usable[e]` = 1 and customizes it with
   * `edgeWeight[e]` (≥ 0; seconds or any additive unit). Nested-dissection order and contraction:
   * seconds on a million edges, done once.
   */
  static build(g: Graph, usable: Uint8Array, edgeWeight: Float32Array | Float64Array): NodeDistance {
    const noTurns = new Float32Array(g.edgeCount);
    // no turn cost and nothing forbidden: no node is expanded, bound node v is graph node v
    const bound = buildBoundGraph(g, usable, () => 0, noTurns, Number.POSITIVE_INFINITY);
    const topo = buildCchTopology(bound);
    const run = new CchCustomization(topo, edgeWeight);
    run.advance();
    return new NodeDistance(run.metric, new CchPotential(topo));
  }

  /** Starts queries towards graph node `target`. */
  reset(target: number): void {
    this.target[0] = target;
    this.potential.reset(this.metric, this.target);
  }

  /** Shortest distance from graph node `v` to the target (Infinity when unreachable), a hair under. */
  at(v: number): number {
    return this.potential.at(v) * SHAVE;
  }
}
