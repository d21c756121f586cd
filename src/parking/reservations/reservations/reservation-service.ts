/**
 * Reservation transitions: Cancel / Scan / Redeem / Reserve under the state machine, in one
 * transaction holding the product lock. Creation is in create-reservation.ts, reads and the
 * contract view in reservation-model.ts.
 */
import type { Db } from '../../../store/db.js';
import { ReservationsError, invalidParam } from '../errors.js';
import type { PaymentMethod } from '../payments/processor.js';
import { isoUtc } from '../products/clock.js';
import { getProduct } from '../products/product-store.js';
import { assertCapacity, chargeOrThrow, paymentMethodOf } from './payment-steps.js';
import {
  type Caller,
  effectiveStatus,
  getById,
  getReservation,
  type PaymentInput,
  type Reservation,
  type ReservationDeps,
  UUID_RE,
} from './reservation-model.js';
import { nextStatus, ReservationStatus, STATUS_NAMES, type ReservationAction } from './state-machine.js';

/**
 * Applies `action` to reservation `id` under the state machine (state-machine.ts). Scan is for
 * gate stations: applications and staff users only. Reserve pays a quote (capacity checked again).
 * Cancel refunds what was paid and is refused once the stay has started.
 */
export async function actOnReservation(
  db: Db,
  caller: Caller,
  id: string,
  action: ReservationAction,
  deps: ReservationDeps,
  payment?: PaymentInput,
): Promise<Reservation> {
  if (!UUID_RE.test(id)) throw invalidParam('reservationId', 'must be a UUID');
  const method = action === 'Reserve' ? await paymentMethodOf(caller, payment, deps) : null;
  if (action === 'Reserve' && !method)
    throw new ReservationsError(
      'PARKING_PAYMENT_REQUIRED',
      'Reserve needs a payment: token, card fields, or a card saved on the user',
      { parameter: 'token' },
    );
  if (action === 'Scan' && caller.kind === 'user' && !caller.isStaff)
    throw new ReservationsError('PARKING_FORBIDDEN', 'Scan is done by a gate station (application token) or staff', {
      parameter: 'action',
    });
  const peek = await getReservation(db, caller, id);
  return db.transaction(async (tx) => {
    const product = await getProduct(tx, peek.productId, true); // same lock as creation
    const r = await getById(tx, id, true);
    const from = effectiveStatus(r, deps.nowMs);
    const to = nextStatus(from, action);
    if (from === ReservationStatus.EXPIRED && r.status === ReservationStatus.QUOTED && action === 'Reserve')
      throw new ReservationsError(
        'PARKING_QUOTE_EXPIRED',
        `the quote expired at ${isoUtc(r.expiresMs)}: ask for a new one`,
        { parameter: 'pk_reservation' },
      );
    if (to === undefined)
      throw new ReservationsError(
        'PARKING_TRANSITION_INVALID',
        `cannot ${action} a reservation that is ${STATUS_NAMES[from]}`,
        { parameter: 'action', from: STATUS_NAMES[from] },
      );
    const now = new Date(deps.nowMs);
    if (action === 'Cancel') {
      if (r.status === ReservationStatus.RESERVED && deps.nowMs >= r.startMs)
        throw new ReservationsError(
          'PARKING_TRANSITION_INVALID',
          'cannot Cancel a reservation whose stay has started',
          { parameter: 'action', from: STATUS_NAMES[from] },
        );
      const charge = await tx.query<{ payment_charge_id: string | null }>(
        'SELECT payment_charge_id FROM pk_reservation WHERE id = $1',
        [id],
      );
      const chargeId = charge.rows[0]?.payment_charge_id ?? null;
      await tx.query(
        'UPDATE pk_reservation SET status = $2, cancelled_at = $3, amount_refunded_cents = amount_paid_cents WHERE id = $1',
        [id, to, now],
      );
      if (chargeId && r.amountPaidCents > 0) await deps.processor.refund(chargeId, r.amountPaidCents);
    } else if (action === 'Scan') {
      await tx.query('UPDATE pk_reservation SET status = $2, scanned_at = $3 WHERE id = $1', [id, to, now]);
    } else if (action === 'Redeem') {
      await tx.query('UPDATE pk_reservation SET status = $2, redeemed_at = $3 WHERE id = $1', [id, to, now]);
    } else {
      await assertCapacity(tx, product, r.startMs, r.endMs);
      const paidCents = r.amountQuotedCents - r.amountDiscountedCents;
      const chargeId = await chargeOrThrow(deps, method as PaymentMethod, paidCents, product.currencyIso, id);
      await tx.query(
        `UPDATE pk_reservation SET status = $2, amount_paid_cents = $3, payment_processor = $4, payment_charge_id = $5, card_last4 = $6, expires_at = end_at
          WHERE id = $1`,
        [id, to, paidCents, method?.processor, chargeId, method?.last4],
      );
    }
    return getById(tx, id);
  });
}
