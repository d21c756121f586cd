/**
 * Snapping coordinates to edges: a Flatbush index over every edge segment (in a local
 * equirectangular plane so that box distances are proportional to metres), exact projection with
 * `projectOnSegment`, optional heading preference.
 */
import Flatbush from 'flatbush';
import { M_PER_DEG, bearingDeg, bearingDiffDeg, haversineM, projectOnSegment } from '../geo/index.js';
import { EdgeFlag } from './graph.js';
import type { EdgeId, Graph } from './graph.js';

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

/** Options of `EdgeLocator.locate` / `candidates`. */
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
 * A built locator's data, every array in shared memory: threads given it (`shareLocator`) search
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

/** Spatial index over the segments of every edge of a graph. Build once per graph (see `locatorOf`). */
export class EdgeLocator {
  private readonly index: Flatbush;
  private readonly segEdge: Uint32Array;
  /** geometry index of each segment's first point */
  private readonly segStart: Uint32Array;
  private readonly kx: number;

  /** Builds the index (its bytes in shared memory), or wraps the `parts` of one built for this graph. */
  constructor(
    private readonly graph: Graph,
    parts?: LocatorParts,
  ) {
    const g = graph;
    if (parts !== undefined) {
      if (parts.edgeCount !== g.edgeCount) throw new Error('locator parts of another graph');
      this.index = Flatbush.from(parts.index);
      this.segEdge = parts.segEdge;
      this.segStart = parts.segStart;
      this.kx = parts.kx;
      return;
    }
    const segCount = g.edgeGeomStart[g.edgeCount] - g.edgeCount;
    this.segEdge = new Uint32Array(new SharedArrayBuffer(segCount * 4));
    this.segStart = new Uint32Array(new SharedArrayBuffer(segCount * 4));
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
    this.kx = Math.cos((midLat * Math.PI) / 180);
    this.index = new Flatbush(Math.max(1, segCount), 16, Float64Array, SharedArrayBuffer);
    let s = 0;
    for (let e = 0; e < g.edgeCount; e++) {
      for (let i = g.edgeGeomStart[e]; i < g.edgeGeomStart[e + 1] - 1; i++) {
        const x1 = (g.geomLonE7[i] / 1e7) * this.kx,
          y1 = g.geomLatE7[i] / 1e7;
        const x2 = (g.geomLonE7[i + 1] / 1e7) * this.kx,
          y2 = g.geomLatE7[i + 1] / 1e7;
        this.index.add(Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2));
        this.segEdge[s] = e;
        this.segStart[s] = i;
        s++;
      }
    }
    if (segCount === 0) this.index.add(0, 0, 0, 0);
    this.index.finish();
  }

  /**
   * Every edge with a point within `radiusM` of (lat, lon), each at its closest position, sorted by
   * distance (then edge id); at most `maxResults`. Heading does not filter here: each snap carries
   * its `bearingDeg` so map matching can weigh it.
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
        g.geomLatE7[i] / 1e7,
        g.geomLonE7[i] / 1e7,
        g.geomLatE7[i + 1] / 1e7,
        g.geomLonE7[i + 1] / 1e7,
      );
      if (p.distanceM > radiusM) continue;
      const prev = best.get(e);
      if (!prev || p.distanceM < prev.d || (p.distanceM === prev.d && i < prev.seg))
        best.set(e, { seg: i, t: p.t, d: p.distanceM, plat: p.lat, plon: p.lon });
    }
    const out: Snap[] = [];
    for (const [e, b] of best) {
      let offset = 0;
      for (let i = g.edgeGeomStart[e]; i < b.seg; i++) offset += this.segLen(i);
      offset += b.t * this.segLen(b.seg);
      const len = g.edgeLengthM[e];
      const i = b.seg;
      out.push({
        edge: e,
        offsetM: Math.min(offset, len),
        fraction: len > 0 ? Math.min(1, offset / len) : 0,
        distanceM: b.d,
        lat: b.plat,
        lon: b.plon,
        bearingDeg: bearingDeg(
          g.geomLatE7[i] / 1e7,
          g.geomLonE7[i] / 1e7,
          g.geomLatE7[i + 1] / 1e7,
          g.geomLonE7[i + 1] / 1e7,
        ),
      });
    }
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

  /** This locator's data (every array in shared memory), to hand to other threads (`shareLocator`). */
  parts(): LocatorParts {
    return {
      edgeCount: this.graph.edgeCount,
      index: this.index.data as SharedArrayBuffer,
      segEdge: this.segEdge,
      segStart: this.segStart,
      kx: this.kx,
    };
  }

  private segLen(i: number): number {
    const g = this.graph;
    return haversineM(g.geomLatE7[i] / 1e7, g.geomLonE7[i] / 1e7, g.geomLatE7[i + 1] / 1e7, g.geomLonE7[i + 1] / 1e7);
  }
}

const cache = new WeakMap<Graph, EdgeLocator>();

/** Makes `locatorOf(graph)` wrap `parts` (a locator another thread built for the same graph). */
export function shareLocator(graph: Graph, parts: LocatorParts): void {
  cache.set(graph, new EdgeLocator(graph, parts));
}

/** The (lazily built, cached per graph) locator of a graph. */
export function locatorOf(graph: Graph): EdgeLocator {
  let l = cache.get(graph);
  if (!l) cache.set(graph, (l = new EdgeLocator(graph)));
  return l;
}

/**
 * Snaps (lat, lon) to the nearest edge position of `graph` (see `EdgeLocator.locate`).
 * @example
 * const snap = locate(region.graph, 39.2896, -76.6120, { headingDeg: 90 });
 * if (snap) console.log(edgeName(region.graph, snap.edge), snap.offsetM);
 */
export function locate(graph: Graph, lat: number, lon: number, opts?: LocateOptions): Snap | undefined {
  return locatorOf(graph).locate(lat, lon, opts);
}

/**
 * Every edge within `radiusM` metres of (lat, lon) at its closest position, nearest first, at most
 * `maxResults` (see `EdgeLocator.candidates`); for map matching.
 */
export function locateCandidates(
  graph: Graph,
  lat: number,
  lon: number,
  radiusM: number,
  opts?: LocateOptions & { maxResults?: number },
): Snap[] {
  return locatorOf(graph).candidates(lat, lon, radiusM, opts);
}
