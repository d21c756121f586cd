/** Positions along edge geometry for moving simulated vehicles. */
import type { EdgeId, Graph } from '../network/graph.js';
import { haversineM } from '../geo/index.js';

const E7 = 1e7;

/** Cumulative geometry lengths per edge, scaled so that each edge ends at edgeLengthM. */
export class EdgeGeometry {
  private readonly cumM: Float64Array;

  constructor(private readonly graph: Graph) {
    const g = graph;
    this.cumM = new Float64Array(g.geomLatE7.length);
    for (let e = 0; e < g.edgeCount; e++) {
      const a = g.edgeGeomStart[e];
      const b = g.edgeGeomStart[e + 1];
      let cum = 0;
      for (let i = a + 1; i < b; i++) {
        cum += haversineM(g.geomLatE7[i - 1] / E7, g.geomLonE7[i - 1] / E7, g.geomLatE7[i] / E7, g.geomLonE7[i] / E7);
        this.cumM[i] = cum;
      }
      const scale = cum > 0 ? g.edgeLengthM[e] / cum : 0;
      for (let i = a; i < b; i++) this.cumM[i] *= scale;
    }
  }

  /** [lat, lon] at `offsetM` metres from the start of edge `e` (clamped to the edge). */
  pointAt(e: EdgeId, offsetM: number): [number, number] {
    const g = this.graph;
    const a = g.edgeGeomStart[e];
    const b = g.edgeGeomStart[e + 1];
    let i = a;
    while (i < b - 2 && this.cumM[i + 1] < offsetM) i++;
    const o1 = this.cumM[i];
    const o2 = this.cumM[i + 1];
    const t = o2 > o1 ? Math.min(1, Math.max(0, (offsetM - o1) / (o2 - o1))) : 0;
    return [
      (g.geomLatE7[i] + t * (g.geomLatE7[i + 1] - g.geomLatE7[i])) / E7,
      (g.geomLonE7[i] + t * (g.geomLonE7[i + 1] - g.geomLonE7[i])) / E7,
    ];
  }
}
