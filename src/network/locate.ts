/**
 * Snapping coordinates to edges through the graph's one `SegmentIndex`, built lazily and cached
 * per graph (or shared from another thread with `shareLocator`).
 */
import type { Graph } from './graph.js';
import { type LocateOptions, type LocatorParts, SegmentIndex, type Snap } from './segment-index.js';

const cache = new WeakMap<Graph, SegmentIndex>();

/** Makes `locatorOf(graph)` wrap `parts` (an index another thread built for the same graph). */
export function shareLocator(graph: Graph, parts: LocatorParts): void {
  cache.set(graph, new SegmentIndex(graph, parts));
}

/** The (lazily built, cached per graph) segment index of a graph. */
export function locatorOf(graph: Graph): SegmentIndex {
  let l = cache.get(graph);
  if (!l) cache.set(graph, (l = new SegmentIndex(graph)));
  return l;
}

/**
 * Snaps (lat, lon) to the nearest edge position of `graph` (see `SegmentIndex.locate`).
 * @example
 * const snap = locate(region.graph, 39.2896, -76.6120, { headingDeg: 90 });
 * if (snap) console.log(edgeName(region.graph, snap.edge), snap.offsetM);
 */
export function locate(graph: Graph, lat: number, lon: number, opts?: LocateOptions): Snap | undefined {
  return locatorOf(graph).locate(lat, lon, opts);
}

/**
 * Every edge within `radiusM` metres of (lat, lon) at its closest position, nearest first, at most
 * `maxResults` (see `SegmentIndex.candidates`).
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
