/**
 * Open spots (`GET /USS`): places where a car left recently (a `parkedOut` event younger than
 * OPEN_SPOT_TTL_S) and no car parked within SAME_SPOT_M since, near the vehicle's position and
 * ahead of it, or near its destination. Each spot is snapped to the curb of the nearest block
 * (projected on the block geometry, then CURB_OFFSET_M to the side the event was on).
 */
import Flatbush from 'flatbush';
import type { Block } from '../../../network/region.js';
import type { Queryable } from '../../../store/db.js';

/** A spot stays open this long after the car left, seconds (then it is presumed taken). */
export const OPEN_SPOT_TTL_S = 600;
/** A park-in event within this distance of a leave event fills that spot, metres. */
export const SAME_SPOT_M = 10;
/** Spots farther than this from every block are reported where measured, metres. */
export const SNAP_MAX_M = 40;
/** Distance of the curb from the block's centre line, metres. */
export const CURB_OFFSET_M = 3;
/** Radius around the destination always searched, metres. */
export const DESTINATION_RADIUS_M = 500;
/** Radius ahead of the vehicle: this much plus the distance covered in AHEAD_HORIZON_S, metres. */
export const BASE_RADIUS_M = 500;
/** Look-ahead horizon: the radius grows by the distance driven in this time at Velocity, seconds. */
export const AHEAD_HORIZON_S = 120;
/** Largest search radius, metres. */
import { M_PER_DEG, haversineM as distanceM, bearingDeg } from '../../../geo/index.js';

export const MAX_RADIUS_M = 3000;
/** Most spots returned. */
export const MAX_SPOTS = 50;

const RAD = Math.PI / 180;

/** Segments of all blocks in a packed index (built once per blocks array). */
interface CurbIndex {
  index: Flatbush | null;
  /** per item: block position and segment start vertex */
  blockOf: Uint32Array;
  vertexOf: Uint32Array;
  blocks: Block[];
}

const indexes = new WeakMap<Block[], CurbIndex>();

/** The segment index of `blocks` (cached; the region is read-only while serving). */
export function curbIndex(blocks: Block[]): CurbIndex {
  const cached = indexes.get(blocks);
  if (cached) return cached;
  let n = 0;
  for (const b of blocks) n += Math.max(0, b.geometry.length - 1);
  const blockOf = new Uint32Array(n);
  const vertexOf = new Uint32Array(n);
  const index = n > 0 ? new Flatbush(n) : null;
  let k = 0;
  blocks.forEach((b, bi) => {
    for (let v = 0; v + 1 < b.geometry.length; v++) {
      const [aLat, aLon] = b.geometry[v];
      const [cLat, cLon] = b.geometry[v + 1];
      index?.add(Math.min(aLon, cLon), Math.min(aLat, cLat), Math.max(aLon, cLon), Math.max(aLat, cLat));
      blockOf[k] = bi;
      vertexOf[k] = v;
      k++;
    }
  });
  index?.finish();
  const built = { index, blockOf, vertexOf, blocks };
  indexes.set(blocks, built);
  return built;
}

/**
 * Snaps a point to the curb of the nearest block within SNAP_MAX_M: the closest point on the
 * block geometry moved CURB_OFFSET_M towards the side the point lies on. Returns the point itself
 * when no block is near.
 */
export function snapToCurb(
  idx: CurbIndex,
  lat: number,
  lon: number,
): { lat: number; lon: number; blockId: number | null } {
  if (!idx.index) return { lat, lon, blockId: null };
  const dLat = SNAP_MAX_M / M_PER_DEG;
  const dLon = SNAP_MAX_M / (M_PER_DEG * Math.max(0.01, Math.cos(lat * RAD)));
  const kx = M_PER_DEG * Math.cos(lat * RAD);
  const ky = M_PER_DEG;
  let best: { d: number; x: number; y: number; side: number; blockId: number } | undefined;
  for (const item of idx.index.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
    const b = idx.blocks[idx.blockOf[item]];
    const v = idx.vertexOf[item];
    // local metric frame centred on the query point
    const ax = (b.geometry[v][1] - lon) * kx;
    const ay = (b.geometry[v][0] - lat) * ky;
    const bx = (b.geometry[v + 1][1] - lon) * kx;
    const by = (b.geometry[v + 1][0] - lat) * ky;
    const ex = bx - ax;
    const ey = by - ay;
    const len2 = ex * ex + ey * ey;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * ex + ay * ey) / len2));
    const px = ax + t * ex;
    const py = ay + t * ey;
    const d = Math.hypot(px, py);
    if (d <= SNAP_MAX_M && (!best || d < best.d)) {
      // cross product sign: >0 the point is left of the segment direction
      const cross = ex * -ay - ey * -ax;
      const len = Math.sqrt(len2) || 1;
      const side = cross >= 0 ? 1 : -1;
      const nx = (-ey / len) * side;
      const ny = (ex / len) * side;
      best = { d, x: px + nx * CURB_OFFSET_M, y: py + ny * CURB_OFFSET_M, side, blockId: b.id };
    }
  }
  if (!best) return { lat, lon, blockId: null };
  return { lat: lat + best.y / ky, lon: lon + best.x / kx, blockId: best.blockId };
}

/** Where the vehicle is and where it goes (degrees, degrees clockwise from north, km/h). */
export interface OpenSpotQuery {
  lat: number;
  lon: number;
  destLat: number;
  destLon: number;
  bearingDeg: number | null;
  velocityKph: number;
  nowMs: number;
}

/** One open spot: curb position and when it opened (unix ms). */
export interface OpenSpot {
  lat: number;
  lon: number;
  openedMs: number;
  distanceToDestinationM: number;
  blockId: number | null;
}

/** Search radius ahead of the vehicle for a speed, metres. */
export function aheadRadiusM(velocityKph: number): number {
  return Math.min(MAX_RADIUS_M, BASE_RADIUS_M + (velocityKph / 3.6) * AHEAD_HORIZON_S);
}

/**
 * Open spots for a vehicle, nearest to its destination first (at most MAX_SPOTS).
 * "Ahead": within the ahead radius of the vehicle and within ±90° of its bearing (when moving
 * faster than 5 km/h and farther than 50 m away), or within DESTINATION_RADIUS_M of the destination.
 */
export async function findOpenSpots(q: Queryable, blocks: Block[], query: OpenSpotQuery): Promise<OpenSpot[]> {
  const radiusM = aheadRadiusM(query.velocityKph);
  const pad = Math.max(radiusM, DESTINATION_RADIUS_M) + SAME_SPOT_M;
  const minLat = Math.min(query.lat, query.destLat) - pad / M_PER_DEG;
  const maxLat = Math.max(query.lat, query.destLat) + pad / M_PER_DEG;
  const cosLat = Math.max(0.01, Math.cos(((query.lat + query.destLat) / 2) * RAD));
  const minLon = Math.min(query.lon, query.destLon) - pad / (M_PER_DEG * cosLat);
  const maxLon = Math.max(query.lon, query.destLon) + pad / (M_PER_DEG * cosLat);
  const res = await q.query<{ lat: number; lon: number; parked_out: boolean; t: string | number }>(
    `SELECT lat, lon, parked_out, (extract(epoch FROM observed_at) * 1000)::bigint AS t FROM pk_park_event
      WHERE observed_at > $1 AND observed_at <= $2 AND lat BETWEEN $3 AND $4 AND lon BETWEEN $5 AND $6
      ORDER BY observed_at DESC`,
    [new Date(query.nowMs - OPEN_SPOT_TTL_S * 1000), new Date(query.nowMs), minLat, maxLat, minLon, maxLon],
  );
  const events = res.rows.map((r) => ({
    lat: Number(r.lat),
    lon: Number(r.lon),
    out: Boolean(r.parked_out),
    t: Number(r.t),
  }));
  const idx = curbIndex(blocks);
  const spots: OpenSpot[] = [];
  // newest first: the newest event at a place decides it (a later park-in fills the spot, a later
  // leave event is the same spot reported again)
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!e.out) continue;
    let superseded = false;
    for (let j = 0; j < i && !superseded; j++)
      superseded = distanceM(e.lat, e.lon, events[j].lat, events[j].lon) <= SAME_SPOT_M;
    if (superseded) continue;
    const fromVehicleM = distanceM(query.lat, query.lon, e.lat, e.lon);
    const toDestM = distanceM(query.destLat, query.destLon, e.lat, e.lon);
    let ahead = fromVehicleM <= radiusM;
    if (ahead && query.bearingDeg !== null && query.velocityKph > 5 && fromVehicleM > 50) {
      const diff = Math.abs(((bearingDeg(query.lat, query.lon, e.lat, e.lon) - query.bearingDeg + 540) % 360) - 180);
      ahead = diff <= 90;
    }
    if (!ahead && toDestM > DESTINATION_RADIUS_M) continue;
    const snapped = snapToCurb(idx, e.lat, e.lon);
    spots.push({
      lat: snapped.lat,
      lon: snapped.lon,
      openedMs: e.t,
      distanceToDestinationM: toDestM,
      blockId: snapped.blockId,
    });
  }
  spots.sort((a, b) => a.distanceToDestinationM - b.distanceToDestinationM || b.openedMs - a.openedMs);
  return spots.slice(0, MAX_SPOTS);
}
