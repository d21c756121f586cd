/**
 * Occupancy observations in the database: operator counts (admin API), automated feeds, and counts
 * other parts of the parking service feed in (park events, active reservations).
 */
import type { Queryable } from '../../store/db.js';
import { ParkingError } from '../errors.js';
import type { OccupancyObservation } from './model.js';

/** One observation to record. */
export interface ObservationInput {
  kind: 'lot' | 'segment';
  /** lot id (number as text) or segmentID */
  targetId: string;
  /** unix seconds */
  observedAtS: number;
  occupied: number;
  capacity?: number | null;
  source: 'operator' | 'feed' | 'park_events' | 'reservations';
}

/**
 * Stores observations (one statement per row, in the caller's transaction when `db` is one).
 * @example await recordOccupancyObservations(db, [{ kind: 'lot', targetId: '42', observedAtS: now, occupied: 120, source: 'reservations' }])
 */
export async function recordOccupancyObservations(db: Queryable, obs: readonly ObservationInput[]): Promise<number> {
  for (const [i, o] of obs.entries()) {
    if (!Number.isInteger(o.occupied) || o.occupied < 0)
      throw new ParkingError(
        'PARKING_UPLOAD_INVALID',
        `observations[${i}].occupied: non-negative integer expected`,
        `observations[${i}].occupied`,
      );
    if (o.capacity !== undefined && o.capacity !== null && (!Number.isInteger(o.capacity) || o.capacity < 0))
      throw new ParkingError(
        'PARKING_UPLOAD_INVALID',
        `observations[${i}].capacity: non-negative integer expected`,
        `observations[${i}].capacity`,
      );
    if (!Number.isFinite(o.observedAtS))
      throw new ParkingError(
        'PARKING_UPLOAD_INVALID',
        `observations[${i}].observedAt: a date-time expected`,
        `observations[${i}].observedAt`,
      );
  }
  for (const o of obs) {
    await db.query(
      'INSERT INTO parking_occupancy_observation (target_kind, target_id, observed_at, occupied, capacity, source) VALUES ($1, $2, to_timestamp($3), $4, $5, $6)',
      [o.kind, o.targetId, o.observedAtS, o.occupied, o.capacity ?? null, o.source],
    );
  }
  return obs.length;
}

/** Observations of the given targets in [fromS, toS] (unix seconds), grouped by target id, oldest (then first recorded) first. */
export async function readObservations(
  db: Queryable,
  kind: 'lot' | 'segment',
  targetIds: readonly string[],
  fromS: number,
  toS: number,
): Promise<Map<string, OccupancyObservation[]>> {
  const out = new Map<string, OccupancyObservation[]>();
  if (targetIds.length === 0) return out;
  const r = await db.query<{
    target_id: string;
    at_s: string | number;
    occupied: number;
    capacity: number | null;
    source: string;
  }>(
    `SELECT target_id, extract(epoch FROM observed_at) AS at_s, occupied, capacity, source FROM parking_occupancy_observation
      WHERE target_kind = $1 AND target_id = ANY($2::text[]) AND observed_at BETWEEN to_timestamp($3) AND to_timestamp($4)
      ORDER BY observed_at, id`,
    [kind, targetIds as string[], fromS, toS],
  );
  for (const row of r.rows) {
    let list = out.get(row.target_id);
    if (!list) out.set(row.target_id, (list = []));
    list.push({ observedAtS: Number(row.at_s), occupied: row.occupied, capacity: row.capacity, source: row.source });
  }
  return out;
}
