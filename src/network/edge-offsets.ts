/**
 * Positions along edge geometry: cumulative metres at each geometry point of each edge, scaled so
 * that the edge's last point lies at its `edgeLengthM` (the unit of every offset along an edge in
 * map matching and the simulator).
 */
import { haversineM } from '../geo/index.js';
import type { EdgeId, Graph } from './graph.js';

const E7 = 1e7;

/** Cumulative scaled metres per geometry point of a graph; build once per graph. */
export class EdgeOffsets {
  /** metres from the start of its edge at each geometry point, scaled so the last equals edgeLengthM */
  readonly pointOffsetM: Float64Array;

  constructor(private readonly graph: Graph) {
    const g = graph;
    this.pointOffsetM = new Float64Array(g.geomLatE7.length);
    for (let e = 0; e < g.edgeCount; e++) {
      const a = g.edgeGeomStart[e];
      const b = g.edgeGeomStart[e + 1];
      let cum = 0;
      this.pointOffsetM[a] = 0;
      for (let i = a + 1; i < b; i++) {
        cum += haversineM(g.geomLatE7[i - 1] / E7, g.geomLonE7[i - 1] / E7, g.geomLatE7[i] / E7, g.geomLonE7[i] / E7);
        this.pointOffsetM[i] = cum;
      }
      // Scale to the edge's nominal length so offsets agree with edgeLengthM everywhere.
      const scale = cum > 0 ? g.edgeLengthM[e] / cum : 0;
      for (let i = a; i < b; i++) this.pointOffsetM[i] *= scale;
    }
  }

  /** [lat, lon] at `offsetM` metres from the start of edge `e` (clamped to the edge). */
  pointAt(e: EdgeId, offsetM: number): [number, number] {
    const g = this.graph;
    const a = g.edgeGeomStart[e];
    const b = g.edgeGeomStart[e + 1];
    for (let i = a; i < b - 1; i++) {
      const o1 = this.pointOffsetM[i],
        o2 = this.pointOffsetM[i + 1];
      if (offsetM <= o2 || i === b - 2) {
        const t = o2 > o1 ? Math.min(1, Math.max(0, (offsetM - o1) / (o2 - o1))) : 0;
        return [
          (g.geomLatE7[i] + t * (g.geomLatE7[i + 1] - g.geomLatE7[i])) / E7,
          (g.geomLonE7[i] + t * (g.geomLonE7[i + 1] - g.geomLonE7[i])) / E7,
        ];
      }
    }
    return [g.geomLatE7[a] / E7, g.geomLonE7[a] / E7];
  }
}
