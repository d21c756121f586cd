/**
 * Customization of the CCH with one metric: per-edge travel-time bounds (seconds) plus each
 * bound-graph arc's turn delay become arc weights in
 * both directions (`up` = lower rank → higher rank, `down` = higher → lower), then every lower
 * triangle x–y–z (x below y below z, all joined) relaxes the arc y–z through x, nodes in
 * ascending rank (the basic customization of Dibbelt, Strasser & Wagner). Afterwards the weight of
 * an arc is the shortest distance between its ends through lower-ranked nodes, which makes
 * upward-then-downward paths exact for that metric.
 *
 * The work can be cut into slices (`CchCustomization.advance`), so a metric is rebuilt in the
 * background between requests. Weights are Float32 (half the memory of Float64); callers shave a
 * hair off distances so rounding never overestimates.
 */
import type { CchTopology } from './topology.js';

/** Arc weights of one metric. */
export interface CchMetric {
  /** weight of arc a in the upward direction (lower rank → higher rank) */
  up: Float32Array;
  /** weight of arc a in the downward direction (higher rank → lower rank) */
  down: Float32Array;
}

/** An incremental customization run. */
export class CchCustomization {
  readonly metric: CchMetric;
  private next = 0;

  /**
   * `edgeTimeS[e]` = lower bound of graph edge e's travel time (without turns), seconds (or work
   * units of a time warp, with `turnScale` = work per second of turn delay)
   */
  constructor(private readonly topo: CchTopology, edgeTimeS: Float32Array | Float64Array, turnScale = 1) {
    const m = topo.upHead.length;
    const up = new Float32Array(m).fill(Infinity);
    const down = new Float32Array(m).fill(Infinity);
    const { inputArc, inputUpward } = topo;
    const { arcEdge, arcTurnS } = topo.bound;
    for (let e = 0; e < inputArc.length; e++) {
      const a = inputArc[e];
      if (a < 0) continue;
      const w = edgeTimeS[arcEdge[e]] + arcTurnS[e] * turnScale;
      if (inputUpward[e]) {
        if (w < up[a]) up[a] = w;
      } else if (w < down[a]) down[a] = w;
    }
    this.metric = { up, down };
  }

  /** True when every triangle has been relaxed. */
  get done(): boolean {
    return this.next >= this.topo.nodeCount;
  }

  /** Relaxes the triangles of the next nodes until about `budget` arc pairs were visited; true when done. */
  advance(budget = Infinity): boolean {
    const { upFirst, upHead, nodeCount } = this.topo;
    const { up, down } = this.metric;
    let work = 0;
    let x = this.next;
    for (; x < nodeCount && work < budget; x++) {
      const end = upFirst[x + 1];
      for (let i = upFirst[x]; i < end; i++) {
        const y = upHead[i];
        const upXY = up[i], downXY = down[i]; // x→y, y→x
        let k = upFirst[y];
        for (let j = i + 1; j < end; j++) {
          const z = upHead[j];
          while (upHead[k] !== z) k++; // z is a higher neighbour of y (chordality)
          // y→x→z improves y→z; z→x→y improves z→y
          const a = downXY + up[j];
          if (a < up[k]) up[k] = a;
          const b = down[j] + upXY;
          if (b < down[k]) down[k] = b;
        }
        work += end - i;
      }
    }
    this.next = x;
    return this.done;
  }
}

/** Customizes the edge travel-time bounds `edgeTimeS` over `topo` at once. */
export function customize(topo: CchTopology, edgeTimeS: Float32Array | Float64Array): CchMetric {
  const c = new CchCustomization(topo, edgeTimeS);
  c.advance();
  return c.metric;
}
