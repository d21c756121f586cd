/**
 * Runs the location part of a query against the inventory's spatial indexes: candidates from the
 * index (never a scan), exact geodesic filtering, operator pre-filter, distance, optional sort, and
 * the offset/limit hard stop. Only the returned page is rendered afterwards.
 */
import { ParkingError } from '../errors.js';
import { degreeSpan, distanceToPolylineM, geodesicDistanceM, pointInPolygon, ringCentroid } from '../../geo/index.js';
import type { InventoryView } from './inventory.js';
import type { LocationQuery } from './location-params.js';
import type { InventoryQuery } from './params.js';
import type { BlockRecord, LotRecord } from './types.js';

/** A selected record with its distance in metres from the query point or area centre (null for id/alias). */
export interface Hit<T> {
  rec: T;
  distanceM: number | null;
}

/** A page of results plus the number of matches before paging. */
export interface Page<T> {
  hits: Hit<T>[];
  total: number;
}

function page<T extends { id?: number; blockID?: number }>(hits: Hit<T>[], q: InventoryQuery): Page<T> {
  if (q.sort === 'distance') hits.sort((a, b) => (a.distanceM ?? Infinity) - (b.distanceM ?? Infinity));
  return { hits: hits.slice(q.offset, q.offset + q.limit), total: hits.length };
}

/** Centre used for `distance` of area queries. */
function centreOf(loc: LocationQuery): [number, number] | null {
  if (loc.kind === 'circle') return [loc.lat, loc.lon];
  if (loc.kind === 'box') return [(loc.minLat + loc.maxLat) / 2, (loc.minLon + loc.maxLon) / 2];
  if (loc.kind === 'polygon') return ringCentroid(loc.ring);
  return null;
}

function bboxOfLine(line: ReadonlyArray<readonly [number, number]>, padM: number): [number, number, number, number] {
  let minLat = Infinity,
    minLon = Infinity,
    maxLat = -Infinity,
    maxLon = -Infinity;
  for (const [lat, lon] of line) {
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
    minLon = Math.min(minLon, lon);
    maxLon = Math.max(maxLon, lon);
  }
  const { dLat, dLon } = degreeSpan(Math.max(Math.abs(minLat), Math.abs(maxLat)), padM);
  return [minLat - dLat, minLon - dLon, maxLat + dLat, maxLon + dLon];
}

/**
 * Lots matching the query's location and operator filter, as one page.
 * @example selectLots(inv, parseInventoryQuery('lots', { point: '39.29|-76.61', radius: '500', sort: 'distance' }, now))
 */
export function selectLots(inv: InventoryView, q: InventoryQuery): Page<LotRecord> {
  const loc = q.location;
  const hits: Hit<LotRecord>[] = [];
  const keep = (l: LotRecord): boolean => q.operators === null || q.operators.has(l.operatorKey);
  if (loc.kind === 'id' || loc.kind === 'alias') {
    const found =
      loc.kind === 'id'
        ? [...new Set(loc.ids)].map((id) => inv.lotById.get(id)).filter((l): l is LotRecord => l !== undefined)
        : [inv.lotByAlias.get(loc.alias.toLowerCase())].filter((l): l is LotRecord => l !== undefined);
    if (found.length === 0)
      throw new ParkingError(
        'PARKING_NOT_FOUND',
        `no lot with ${loc.kind} ${loc.kind === 'id' ? loc.ids.join('|') : loc.alias}`,
        loc.kind,
      );
    for (const l of found) if (keep(l)) hits.push({ rec: l, distanceM: null });
    return page(hits, q);
  }
  const centre = centreOf(loc);
  const dist = (l: LotRecord): number => geodesicDistanceM(centre![0], centre![1], l.lat, l.lon);
  if (loc.kind === 'circle') {
    const { dLat, dLon } = degreeSpan(loc.lat, loc.radiusM);
    for (const l of inv.lotsInBox(loc.lat - dLat, loc.lon - dLon, loc.lat + dLat, loc.lon + dLon)) {
      if (!keep(l)) continue;
      const d = dist(l);
      if (d <= loc.radiusM) hits.push({ rec: l, distanceM: d });
    }
  } else if (loc.kind === 'box') {
    for (const l of inv.lotsInBox(loc.minLat, loc.minLon, loc.maxLat, loc.maxLon)) {
      if (keep(l)) hits.push({ rec: l, distanceM: dist(l) });
    }
  } else if (loc.kind === 'polygon') {
    const [a, b, c, d] = bboxOfLine(loc.ring, 0);
    for (const l of inv.lotsInBox(a, b, c, d)) {
      if (keep(l) && pointInPolygon(l.lat, l.lon, loc.ring)) hits.push({ rec: l, distanceM: dist(l) });
    }
  } else {
    // corridor: candidates per route segment, deduplicated, then exact distance to the route
    const seen = new Set<number>();
    for (let s = 1; s < loc.line.length; s++) {
      const [a, b, c, d] = bboxOfLine([loc.line[s - 1], loc.line[s]], loc.widthM);
      for (const l of inv.lotsInBox(a, b, c, d)) {
        if (seen.has(l.id)) continue;
        seen.add(l.id);
        if (!keep(l)) continue;
        const dm = distanceToPolylineM(l.lat, l.lon, loc.line);
        if (dm <= loc.widthM) hits.push({ rec: l, distanceM: dm });
      }
    }
  }
  hits.sort((x, y) => x.rec.id - y.rec.id); // unsorted by contract; deterministic for paging
  return page(hits, q);
}

/** true when segment A–B meets the box (Liang–Barsky clipping in degrees). */
function segmentMeetsBox(
  aLat: number,
  aLon: number,
  bLat: number,
  bLon: number,
  minLat: number,
  minLon: number,
  maxLat: number,
  maxLon: number,
): boolean {
  let t0 = 0,
    t1 = 1;
  const dx = bLon - aLon,
    dy = bLat - aLat;
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0;
    const r = q / p;
    if (p < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
    return true;
  };
  return clip(-dx, aLon - minLon) && clip(dx, maxLon - aLon) && clip(-dy, aLat - minLat) && clip(dy, maxLat - aLat);
}

/** Distance in metres from P to the nearest point of a block. */
function distanceToBlockM(lat: number, lon: number, b: BlockRecord): number {
  return distanceToPolylineM(lat, lon, b.geometry);
}

/** Blocks matching the query's location, operator and restriction filters, as one page. */
export function selectBlocks(inv: InventoryView, q: InventoryQuery): Page<BlockRecord> {
  const loc = q.location;
  const hits: Hit<BlockRecord>[] = [];
  const keep = (b: BlockRecord): boolean =>
    (q.operators === null || q.operators.has(b.operatorKey)) &&
    (q.restrictions === null || b.segments.some((s) => s.restrictions.some((r) => q.restrictions!.has(r))));
  if (loc.kind === 'id' || loc.kind === 'alias') {
    const ids = loc.kind === 'id' ? [...new Set(loc.ids)] : [Number(loc.alias.split('|')[1])];
    const found = ids.map((id) => inv.blockById.get(id)).filter((b): b is BlockRecord => b !== undefined);
    if (found.length === 0)
      throw new ParkingError(
        'PARKING_NOT_FOUND',
        `no block with ${loc.kind} ${loc.kind === 'id' ? loc.ids.join('|') : loc.alias}`,
        loc.kind,
      );
    for (const b of found) if (keep(b)) hits.push({ rec: b, distanceM: null });
    return page(hits, q);
  }
  if (loc.kind === 'circle') {
    const { dLat, dLon } = degreeSpan(loc.lat, loc.radiusM);
    for (const b of inv.blocksInBox(loc.lat - dLat, loc.lon - dLon, loc.lat + dLat, loc.lon + dLon)) {
      if (!keep(b)) continue;
      const d = distanceToBlockM(loc.lat, loc.lon, b);
      if (d <= loc.radiusM) hits.push({ rec: b, distanceM: d });
    }
  } else if (loc.kind === 'box') {
    const [cLat, cLon] = centreOf(loc)!;
    for (const b of inv.blocksInBox(loc.minLat, loc.minLon, loc.maxLat, loc.maxLon)) {
      if (!keep(b)) continue;
      const g = b.geometry;
      let meets = false;
      for (let k = 1; k < g.length && !meets; k++)
        meets = segmentMeetsBox(
          g[k - 1][0],
          g[k - 1][1],
          g[k][0],
          g[k][1],
          loc.minLat,
          loc.minLon,
          loc.maxLat,
          loc.maxLon,
        );
      if (meets) hits.push({ rec: b, distanceM: distanceToBlockM(cLat, cLon, b) });
    }
  } else {
    throw new ParkingError('PARKING_PARAM_UNSUPPORTED', `${loc.kind}: not a location parameter of blocks`, loc.kind);
  }
  hits.sort((x, y) => x.rec.blockID - y.rec.blockID);
  return page(hits, q);
}
