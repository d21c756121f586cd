/**
 * Parking lots from `amenity=parking` nodes, ways and multipolygon relations.
 */
import { ringCentroid } from '../geo/index.js';
import type { OsmExtract, Tags } from '../osm/index.js';
import type { OsmLot } from './region.js';

type Ring = Array<[number, number]>;

function intOrNull(v: string | undefined): number | null {
  if (v === undefined) return null;
  const n = parseInt(v, 10);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

function ringArea(ring: Ring): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += ring[j][1] * ring[i][0] - ring[i][1] * ring[j][0];
  return Math.abs(a / 2);
}

function lotFromTags(
  osmType: OsmLot['osmType'],
  osmId: number,
  tags: Tags,
  lat: number,
  lon: number,
  outline: Ring | null,
): OsmLot {
  const fee = tags.fee === 'yes' || tags.fee === 'no' ? tags.fee : null;
  const capDis = tags['capacity:disabled'];
  const payment: string[] = [];
  for (const k of Object.keys(tags).sort())
    if (k.startsWith('payment:') && tags[k] === 'yes') payment.push(k.slice('payment:'.length));
  return {
    id: osmType === 'node' ? osmId : osmType === 'way' ? osmId * 10 + 1 : osmId * 10 + 2,
    osmType,
    osmId,
    name: tags.name ?? '',
    operator: tags.operator ?? '',
    capacity: intOrNull(tags.capacity),
    capacityDisabled: capDis === 'no' ? 0 : intOrNull(capDis),
    fee,
    access: tags.access ?? '',
    parking: tags.parking ?? '',
    openingHours: tags.opening_hours ?? '',
    payment,
    lat: round7(lat),
    lon: round7(lon),
    outline,
    tags: { ...tags },
  };
}

function round7(x: number): number {
  return Math.round(x * 1e7) / 1e7;
}

/** Joins way node lists into closed rings (end-to-end, either direction). */
function assembleRings(parts: number[][]): number[][] {
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

/**
 * Lots of the extract whose position lies inside `bounds` (when given), in the order nodes, ways,
 * relations, each by ascending OSM id.
 */
export function buildLots(ex: OsmExtract, bounds: [number, number, number, number] | null): OsmLot[] {
  const coords = (refs: number[]): Ring => {
    const out: Ring = [];
    for (const r of refs) {
      const i = ex.nodes.indexOf(r);
      if (i >= 0) out.push([ex.nodes.latE7At(i) / 1e7, ex.nodes.lonE7At(i) / 1e7]);
    }
    return out;
  };
  const lots: OsmLot[] = [];
  for (const n of ex.parkingNodes.slice().sort((a, b) => a.id - b.id))
    lots.push(lotFromTags('node', n.id, n.tags, n.lat, n.lon, null));
  for (const w of ex.parkingWays.slice().sort((a, b) => a.id - b.id)) {
    const pts = coords(w.refs);
    if (pts.length === 0) continue;
    const closed = w.refs.length >= 4 && w.refs[0] === w.refs[w.refs.length - 1] && pts.length === w.refs.length;
    const [lat, lon] = closed ? ringCentroid(pts.slice(0, -1)) : ringCentroid(pts);
    lots.push(lotFromTags('way', w.id, w.tags, lat, lon, closed ? pts : null));
  }
  const wayRefs = new Map<number, number[]>(ex.memberWayRefs);
  for (const w of ex.parkingWays) wayRefs.set(w.id, w.refs);
  for (const w of ex.roadWays) if (!wayRefs.has(w.id)) wayRefs.set(w.id, w.refs);
  for (const r of ex.parkingRelations.slice().sort((a, b) => a.id - b.id)) {
    const outers = r.members
      .filter((m) => m.type === 'way' && (m.role === 'outer' || m.role === ''))
      .map((m) => wayRefs.get(m.ref))
      .filter((x): x is number[] => !!x);
    const rings = assembleRings(outers)
      .map(coords)
      .filter((ring) => ring.length >= 4);
    if (rings.length === 0) continue;
    rings.sort((a, b) => ringArea(b) - ringArea(a));
    const [lat, lon] = ringCentroid(rings[0].slice(0, -1));
    lots.push(lotFromTags('relation', r.id, r.tags, lat, lon, rings[0]));
  }
  if (!bounds) return lots;
  return lots.filter((l) => l.lat >= bounds[0] && l.lat <= bounds[2] && l.lon >= bounds[1] && l.lon <= bounds[3]);
}
