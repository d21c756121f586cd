/**
 * Spaces held by reservations, per lot, at one instant: an observation the occupancy model can
 * add to its expectation (reserved cars are coming or parked).
 */
import type { Queryable } from '../../../store/db.js';
import { HOLDING_STATUSES } from '../products/product-query.js';

/**
 * Number of reservations (reserved, scanned or redeemed) whose stay covers `atMs` (unix ms), per
 * lot id. Lots without any are absent from the map.
 * @example const held = await heldSpacesOfLots(db, [9001, 9002], Date.now()); held.get(9001) ?? 0
 */
export async function heldSpacesOfLots(q: Queryable, lotIds: number[], atMs: number): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (lotIds.length === 0) return out;
  const res = await q.query<{ lot_id: string | number; n: number }>(
    `SELECT p.lot_id, count(*)::int AS n FROM pk_reservation r JOIN pk_product p ON p.id = r.product_id
      WHERE p.lot_id = ANY($1::bigint[]) AND r.status = ANY($2::smallint[]) AND r.start_at <= $3 AND r.end_at > $3
      GROUP BY p.lot_id`,
    [lotIds, HOLDING_STATUSES, new Date(atMs)],
  );
  for (const r of res.rows) out.set(Number(r.lot_id), Number(r.n));
  return out;
}
