/**
 * Creating a reservation (quote or reserve-and-pay). Capacity is enforced in one transaction per
 * request: the product row is locked (`SELECT … FOR UPDATE`), the stays holding a space in the
 * window are counted, then the reservation is inserted and charged; a decline or a full window
 * rolls everything back.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../../store/db.js';
import { ReservationsError, invalidParam } from '../errors.js';
import type { PaymentMethod } from '../payments/processor.js';
import { fitStay } from '../products/pricing.js';
import { getProduct } from '../products/product-store.js';
import type { Product } from '../products/product.js';
import { assertCapacity, chargeOrThrow, paymentMethodOf } from './payment-steps.js';
import {
  type Caller,
  type CreateReservationRequest,
  type CreateResult,
  MAX_STAY_MIN,
  QUOTE_VALIDITY_MIN,
  type Reservation,
  type ReservationDeps,
  rowToReservation,
  SELECT,
  scopeOf,
} from './reservation-model.js';
import { ReservationStatus } from './state-machine.js';

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A 5-character reservation code (the sample length), from an alphabet without look-alikes. */
function newCode(): string {
  const bytes = randomBytes(5);
  let s = '';
  for (const b of bytes) s += CODE_ALPHABET[b % CODE_ALPHABET.length];
  return s;
}

function checkRequiredFields(product: Product, contact: CreateReservationRequest['contact']): void {
  if (product.phoneRequired && !contact.phone)
    throw new ReservationsError('PARKING_FIELD_REQUIRED', 'this product requires phone', { parameter: 'phone' });
  if (product.licenseRequired && !contact.licensePlate)
    throw new ReservationsError('PARKING_FIELD_REQUIRED', 'this product requires str_license_plate', {
      parameter: 'str_license_plate',
    });
  if (product.cpfRequired && !contact.cpf)
    throw new ReservationsError('PARKING_FIELD_REQUIRED', 'this product requires cpf', { parameter: 'cpf' });
}

async function findByIdempotencyKey(
  q: Queryable,
  scope: string,
  key: string,
): Promise<{ reservation: Reservation; fingerprint: string } | undefined> {
  const res = await q.query(`${SELECT} WHERE r.owner_scope = $1 AND r.idempotency_key = $2`, [scope, key]);
  if (res.rows.length === 0) return undefined;
  return { reservation: rowToReservation(res.rows[0]), fingerprint: String(res.rows[0].request_fingerprint) };
}

const isUniqueViolation = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: string }).code === '23505';

type Contact = { firstName: string; lastName: string; phone: string; licensePlate: string; cpf?: string };

/** The request's contact fields, falling back to the calling user's profile. */
function contactOf(caller: Caller, req: CreateReservationRequest): Contact {
  return {
    firstName: req.contact.firstName ?? (caller.kind === 'user' ? caller.profile.firstName : ''),
    lastName: req.contact.lastName ?? (caller.kind === 'user' ? caller.profile.lastName : ''),
    phone: req.contact.phone ?? (caller.kind === 'user' ? caller.profile.phone : ''),
    licensePlate: req.contact.licensePlate ?? (caller.kind === 'user' ? caller.profile.licensePlate : ''),
    cpf: req.contact.cpf,
  };
}

/** What a create writes besides the reservation itself. */
interface InsertExtras {
  scope: string;
  idempotencyKey: string | null;
  fingerprint: string;
  method: PaymentMethod | null;
  chargeId: string | null;
  contact: Contact;
}

/** Inserts `r` under a fresh unique code (retrying on a code collision) and sets `r.code`. */
async function insertReservation(tx: Queryable, r: Reservation, x: InsertExtras): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    r.code = newCode();
    const inserted = await tx.query(
      `INSERT INTO pk_reservation (id, code, product_id, owner_user_id, owner_app_id, owner_scope, idempotency_key, request_fingerprint,
         status, start_at, end_at, expires_at, price_cents, service_fee_cents, amount_quoted_cents, amount_paid_cents,
         amount_discounted_cents, payment_processor, payment_charge_id, card_last4, first_name, last_name, phone, license_plate, created_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25)
       ON CONFLICT (code) DO NOTHING RETURNING id`,
      [
        r.id,
        r.code,
        r.productId,
        r.ownerUserId,
        r.ownerAppId,
        x.scope,
        x.idempotencyKey,
        x.fingerprint,
        r.status,
        new Date(r.startMs),
        new Date(r.endMs),
        new Date(r.expiresMs),
        r.priceCents,
        r.serviceFeeCents,
        r.amountQuotedCents,
        r.amountPaidCents,
        r.amountDiscountedCents,
        x.method?.processor ?? null,
        x.chargeId,
        r.cardLast4,
        x.contact.firstName,
        x.contact.lastName,
        x.contact.phone,
        x.contact.licensePlate,
        new Date(r.createdMs),
      ],
    );
    if (inserted.rows.length === 1) return;
    if (attempt > 20) throw new Error('could not allocate a unique reservation code');
  }
}

/** Loads and locks the product (the capacity lock) and checks it is offered at the requested lot. */
async function lockedProduct(tx: Queryable, req: CreateReservationRequest): Promise<Product> {
  const product = await getProduct(tx, req.productId, true);
  if (!product.active)
    throw new ReservationsError('PARKING_PRODUCT_NOT_FOUND', `product ${product.id} is no longer offered`, {
      parameter: 'pk_reservation_product',
    });
  if (req.lotId !== undefined && req.lotId !== product.lotId)
    throw invalidParam('f_id', `product ${product.id} belongs to lot ${product.lotId}, not ${req.lotId}`);
  return product;
}

/** The first reservation of a repeated idempotency key, or PARKING_IDEMPOTENCY_CONFLICT when the request differs. */
async function replayed(
  tx: Queryable,
  scope: string,
  key: string | undefined,
  fingerprint: string,
): Promise<CreateResult | undefined> {
  if (key === undefined) return undefined;
  const prior = await findByIdempotencyKey(tx, scope, key);
  if (!prior) return undefined;
  if (prior.fingerprint !== fingerprint)
    throw new ReservationsError(
      'PARKING_IDEMPOTENCY_CONFLICT',
      'this Idempotency-Key was used for a different request',
      {
        parameter: 'Idempotency-Key',
      },
    );
  return { reservation: prior.reservation, replayed: true };
}

/** The create inside its transaction: lock, replay check, fit, capacity, charge, insert. */
async function createInTransaction(
  tx: Queryable,
  caller: Caller,
  req: CreateReservationRequest,
  deps: ReservationDeps,
  method: PaymentMethod | null,
  contact: Contact,
): Promise<CreateResult> {
  const scope = scopeOf(caller);
  const product = await lockedProduct(tx, req);
  const startMs = req.entryAt(product.tz);
  const endMs = startMs + req.durationMin * 60_000;
  const fingerprint = JSON.stringify([product.id, startMs, req.durationMin, method ? 'reserve' : 'quote']);
  const prior = await replayed(tx, scope, req.idempotencyKey, fingerprint);
  if (prior) return prior;
  if (startMs < deps.nowMs - 5 * 60_000) throw invalidParam('entry_time', 'the stay must not start in the past');
  const fit = fitStay(product, startMs, req.durationMin);
  if (!fit.ok)
    throw new ReservationsError(
      'PARKING_PRODUCT_UNAVAILABLE',
      `product ${product.id} does not offer this stay: ${fit.reason.replace(/_/g, ' ')}`,
      { parameter: fit.reason === 'duration_exceeds_max' ? 'duration' : 'entry_time', reason: fit.reason },
    );
  if (method) {
    checkRequiredFields(product, contact);
    await assertCapacity(tx, product, startMs, endMs);
  }
  const id = randomUUID();
  const quotedCents = fit.priceCents + product.serviceFeeCents;
  const discountedCents = 0;
  const chargeId = method
    ? await chargeOrThrow(deps, method, quotedCents - discountedCents, product.currencyIso, id)
    : null;
  // returned as written (saves a read under the product lock)
  const reservation: Reservation = {
    id,
    code: '',
    productId: product.id,
    productName: product.name,
    lotId: product.lotId,
    lotUuid: product.lotUuid,
    lotName: product.lotName,
    lotAddress: product.lotAddress,
    currency: product.currency,
    ownerUserId: caller.kind === 'user' ? caller.userId : null,
    ownerAppId: caller.kind === 'app' ? caller.appId : null,
    status: method ? ReservationStatus.RESERVED : ReservationStatus.QUOTED,
    startMs,
    endMs,
    expiresMs: method ? endMs : deps.nowMs + QUOTE_VALIDITY_MIN * 60_000,
    scannedMs: null,
    redeemedMs: null,
    cancelledMs: null,
    priceCents: fit.priceCents,
    serviceFeeCents: product.serviceFeeCents,
    amountQuotedCents: quotedCents,
    amountPaidCents: method ? quotedCents - discountedCents : 0,
    amountDiscountedCents: discountedCents,
    amountRefundedCents: 0,
    coupon: null,
    cardLast4: method?.last4 ?? null,
    firstName: contact.firstName,
    lastName: contact.lastName,
    createdMs: deps.nowMs,
  };
  const idempotencyKey = req.idempotencyKey ?? null;
  await insertReservation(tx, reservation, { scope, idempotencyKey, fingerprint, method, chargeId, contact });
  return { reservation, replayed: false };
}

/**
 * Creates a reservation (status 1, paid) when a payment is given or known, else a quote (status 0,
 * holds no space, valid QUOTE_VALIDITY_MIN minutes). A repeated idempotency key of the same caller
 * returns the first reservation (`replayed`), or PARKING_IDEMPOTENCY_CONFLICT when the request differs.
 * @example await createReservation(db, caller, { productId, entryAt: () => t, durationMin: 120, quoteOnly: false, payment: { token: 'tok_visa' }, contact: {} }, deps)
 */
export async function createReservation(
  db: Db,
  caller: Caller,
  req: CreateReservationRequest,
  deps: ReservationDeps,
): Promise<CreateResult> {
  if (!Number.isInteger(req.durationMin) || req.durationMin <= 0 || req.durationMin > MAX_STAY_MIN)
    throw invalidParam('duration', `must be an integer number of minutes between 1 and ${MAX_STAY_MIN}`);
  if (req.idempotencyKey !== undefined && !/^[\x21-\x7e]{1,200}$/.test(req.idempotencyKey))
    throw invalidParam('Idempotency-Key', 'must be 1–200 visible ASCII characters');
  const method = req.quoteOnly ? null : await paymentMethodOf(caller, req.payment, deps);
  const scope = scopeOf(caller);
  const contact = contactOf(caller, req);
  const run = () =>
    db.transaction((tx): Promise<CreateResult> => createInTransaction(tx, caller, req, deps, method, contact));
  try {
    return await run();
  } catch (e) {
    // the same key raced on another product (unique index): answer like a replay or a conflict
    if (isUniqueViolation(e) && req.idempotencyKey !== undefined) {
      const prior = await findByIdempotencyKey(db, scope, req.idempotencyKey);
      if (prior)
        throw new ReservationsError(
          'PARKING_IDEMPOTENCY_CONFLICT',
          'this Idempotency-Key was used for a different request',
          { parameter: 'Idempotency-Key' },
        );
    }
    throw e;
  }
}
