/**
 * Candidate finder for map matching: a packed R-tree (Flatbush) over every geometry segment of
 * every directed edge. `candidatesInto` returns, per edge within a radius of a GPS point, the
 * closest point on that edge (offset along the edge and distance), closest first.
 */
import Flatbush from 'flatbush';
import { RoadClass, type EdgeId, type Graph } from '../../network/graph.js';
import { M_PER_DEG, haversineM } from '../../geo/index.js';

const E7 = 1e7;

/** One position on an edge near a GPS ping. */
export interface Candidate {
  edge: EdgeId;
  /** distance from the start of the edge along its geometry, metres (scaled to edgeLengthM) */
  offsetM: number;
  /** distance from the ping to the edge, metres */
  distanceM: number;
  /** bearing of the edge segment at the closest point, degrees clockwise from north */
  bearingDeg: number;
}

/** Spatial index of edge segments; build once per graph, query from one thread at a time. */
export class SegmentIndex {
  private readonly tree: Flatbush;
  /** edge of each indexed segment */
  private readonly segEdge: Uint32Array;
  /** index of the segment's first point in graph.geomLatE7/geomLonE7 */
  private readonly segPoint: Uint32Array;
  /** cumulative metres along the edge at each geometry point, scaled so the last equals edgeLengthM */
  private readonly pointOffsetM: Float64Array;

  constructor(private readonly graph: Graph) {
    const g = graph;
    let segCount = 0;
    for (let e = 0; e < g.edgeCount; e++) {
      if (g.edgeRoadClass[e] === RoadClass.ferry) continue;
      segCount += g.edgeGeomStart[e + 1] - g.edgeGeomStart[e] - 1;
    }
    this.segEdge = new Uint32Array(segCount);
    this.segPoint = new Uint32Array(segCount);
    this.pointOffsetM = new Float64Array(g.geomLatE7.length);
    this.tree = new Flatbush(Math.max(1, segCount));
    let s = 0;
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
      if (g.edgeRoadClass[e] === RoadClass.ferry) continue;
      for (let i = a; i < b - 1; i++) {
        const lat1 = g.geomLatE7[i] / E7,
          lon1 = g.geomLonE7[i] / E7;
        const lat2 = g.geomLatE7[i + 1] / E7,
          lon2 = g.geomLonE7[i + 1] / E7;
        this.tree.add(Math.min(lon1, lon2), Math.min(lat1, lat2), Math.max(lon1, lon2), Math.max(lat1, lat2));
        this.segEdge[s] = e;
        this.segPoint[s] = i;
        s++;
      }
    }
    if (segCount === 0) this.tree.add(0, 0, 0, 0);
    this.tree.finish();
  }

  /**
   * Finds up to `maxCount` candidate edges within `radiusM` of (lat, lon), one per edge (its
   * closest point), closest first. Clears and fills `out`; returns the count.
   */
  candidatesInto(lat: number, lon: number, radiusM: number, maxCount: number, out: Candidate[]): number {
    out.length = 0;
    const g = this.graph;
    const cosLat = Math.cos((lat * Math.PI) / 180);
    const mPerDegLon = M_PER_DEG * cosLat;
    const dLat = radiusM / M_PER_DEG;
    const dLon = radiusM / Math.max(1, mPerDegLon);
    const hits = this.tree.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat);
    for (const s of hits) {
      if (this.segEdge.length === 0) break;
      const i = this.segPoint[s];
      // Local equirectangular frame centred on the ping (metres): exact enough within a radius.
      const ax = (g.geomLonE7[i] / E7 - lon) * mPerDegLon,
        ay = (g.geomLatE7[i] / E7 - lat) * M_PER_DEG;
      const bx = (g.geomLonE7[i + 1] / E7 - lon) * mPerDegLon,
        by = (g.geomLatE7[i + 1] / E7 - lat) * M_PER_DEG;
      const vx = bx - ax,
        vy = by - ay;
      const len2 = vx * vx + vy * vy;
      let t = len2 > 0 ? -(ax * vx + ay * vy) / len2 : 0;
      if (t < 0) t = 0;
      else if (t > 1) t = 1;
      const px = ax + t * vx,
        py = ay + t * vy;
      const d = Math.sqrt(px * px + py * py);
      if (d > radiusM) continue;
      const e = this.segEdge[s];
      const offsetM = this.pointOffsetM[i] + t * (this.pointOffsetM[i + 1] - this.pointOffsetM[i]);
      const bearing = ((Math.atan2(vx, vy) * 180) / Math.PI + 360) % 360;
      let found = false;
      for (const c of out) {
        if (c.edge === e) {
          found = true;
          if (d < c.distanceM) {
            c.distanceM = d;
            c.offsetM = offsetM;
            c.bearingDeg = bearing;
          }
          break;
        }
      }
      if (!found) out.push({ edge: e, offsetM, distanceM: d, bearingDeg: bearing });
    }
    out.sort((a, b) => a.distanceM - b.distanceM || a.edge - b.edge);
    if (out.length > maxCount) out.length = maxCount;
    return out.length;
  }

  /** Position [lat, lon] at `offsetM` along edge `e`. */
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
