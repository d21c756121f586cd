/**
 * The one spatial index over edge geometry: a Flatbush packed R-tree over every segment of every
 * directed edge, in a local equirectangular plane (longitude × cos(mid-latitude)) so that box
 * distances are proportional to metres, its bytes in shared memory so threads can share one index
 * (`parts`). Two queries read it: `candidates`/`locate` (snapping, exact `projectOnSegment`) and
 * `candidatesInto` (map matching's per-ping candidates, offsets scaled to `edgeLengthM`).
 */
import Flatbush from 'flatbush';
import { M_PER_DEG, bearingDeg, bearingDiffDeg, haversineM, projectOnSegment } from '../geo/index.js';
import { EdgeOffsets } from './edge-offsets.js';
import { EdgeFlag, type EdgeId, type Graph, RoadClass } from './graph.js';

const E7 = 1e7;

/** A position on an edge. */
export interface Snap {
  edge: EdgeId;
  /** distance from the edge's source along its geometry, metres */
  offsetM: number;
  /** offsetM / edge length, 0..1 */
  fraction: number;
  /** distance from the query point to the projected point, metres */
  distanceM: number;
  /** projected point, degrees */
  lat: number;
  lon: number;
  /** bearing of the edge segment at the projected point, degrees [0, 360) */
  bearingDeg: number;
}

/** One position on an edge near a GPS ping (map matching). */
export interface Candidate {
  edge: EdgeId;
  /** distance from the start of the edge along its geometry, metres (scaled to edgeLengthM) */
  offsetM: number;
  /** distance from the ping to the edge, metres */
  distanceM: number;
  /** bearing of the edge segment at the closest point, degrees clockwise from north */
  bearingDeg: number;
}

/** Options of `SegmentIndex.locate` / `candidates`. */
export interface LocateOptions {
  /** travel heading, degrees clockwise from north; edges within the tolerance are preferred */
  headingDeg?: number;
  /** heading tolerance, degrees (default 45) */
  headingToleranceDeg?: number;
  /** search radius, metres (default 1000 for locate) */
  maxDistanceM?: number;
  /** only edges flagged routable (default true) */
  routableOnly?: boolean;
  /** extra edge filter */
  filter?: (edge: EdgeId) => boolean;
}

const DEFAULT_TOLERANCE_DEG = 45;
const DEFAULT_LOCATE_RADIUS_M = 1000;

/**
 * A built index's data, every array in shared memory: threads given it (`shareLocator`) search
 * one index instead of each building its own.
 */
export interface LocatorParts {
  edgeCount: number;
  /** the Flatbush index's bytes */
  index: SharedArrayBuffer;
  segEdge: Uint32Array;
  segStart: Uint32Array;
  kx: number;
}

/** cos(latitude) at the middle of the graph's latitude range (1 for an empty graph). */
function midLatitudeCos(g: Graph): number {
  let midLat = 0;
  if (g.nodeCount > 0) {
    let lo = Infinity,
      hi = -Infinity;
    for (let i = 0; i < g.nodeCount; i++) {
      lo = Math.min(lo, g.nodeLatE7[i]);
      hi = Math.max(hi, g.nodeLatE7[i]);
    }
    midLat = (lo + hi) / 2e7;
  }
  return Math.cos((midLat * Math.PI) / 180);
}

/** Builds the index of every edge segment of `g`, in shared memory. */
function buildParts(g: Graph): LocatorParts {
  const segCount = g.edgeGeomStart[g.edgeCount] - g.edgeCount;
  const segEdge = new Uint32Array(new SharedArrayBuffer(segCount * 4));
  const segStart = new Uint32Array(new SharedArrayBuffer(segCount * 4));
  const kx = midLatitudeCos(g);
  const index = new Flatbush(Math.max(1, segCount), 16, Float64Array, SharedArrayBuffer);
  let s = 0;
  for (let e = 0; e < g.edgeCount; e++) {
    for (let i = g.edgeGeomStart[e]; i < g.edgeGeomStart[e + 1] - 1; i++) {
      const x1 = (g.geomLonE7[i] / E7) * kx,
        y1 = g.geomLatE7[i] / E7;
      const x2 = (g.geomLonE7[i + 1] / E7) * kx,
        y2 = g.geomLatE7[i + 1] / E7;
      index.add(Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2));
      segEdge[s] = e;
      segStart[s] = i;
      s++;
    }
  }
  if (segCount === 0) index.add(0, 0, 0, 0);
  index.finish();
  return { edgeCount: g.edgeCount, index: index.data as SharedArrayBuffer, segEdge, segStart, kx };
}

/** Spatial index over the segments of every edge of a graph. Build once per graph (see `locatorOf`). */
export class SegmentIndex {
  private readonly index: Flatbush;
  /** edge of each indexed segment */
  private readonly segEdge: Uint32Array;
  /** geometry index of each segment's first point */
  private readonly segStart: Uint32Array;
  private readonly kx: number;
  private readonly shared: LocatorParts;
  private offsets: EdgeOffsets | undefined;
  /** geometry index of the segment each of `candidatesInto`'s results lies on */
  private readonly candidateSeg: number[] = [];

  /** Builds the index (its bytes in shared memory), or wraps the `parts` of one built for this graph. */
  constructor(
    private readonly graph: Graph,
    parts?: LocatorParts,
  ) {
    if (parts !== undefined && parts.edgeCount !== graph.edgeCount) throw new Error('locator parts of another graph');
    this.shared = parts ?? buildParts(graph);
    this.index = Flatbush.from(this.shared.index);
    this.segEdge = this.shared.segEdge;
    this.segStart = this.shared.segStart;
    this.kx = this.shared.kx;
  }

  /**
   * Every edge with a point within `radiusM` of (lat, lon), each at its closest position, sorted by
   * distance (then edge id); at most `maxResults`. Heading does not filter here: each snap carries
   * its `bearingDeg`.
   */
  candidates(lat: number, lon: number, radiusM: number, opts: LocateOptions & { maxResults?: number } = {}): Snap[] {
    const g = this.graph;
    const routableOnly = opts.routableOnly ?? true;
    const dy = radiusM / M_PER_DEG;
    const x = lon * this.kx;
    const hits = this.index.search(x - dy, lat - dy, x + dy, lat + dy);
    const best = new Map<EdgeId, { seg: number; t: number; d: number; plat: number; plon: number }>();
    for (const s of hits) {
      if (s >= this.segEdge.length) continue;
      const e = this.segEdge[s];
      if (routableOnly && (g.edgeFlags[e] & EdgeFlag.routable) === 0) continue;
      if (opts.filter && !opts.filter(e)) continue;
      const i = this.segStart[s];
      const p = projectOnSegment(
        lat,
        lon,
        g.geomLatE7[i] / E7,
        g.geomLonE7[i] / E7,
        g.geomLatE7[i + 1] / E7,
        g.geomLonE7[i + 1] / E7,
      );
      if (p.distanceM > radiusM) continue;
      const prev = best.get(e);
      if (!prev || p.distanceM < prev.d || (p.distanceM === prev.d && i < prev.seg))
        best.set(e, { seg: i, t: p.t, d: p.distanceM, plat: p.lat, plon: p.lon });
    }
    const out: Snap[] = [];
    for (const [e, b] of best) out.push(this.snapOf(e, b.seg, b.t, b.d, b.plat, b.plon));
    out.sort((a, b) => a.distanceM - b.distanceM || a.edge - b.edge);
    return opts.maxResults !== undefined ? out.slice(0, opts.maxResults) : out;
  }

  /**
   * The nearest edge position to (lat, lon), preferring edges whose direction is within the heading
   * tolerance when a heading is given (falls back to the nearest edge when none is). Undefined when
   * no edge lies within `maxDistanceM`.
   */
  locate(lat: number, lon: number, opts: LocateOptions = {}): Snap | undefined {
    const maxR = opts.maxDistanceM ?? DEFAULT_LOCATE_RADIUS_M;
    const tol = opts.headingToleranceDeg ?? DEFAULT_TOLERANCE_DEG;
    for (let r = Math.min(50, maxR); ; r = Math.min(maxR, r * 4)) {
      const c = this.candidates(lat, lon, r, opts);
      if (c.length > 0) {
        if (opts.headingDeg === undefined) return c[0];
        const h = opts.headingDeg;
        const good = c.find((s) => bearingDiffDeg(s.bearingDeg, h) <= tol);
        if (good) return good;
        if (r >= maxR) return c[0];
      }
      if (r >= maxR) return undefined;
    }
  }

  /**
   * Map matching's candidates: up to `maxCount` edges (ferries excluded) within `radiusM` of
   * (lat, lon), one per edge at its closest point, closest first (then edge id). Offsets are scaled
   * to `edgeLengthM`; distances and bearings are measured in a local equirectangular frame centred
   * on the ping. Clears and fills `out`; returns the count.
   */
  candidatesInto(lat: number, lon: number, radiusM: number, maxCount: number, out: Candidate[]): number {
    out.length = 0;
    const g = this.graph;
    const pointOffsetM = this.edgeOffsets().pointOffsetM;
    const mPerDegLon = M_PER_DEG * Math.cos((lat * Math.PI) / 180);
    const dLat = radiusM / M_PER_DEG;
    const dx = (radiusM / Math.max(1, mPerDegLon)) * this.kx;
    const x = lon * this.kx;
    const segOf = this.candidateSeg;
    segOf.length = 0;
    for (const s of this.index.search(x - dx, lat - dLat, x + dx, lat + dLat)) {
      if (s >= this.segEdge.length) continue;
      const e = this.segEdge[s];
      if (g.edgeRoadClass[e] === RoadClass.ferry) continue;
      const i = this.segStart[s];
      // Local equirectangular frame centred on the ping (metres): exact enough within a radius.
      const ax = (g.geomLonE7[i] / E7 - lon) * mPerDegLon,
        ay = (g.geomLatE7[i] / E7 - lat) * M_PER_DEG;
      const vx = (g.geomLonE7[i + 1] / E7 - lon) * mPerDegLon - ax,
        vy = (g.geomLatE7[i + 1] / E7 - lat) * M_PER_DEG - ay;
      const len2 = vx * vx + vy * vy;
      let t = len2 > 0 ? -(ax * vx + ay * vy) / len2 : 0;
      if (t < 0) t = 0;
      else if (t > 1) t = 1;
      const px = ax + t * vx,
        py = ay + t * vy;
      const d = Math.sqrt(px * px + py * py);
      if (d > radiusM) continue;
      const k = out.findIndex((c) => c.edge === e);
      // one per edge: the closest segment, the first along the edge on a tie
      if (k >= 0 && (d > out[k].distanceM || (d === out[k].distanceM && i > segOf[k]))) continue;
      const c: Candidate = {
        edge: e,
        offsetM: pointOffsetM[i] + t * (pointOffsetM[i + 1] - pointOffsetM[i]),
        distanceM: d,
        bearingDeg: ((Math.atan2(vx, vy) * 180) / Math.PI + 360) % 360,
      };
      if (k >= 0) {
        out[k] = c;
        segOf[k] = i;
      } else {
        out.push(c);
        segOf.push(i);
      }
    }
    out.sort((a, b) => a.distanceM - b.distanceM || a.edge - b.edge);
    if (out.length > maxCount) out.length = maxCount;
    return out.length;
  }

  /** Position [lat, lon] at `offsetM` (scaled to edgeLengthM) along edge `e`. */
  pointAt(e: EdgeId, offsetM: number): [number, number] {
    return this.edgeOffsets().pointAt(e, offsetM);
  }

  /** This index's data (every array in shared memory), to hand to other threads (`shareLocator`). */
  parts(): LocatorParts {
    return this.shared;
  }

  /** The offsets along edges, built on first use (only map matching needs them). */
  private edgeOffsets(): EdgeOffsets {
    if (this.offsets === undefined) this.offsets = new EdgeOffsets(this.graph);
    return this.offsets;
  }

  /** The snap at `t` along segment `seg` (geometry index) of edge `e`; offsets are geometry metres. */
  private snapOf(e: EdgeId, seg: number, t: number, d: number, lat: number, lon: number): Snap {
    const g = this.graph;
    let offset = 0;
    for (let i = g.edgeGeomStart[e]; i < seg; i++) offset += this.segLen(i);
    offset += t * this.segLen(seg);
    const len = g.edgeLengthM[e];
    return {
      edge: e,
      offsetM: Math.min(offset, len),
      fraction: len > 0 ? Math.min(1, offset / len) : 0,
      distanceM: d,
      lat,
      lon,
      bearingDeg: bearingDeg(
        g.geomLatE7[seg] / E7,
        g.geomLonE7[seg] / E7,
        g.geomLatE7[seg + 1] / E7,
        g.geomLonE7[seg + 1] / E7,
      ),
    };
  }

  private segLen(i: number): number {
    const g = this.graph;
    return haversineM(g.geomLatE7[i] / E7, g.geomLonE7[i] / E7, g.geomLatE7[i + 1] / E7, g.geomLonE7[i + 1] / E7);
  }
}
