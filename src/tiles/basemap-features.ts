/**
 * The basemap's features, drawn from the served region itself (no external map data): streets by
 * road class with their names, ferry lines, water areas and waterways, parking lots' outlines and
 * label points. Coordinates
 * are GeoJSON `[lon, lat]`; the result feeds the vector-tile slicer (`tile-source.ts`).
 */
import type { Feature, FeatureCollection, LineString, MultiPolygon, Point, Polygon } from 'geojson';
import Flatbush from 'flatbush';
import { EdgeFlag, ROAD_CLASS_NAMES, RoadClass, type Graph, type Region } from '../network/index.js';

/** Layer names of the basemap tiles (the `source-layer` of a style). */
export const BASEMAP_LAYERS = ['water', 'waterways', 'roads', 'ferries', 'lots', 'lot_labels'] as const;
export type BasemapLayer = (typeof BASEMAP_LAYERS)[number];

/** Properties of a `roads` / `ferries` feature. */
export interface RoadProperties {
  /** road class name (`motorway` … `service`, `ferry`) */
  class: string;
  /** street name ('' when none) */
  name: string;
  /** ref, e.g. `I 900` ('' when none) */
  ref: string;
  /** 1 when the way is one-way (the line runs in the direction of travel) */
  oneway: 0 | 1;
  /** `bridge`, `tunnel` or '' */
  structure: string;
  /** 1 on toll roads */
  toll: 0 | 1;
  /** 1 on motorway/trunk links and ramps */
  link: 0 | 1;
}

/** Properties of a `lots` / `lot_labels` feature. */
export interface LotProperties {
  /** the region's lot id (`OsmLot.id`) */
  id: number;
  name: string;
  /** capacity from OSM, -1 when untagged */
  capacity: number;
  /** the `parking` tag: surface, multi-storey, underground, … ('' when untagged) */
  parking: string;
}

/** The basemap as one GeoJSON collection per layer. */
export type BasemapFeatures = Record<BasemapLayer, FeatureCollection>;

/** `[lon, lat]` points of an edge's geometry, in its direction of travel. */
function edgePoints(g: Graph, e: number): number[][] {
  const out: number[][] = [];
  for (let i = g.edgeGeomStart[e]; i < g.edgeGeomStart[e + 1]; i++)
    out.push([g.geomLonE7[i] / 1e7, g.geomLatE7[i] / 1e7]);
  return out;
}

/**
 * One undirected representative per street segment: the edge itself when one-way, else the
 * lower id of the pair (so a two-way street is drawn once).
 */
function isRepresentative(g: Graph, e: number): boolean {
  const t = g.edgeTwin[e];
  return t < 0 || e < t;
}

/** Key of the line an edge belongs to: same way, class, flags that matter and name. */
function lineKey(g: Graph, e: number): string {
  return `${g.edgeWayId[e]}|${g.edgeRoadClass[e]}|${g.edgeNameId[e]}|${g.edgeFlags[e] & (EdgeFlag.oneway | EdgeFlag.bridge | EdgeFlag.tunnel | EdgeFlag.toll)}`;
}

/**
 * Chains the representative edges of each OSM way into as few lines as possible (consecutive
 * edges that meet head to tail), so street names get lines long enough to be labelled.
 * Returns lists of edge ids, each in travel order.
 */
export function chainWayEdges(g: Graph): number[][] {
  const groups = new Map<string, number[]>();
  for (let e = 0; e < g.edgeCount; e++) {
    if (!isRepresentative(g, e)) continue;
    const k = lineKey(g, e);
    const list = groups.get(k);
    if (list) list.push(e);
    else groups.set(k, [e]);
  }
  const chains: number[][] = [];
  for (const edges of groups.values()) {
    if (edges.length === 1) {
      chains.push(edges);
      continue;
    }
    // source node -> edges leaving it within the group; a chain starts where no group edge ends
    const bySource = new Map<number, number[]>();
    const targets = new Set<number>();
    for (const e of edges) {
      const s = g.edgeSource[e];
      const l = bySource.get(s);
      if (l) l.push(e);
      else bySource.set(s, [e]);
      targets.add(g.edgeTarget[e]);
    }
    const used = new Set<number>();
    const walk = (start: number): void => {
      const chain: number[] = [];
      let e: number | undefined = start;
      while (e !== undefined && !used.has(e)) {
        used.add(e);
        chain.push(e);
        const next: number[] | undefined = bySource.get(g.edgeTarget[e]);
        e = next?.find((n) => !used.has(n));
      }
      chains.push(chain);
    };
    for (const e of edges) if (!used.has(e) && !targets.has(g.edgeSource[e])) walk(e);
    // what is left are closed loops (roundabouts): start anywhere
    for (const e of edges) if (!used.has(e)) walk(e);
  }
  return chains;
}

/** Joins the geometries of a chain of edges (shared end points once). */
function chainPoints(g: Graph, chain: number[]): number[][] {
  const pts: number[][] = [];
  for (const e of chain) {
    const p = edgePoints(g, e);
    pts.push(...(pts.length ? p.slice(1) : p));
  }
  return pts;
}

function roadProperties(g: Graph, e: number): RoadProperties {
  const f = g.edgeFlags[e];
  return {
    class: ROAD_CLASS_NAMES[g.edgeRoadClass[e]] ?? 'unclassified',
    name: g.names[g.edgeNameId[e]] ?? '',
    ref: g.names[g.edgeRefId[e]] ?? '',
    oneway: (f & EdgeFlag.oneway) !== 0 ? 1 : 0,
    structure: (f & EdgeFlag.bridge) !== 0 ? 'bridge' : (f & EdgeFlag.tunnel) !== 0 ? 'tunnel' : '',
    toll: (f & EdgeFlag.toll) !== 0 ? 1 : 0,
    link: (f & EdgeFlag.link) !== 0 ? 1 : 0,
  };
}

/** [west, south, east, north] degrees. */
export type LonLatBox = [number, number, number, number];

/**
 * The region's streets indexed by their bounding boxes, so a tile server can take the features of
 * one area without building the whole region's GeoJSON: the chains of `chainWayEdges` and a
 * Flatbush index over their boxes (a few typed arrays per chain); features are built on request.
 */
export class RoadIndex {
  private readonly chains: number[][];
  private readonly index: Flatbush | null;

  constructor(private readonly g: Graph) {
    this.chains = chainWayEdges(g);
    this.index = this.chains.length > 0 ? new Flatbush(this.chains.length) : null;
    for (const chain of this.chains) {
      let w = Infinity;
      let s = Infinity;
      let e = -Infinity;
      let n = -Infinity;
      for (const edge of chain)
        for (let i = g.edgeGeomStart[edge]; i < g.edgeGeomStart[edge + 1]; i++) {
          const lon = g.geomLonE7[i] / 1e7;
          const lat = g.geomLatE7[i] / 1e7;
          if (lon < w) w = lon;
          if (lon > e) e = lon;
          if (lat < s) s = lat;
          if (lat > n) n = lat;
        }
      this.index?.add(w, s, e, n);
    }
    this.index?.finish();
  }

  /**
   * Road and ferry features of the chains meeting `box` (every chain when null) whose first edge
   * passes `keep`, in chain order.
   */
  features(
    box: LonLatBox | null,
    keep: (roadClass: number) => boolean = () => true,
  ): { roads: Array<Feature<LineString, RoadProperties>>; ferries: Array<Feature<LineString, RoadProperties>> } {
    const g = this.g;
    const ids =
      box === null || this.index === null
        ? this.chains.map((_, i) => i)
        : this.index.search(box[0], box[1], box[2], box[3]).sort((a, b) => a - b);
    const roads: Array<Feature<LineString, RoadProperties>> = [];
    const ferries: Array<Feature<LineString, RoadProperties>> = [];
    for (const i of ids) {
      const chain = this.chains[i];
      const e = chain[0];
      if (!keep(g.edgeRoadClass[e])) continue;
      const coordinates = chainPoints(g, chain);
      if (coordinates.length < 2) continue;
      const feature: Feature<LineString, RoadProperties> = {
        type: 'Feature',
        geometry: { type: 'LineString', coordinates },
        properties: roadProperties(g, e),
      };
      if (g.edgeRoadClass[e] === RoadClass.ferry) ferries.push(feature);
      else roads.push(feature);
    }
    return { roads, ferries };
  }
}

/** Lots, lot labels, water and waterways of the region (small: built whole). */
export function areaFeatures(region: Region): Omit<BasemapFeatures, 'roads' | 'ferries'> {
  const lots: Array<Feature<Polygon, LotProperties>> = [];
  const lotLabels: Array<Feature<Point, LotProperties>> = [];
  for (const lot of region.lots) {
    const properties: LotProperties = {
      id: lot.id,
      name: lot.name,
      capacity: lot.capacity ?? -1,
      parking: lot.parking,
    };
    if (lot.outline && lot.outline.length >= 4) {
      lots.push({
        type: 'Feature',
        geometry: { type: 'Polygon', coordinates: [lot.outline.map(([lat, lon]) => [lon, lat])] },
        properties,
      });
    }
    lotLabels.push({ type: 'Feature', geometry: { type: 'Point', coordinates: [lot.lon, lot.lat] }, properties });
  }
  const water: Array<Feature<MultiPolygon, { name: string }>> = [];
  const waterways: Array<Feature<LineString, { name: string; kind: string }>> = [];
  const lonLat = (ring: Array<[number, number]>) => ring.map(([lat, lon]) => [lon, lat]);
  for (const a of region.water?.areas ?? []) {
    const coordinates = a.polygons.map((p) => [lonLat(p.outer), ...p.inner.map(lonLat)]);
    water.push({ type: 'Feature', geometry: { type: 'MultiPolygon', coordinates }, properties: { name: a.name } });
  }
  for (const l of region.water?.lines ?? []) {
    waterways.push({
      type: 'Feature',
      geometry: { type: 'LineString', coordinates: lonLat(l.line) },
      properties: { name: l.name, kind: l.kind },
    });
  }
  return { water: fc(water), waterways: fc(waterways), lots: fc(lots), lot_labels: fc(lotLabels) };
}

function fc(features: Feature[]): FeatureCollection {
  return { type: 'FeatureCollection', features };
}

/**
 * The region's basemap features (every street: for small regions and tests; a tile server takes
 * them an area at a time from a `RoadIndex`).
 * @example const f = basemapFeatures(region); console.log(f.roads.features.length);
 */
export function basemapFeatures(region: Region): BasemapFeatures {
  const { roads, ferries } = new RoadIndex(region.graph).features(null);
  return { ...areaFeatures(region), roads: fc(roads), ferries: fc(ferries) };
}
