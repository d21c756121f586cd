/** Payment and capacity steps shared by creating a reservation and paying a quote. */
import type { Queryable } from '../../../store/db.js';
import { ReservationsError } from '../errors.js';
import type { PaymentMethod } from '../payments/processor.js';
import { isoUtc } from '../products/clock.js';
import { peakConcurrency } from '../products/pricing.js';
import { heldIntervals } from '../products/product-query.js';
import type { Product } from '../products/product.js';
import type { Caller, PaymentInput, ReservationDeps } from './reservation-model.js';

/** Resolves the payment of a request to a stored-safe method, or null when none is given or known. */
export async function paymentMethodOf(
  caller: Caller,
  payment: PaymentInput | undefined,
  deps: ReservationDeps,
): Promise<PaymentMethod | null> {
  if (payment?.token) return deps.processor.describeToken(payment.token);
  if (payment?.card) return deps.processor.tokenize(payment.card, deps.nowMs);
  if (caller.kind === 'user' && caller.profile.payment) return caller.profile.payment;
  return null;
}

/** Throws PARKING_PRODUCT_SOLD_OUT when adding [startMs, endMs) would exceed the product's capacity. */
export async function assertCapacity(q: Queryable, product: Product, startMs: number, endMs: number): Promise<void> {
  const peak = peakConcurrency(await heldIntervals(q, product.id, startMs, endMs), startMs, endMs);
  if (peak + 1 > product.capacity) {
    throw new ReservationsError(
      'PARKING_PRODUCT_SOLD_OUT',
      `product ${product.id} has no space left between ${isoUtc(startMs)} and ${isoUtc(endMs)}`,
      { parameter: 'entry_time' },
    );
  }
}

/** Charges `amountCents` or throws PARKING_PAYMENT_DECLINED (rolling back the caller's transaction). */
export async function chargeOrThrow(
  deps: ReservationDeps,
  method: PaymentMethod,
  amountCents: number,
  currencyIso: string,
  reference: string,
): Promise<string | null> {
  if (amountCents === 0) return null;
  const result = await deps.processor.charge(method.token, amountCents, currencyIso, reference);
  if (!result.ok)
    throw new ReservationsError('PARKING_PAYMENT_DECLINED', `payment declined: ${result.reason}`, {
      parameter: 'token',
    });
  return result.chargeId;
}
