/**
 * Water of the region for the basemap: areas (`natural=water`, `waterway=riverbank|dock`,
 * `landuse=reservoir|basin`, as closed ways or multipolygon relations) and waterway lines
 * (`waterway=river|stream|canal|drain|ditch`). Only drawn, never routed on. `natural=coastline`
 * is not assembled into sea polygons (that needs land polygons from outside the extract).
 */
import type { OsmExtract, OsmWay, Tags } from '../osm/index.js';
import { pointInPolygon } from '../geo/index.js';

/** [lat, lon] ring, closed (first point repeated last). */
export type WaterRing = Array<[number, number]>;

/** A water area: one or more outer rings, each with the inner rings (islands) inside it. */
export interface WaterArea {
  /** 'w<id>' or 'r<id>' of the OSM element */
  osm: string;
  name: string;
  polygons: Array<{ outer: WaterRing; inner: WaterRing[] }>;
}

/** A waterway line. */
export interface WaterLine {
  osm: string;
  name: string;
  /** river, stream, canal, drain or ditch */
  kind: string;
  line: Array<[number, number]>;
}

/** The region's water (empty in bundles imported before water was kept). */
export interface RegionWater {
  areas: WaterArea[];
  lines: WaterLine[];
}

const AREA_WATERWAY = new Set(['riverbank', 'dock']);
const AREA_LANDUSE = new Set(['reservoir', 'basin']);
const LINE_WATERWAY = new Set(['river', 'stream', 'canal', 'drain', 'ditch']);

/** True when the tags describe a water area. */
export function isWaterArea(t: Tags): boolean {
  return t.natural === 'water' || AREA_WATERWAY.has(t.waterway ?? '') || AREA_LANDUSE.has(t.landuse ?? '');
}

/** True when the tags describe a waterway line. */
export function isWaterLine(t: Tags): boolean {
  return LINE_WATERWAY.has(t.waterway ?? '');
}

/** Joins way node lists into closed rings (end to end, either direction); open leftovers are dropped. */
function closeRings(parts: number[][]): number[][] {
  const rings: number[][] = [];
  const open = parts.filter((p) => p.length >= 2).map((p) => p.slice());
  while (open.length > 0) {
    let cur = open.shift()!;
    let grew = true;
    while (cur[0] !== cur[cur.length - 1] && grew) {
      grew = false;
      for (let i = 0; i < open.length; i++) {
        const p = open[i];
        const end = cur[cur.length - 1];
        if (p[0] === end) cur = cur.concat(p.slice(1));
        else if (p[p.length - 1] === end) cur = cur.concat(p.slice(0, -1).reverse());
        else continue;
        open.splice(i, 1);
        grew = true;
        break;
      }
    }
    if (cur[0] === cur[cur.length - 1] && cur.length >= 4) rings.push(cur);
  }
  return rings;
}

/** True when a [lat, lon] bounding box of `pts` meets `b` ([minLat, minLon, maxLat, maxLon]). */
function meets(pts: Array<[number, number]>, b: [number, number, number, number] | null): boolean {
  if (!b) return true;
  let a0 = Infinity,
    a1 = Infinity,
    a2 = -Infinity,
    a3 = -Infinity;
  for (const [lat, lon] of pts) {
    if (lat < a0) a0 = lat;
    if (lon < a1) a1 = lon;
    if (lat > a2) a2 = lat;
    if (lon > a3) a3 = lon;
  }
  return a0 <= b[2] && a2 >= b[0] && a1 <= b[3] && a3 >= b[1];
}

/**
 * Water areas and lines of the extract meeting `bounds` (when given), ordered ways then
 * relations, each by OSM id.
 */
export function buildWater(ex: OsmExtract, bounds: [number, number, number, number] | null): RegionWater {
  const coords = (refs: number[]): Array<[number, number]> => {
    const out: Array<[number, number]> = [];
    for (const r of refs) {
      const i = ex.nodes.indexOf(r);
      if (i >= 0) out.push([ex.nodes.latE7At(i) / 1e7, ex.nodes.lonE7At(i) / 1e7]);
    }
    return out;
  };
  const areas: WaterArea[] = [];
  const lines: WaterLine[] = [];
  const ways = ex.waterWays.slice().sort((a, b) => a.id - b.id);
  for (const w of ways) {
    if (isWaterArea(w.tags) && w.refs.length >= 4 && w.refs[0] === w.refs[w.refs.length - 1]) {
      const ring = coords(w.refs);
      if (ring.length === w.refs.length && meets(ring, bounds))
        areas.push({ osm: `w${w.id}`, name: w.tags.name ?? '', polygons: [{ outer: ring, inner: [] }] });
    } else if (isWaterLine(w.tags)) {
      const line = coords(w.refs);
      if (line.length >= 2 && meets(line, bounds))
        lines.push({ osm: `w${w.id}`, name: w.tags.name ?? '', kind: w.tags.waterway!, line });
    }
  }
  const wayRefs = new Map<number, number[]>(ex.memberWayRefs);
  for (const w of ex.waterWays as OsmWay[]) wayRefs.set(w.id, w.refs);
  for (const r of ex.waterRelations.slice().sort((a, b) => a.id - b.id)) {
    const members = (role: (x: string) => boolean) =>
      r.members
        .filter((m) => m.type === 'way' && role(m.role))
        .map((m) => wayRefs.get(m.ref))
        .filter((x): x is number[] => !!x);
    const outers = closeRings(members((x) => x === 'outer' || x === ''))
      .map(coords)
      .filter((g) => g.length >= 4);
    const inners = closeRings(members((x) => x === 'inner'))
      .map(coords)
      .filter((g) => g.length >= 4);
    if (outers.length === 0 || !outers.some((o) => meets(o, bounds))) continue;
    const polygons = outers.map((outer) => ({
      outer,
      inner: inners.filter((i) => pointInPolygon(i[0][0], i[0][1], outer)),
    }));
    areas.push({ osm: `r${r.id}`, name: r.tags.name ?? '', polygons });
  }
  return { areas, lines };
}
