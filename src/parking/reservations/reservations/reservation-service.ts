/**
 * Reservations: create (quote or reserve-and-pay), list, get, and the Cancel / Scan / Redeem /
 * Reserve transitions. Capacity is enforced in one transaction per request: the product row is
 * locked (`SELECT … FOR UPDATE`), the stays holding a space in the window are counted, then the
 * reservation is inserted and charged; a decline or a full window rolls everything back.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../../store/db.js';
import { ReservationsError, invalidParam } from '../errors.js';
import type { CardInput, PaymentMethod, PaymentProcessor } from '../payments/processor.js';
import { isoUtc } from '../products/clock.js';
import { fitStay, peakConcurrency } from '../products/pricing.js';
import { heldIntervals } from '../products/product-query.js';
import { getProduct } from '../products/product-store.js';
import type { Product } from '../products/product.js';
import {
  nextStatus,
  ReservationStatus,
  STATUS_NAMES,
  type ReservationAction,
  type ReservationStatusCode,
} from './state-machine.js';

/** How long a quote holds its price, minutes. */
export const QUOTE_VALIDITY_MIN = 15;

/** Longest stay accepted by the API, minutes (a product's max_duration may be lower). */
export const MAX_STAY_MIN = 60 * 24 * 31;

/** Who is calling: a user (Basic credentials) or an application (Bearer app token). */
export type Caller =
  | {
      kind: 'user';
      userId: string;
      isStaff: boolean;
      token: string;
      profile: {
        firstName: string;
        lastName: string;
        phone: string;
        licensePlate: string;
        payment: PaymentMethod | null;
      };
    }
  | { kind: 'app'; appId: string; admin: boolean };

/** What the service needs besides the database. */
export interface ReservationDeps {
  processor: PaymentProcessor;
  /** unix ms */
  nowMs: number;
  /** base of `str_reservation_url`, e.g. `https://parking.example.com` ('' → a relative URL) */
  publicBaseUrl?: string;
}

/** A payment given with a request: a processor token or card details (tokenized, never stored). */
export interface PaymentInput {
  token?: string;
  card?: CardInput;
}

/** `POST /reservation/` in domain terms. */
export interface CreateReservationRequest {
  productId: string;
  /** f_id / id when given: must be the product's lot */
  lotId?: number;
  /** the stay's start, given the lot time zone (entry_time is lot-local unless it ends in Z) */
  entryAt: (tz: string) => number;
  durationMin: number;
  /** true: `action=Quote`, never charge even if a payment method is known */
  quoteOnly: boolean;
  payment?: PaymentInput;
  idempotencyKey?: string;
  contact: { firstName?: string; lastName?: string; phone?: string; licensePlate?: string; cpf?: string };
}

/** A reservation as stored. Money in cents; times unix ms. */
export interface Reservation {
  id: string;
  code: string;
  productId: string;
  productName: string;
  lotId: number;
  lotUuid: string;
  lotName: string;
  lotAddress: string;
  currency: string;
  ownerUserId: string | null;
  ownerAppId: string | null;
  status: ReservationStatusCode;
  startMs: number;
  endMs: number;
  expiresMs: number;
  scannedMs: number | null;
  redeemedMs: number | null;
  cancelledMs: number | null;
  priceCents: number;
  serviceFeeCents: number;
  amountQuotedCents: number;
  amountPaidCents: number;
  amountDiscountedCents: number;
  amountRefundedCents: number;
  coupon: string | null;
  cardLast4: string | null;
  firstName: string;
  lastName: string;
  createdMs: number;
}

/** The result of a create: the reservation and whether it was replayed from an idempotency key. */
export interface CreateResult {
  reservation: Reservation;
  replayed: boolean;
}

const SELECT = `SELECT r.*, p.name AS product_name, p.lot_id, p.lot_uuid, p.lot_name, p.lot_address, p.currency,
  (extract(epoch FROM r.start_at) * 1000)::bigint AS start_ms, (extract(epoch FROM r.end_at) * 1000)::bigint AS end_ms,
  (extract(epoch FROM r.expires_at) * 1000)::bigint AS expires_ms, (extract(epoch FROM r.created_at) * 1000)::bigint AS created_ms,
  (extract(epoch FROM r.scanned_at) * 1000)::bigint AS scanned_ms, (extract(epoch FROM r.redeemed_at) * 1000)::bigint AS redeemed_ms,
  (extract(epoch FROM r.cancelled_at) * 1000)::bigint AS cancelled_ms
  FROM pk_reservation r JOIN pk_product p ON p.id = r.product_id`;

const msOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function rowToReservation(r: Record<string, unknown>): Reservation {
  return {
    id: String(r.id),
    code: String(r.code),
    productId: String(r.product_id),
    productName: String(r.product_name),
    lotId: Number(r.lot_id),
    lotUuid: String(r.lot_uuid),
    lotName: String(r.lot_name),
    lotAddress: String(r.lot_address),
    currency: String(r.currency),
    ownerUserId: (r.owner_user_id as string | null) ?? null,
    ownerAppId: (r.owner_app_id as string | null) ?? null,
    status: Number(r.status) as ReservationStatusCode,
    startMs: Number(r.start_ms),
    endMs: Number(r.end_ms),
    expiresMs: Number(r.expires_ms),
    scannedMs: msOrNull(r.scanned_ms),
    redeemedMs: msOrNull(r.redeemed_ms),
    cancelledMs: msOrNull(r.cancelled_ms),
    priceCents: Number(r.price_cents),
    serviceFeeCents: Number(r.service_fee_cents),
    amountQuotedCents: Number(r.amount_quoted_cents),
    amountPaidCents: Number(r.amount_paid_cents),
    amountDiscountedCents: Number(r.amount_discounted_cents),
    amountRefundedCents: Number(r.amount_refunded_cents),
    coupon: (r.coupon as string | null) ?? null,
    cardLast4: (r.card_last4 as string | null) ?? null,
    firstName: String(r.first_name),
    lastName: String(r.last_name),
    createdMs: Number(r.created_ms),
  };
}

/**
 * The status a client sees: a quote past its expiration (15 minutes), or a reservation never
 * scanned nor redeemed by the end of its stay (a no-show), reads as expired (5).
 */
export function effectiveStatus(r: Reservation, nowMs: number): ReservationStatusCode {
  const lapses = r.status === ReservationStatus.QUOTED || r.status === ReservationStatus.RESERVED;
  return lapses && nowMs > r.expiresMs ? ReservationStatus.EXPIRED : r.status;
}

const scopeOf = (caller: Caller): string => (caller.kind === 'user' ? `u:${caller.userId}` : `a:${caller.appId}`);
const seesAll = (caller: Caller): boolean => (caller.kind === 'user' ? caller.isStaff : caller.admin);

/** True when `caller` may see (and act on) `r`: its owner, staff users and admin apps. */
export function canSee(caller: Caller, r: Reservation): boolean {
  if (seesAll(caller)) return true;
  return caller.kind === 'user' ? r.ownerUserId === caller.userId : r.ownerAppId === caller.appId;
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A 5-character reservation code (the sample length), from an alphabet without look-alikes. */
function newCode(): string {
  const bytes = randomBytes(5);
  let s = '';
  for (const b of bytes) s += CODE_ALPHABET[b % CODE_ALPHABET.length];
  return s;
}

/** Resolves the payment of a request to a stored-safe method, or null when none is given or known. */
async function paymentMethodOf(
  caller: Caller,
  payment: PaymentInput | undefined,
  deps: ReservationDeps,
): Promise<PaymentMethod | null> {
  if (payment?.token) return deps.processor.describeToken(payment.token);
  if (payment?.card) return deps.processor.tokenize(payment.card, deps.nowMs);
  if (caller.kind === 'user' && caller.profile.payment) return caller.profile.payment;
  return null;
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

/** Throws PARKING_PRODUCT_SOLD_OUT when adding [startMs, endMs) would exceed the product's capacity. */
async function assertCapacity(q: Queryable, product: Product, startMs: number, endMs: number): Promise<void> {
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
async function chargeOrThrow(
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

const isUniqueViolation = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: string }).code === '23505';

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
  const contact = {
    firstName: req.contact.firstName ?? (caller.kind === 'user' ? caller.profile.firstName : ''),
    lastName: req.contact.lastName ?? (caller.kind === 'user' ? caller.profile.lastName : ''),
    phone: req.contact.phone ?? (caller.kind === 'user' ? caller.profile.phone : ''),
    licensePlate: req.contact.licensePlate ?? (caller.kind === 'user' ? caller.profile.licensePlate : ''),
    cpf: req.contact.cpf,
  };
  const run = () =>
    db.transaction(async (tx): Promise<CreateResult> => {
      const product = await getProduct(tx, req.productId, true); // the capacity lock
      if (!product.active)
        throw new ReservationsError('PARKING_PRODUCT_NOT_FOUND', `product ${product.id} is no longer offered`, {
          parameter: 'pk_reservation_product',
        });
      if (req.lotId !== undefined && req.lotId !== product.lotId)
        throw invalidParam('f_id', `product ${product.id} belongs to lot ${product.lotId}, not ${req.lotId}`);
      const startMs = req.entryAt(product.tz);
      const endMs = startMs + req.durationMin * 60_000;
      const fingerprint = JSON.stringify([product.id, startMs, req.durationMin, method ? 'reserve' : 'quote']);
      if (req.idempotencyKey !== undefined) {
        const prior = await findByIdempotencyKey(tx, scope, req.idempotencyKey);
        if (prior) {
          if (prior.fingerprint !== fingerprint)
            throw new ReservationsError(
              'PARKING_IDEMPOTENCY_CONFLICT',
              'this Idempotency-Key was used for a different request',
              { parameter: 'Idempotency-Key' },
            );
          return { reservation: prior.reservation, replayed: true };
        }
      }
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
      const status = method ? ReservationStatus.RESERVED : ReservationStatus.QUOTED;
      const expiresMs = method ? endMs : deps.nowMs + QUOTE_VALIDITY_MIN * 60_000;
      const chargeId = method
        ? await chargeOrThrow(deps, method, quotedCents - discountedCents, product.currencyIso, id)
        : null;
      let code = '';
      for (let attempt = 0; ; attempt++) {
        code = newCode();
        const inserted = await tx.query(
          `INSERT INTO pk_reservation (id, code, product_id, owner_user_id, owner_app_id, owner_scope, idempotency_key, request_fingerprint,
             status, start_at, end_at, expires_at, price_cents, service_fee_cents, amount_quoted_cents, amount_paid_cents,
             amount_discounted_cents, payment_processor, payment_charge_id, card_last4, first_name, last_name, phone, license_plate, created_at)
           VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25)
           ON CONFLICT (code) DO NOTHING RETURNING id`,
          [
            id,
            code,
            product.id,
            caller.kind === 'user' ? caller.userId : null,
            caller.kind === 'app' ? caller.appId : null,
            scope,
            req.idempotencyKey ?? null,
            fingerprint,
            status,
            new Date(startMs),
            new Date(endMs),
            new Date(expiresMs),
            fit.priceCents,
            product.serviceFeeCents,
            quotedCents,
            method ? quotedCents - discountedCents : 0,
            discountedCents,
            method?.processor ?? null,
            chargeId,
            method?.last4 ?? null,
            contact.firstName,
            contact.lastName,
            contact.phone,
            contact.licensePlate,
            new Date(deps.nowMs),
          ],
        );
        if (inserted.rows.length === 1) break;
        if (attempt > 20) throw new Error('could not allocate a unique reservation code');
      }
      // built from what was just written (saves a read under the product lock)
      const reservation: Reservation = {
        id,
        code,
        productId: product.id,
        productName: product.name,
        lotId: product.lotId,
        lotUuid: product.lotUuid,
        lotName: product.lotName,
        lotAddress: product.lotAddress,
        currency: product.currency,
        ownerUserId: caller.kind === 'user' ? caller.userId : null,
        ownerAppId: caller.kind === 'app' ? caller.appId : null,
        status,
        startMs,
        endMs,
        expiresMs,
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
      return { reservation, replayed: false };
    });
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

async function getById(q: Queryable, id: string, forUpdate = false): Promise<Reservation> {
  const res = await q.query(`${SELECT} WHERE r.id = $1${forUpdate ? ' FOR UPDATE OF r' : ''}`, [id]);
  if (res.rows.length === 0)
    throw new ReservationsError('PARKING_RESERVATION_NOT_FOUND', `no reservation ${id}`, {
      parameter: 'reservationId',
    });
  return rowToReservation(res.rows[0]);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The reservation `id` when `caller` may see it; else PARKING_RESERVATION_NOT_FOUND (existence is not leaked). */
export async function getReservation(q: Queryable, caller: Caller, id: string): Promise<Reservation> {
  if (!UUID_RE.test(id)) throw invalidParam('reservationId', 'must be a UUID');
  const r = await getById(q, id);
  if (!canSee(caller, r))
    throw new ReservationsError('PARKING_RESERVATION_NOT_FOUND', `no reservation ${id}`, {
      parameter: 'reservationId',
    });
  return r;
}

/** Reservations `caller` may see (own; everything for staff users and admin apps), newest first, at most `limit`. */
export async function listReservations(q: Queryable, caller: Caller, limit = 500): Promise<Reservation[]> {
  const res = seesAll(caller)
    ? await q.query(`${SELECT} ORDER BY r.created_at DESC, r.id LIMIT $1`, [limit])
    : caller.kind === 'user'
      ? await q.query(`${SELECT} WHERE r.owner_user_id = $1 ORDER BY r.created_at DESC, r.id LIMIT $2`, [
          caller.userId,
          limit,
        ])
      : await q.query(`${SELECT} WHERE r.owner_app_id = $1 ORDER BY r.created_at DESC, r.id LIMIT $2`, [
          caller.appId,
          limit,
        ]);
  return res.rows.map(rowToReservation);
}

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

/** A reservation in the contract's Reservation shape (money in currency units, times ISO 8601 UTC). */
export function reservationView(r: Reservation, nowMs: number, publicBaseUrl = ''): Record<string, unknown> {
  const status = effectiveStatus(r, nowMs);
  const units = (cents: number): number => cents / 100;
  return {
    pk_reservation: r.id,
    pk_lot: r.lotUuid,
    f_id: r.lotId,
    lot_address: r.lotAddress,
    lot_name: r.lotName,
    pk_reservation_product: r.productId,
    product_name: r.productName,
    str_reservation_code: r.code,
    dt_start_time: isoUtc(r.startMs),
    dt_end_time: isoUtc(r.endMs),
    dt_expiration_date: isoUtc(r.expiresMs),
    dt_scan_time: r.scannedMs === null ? null : isoUtc(r.scannedMs),
    pk_reservation_status: status,
    status_name: STATUS_NAMES[status],
    str_reservation_url: `${publicBaseUrl}/reservation/${r.id}`,
    d_amount_quoted: units(r.amountQuotedCents),
    d_amount_paid: units(r.amountPaidCents),
    d_amount_discounted: units(r.amountDiscountedCents),
    d_amount_refunded: units(r.amountRefundedCents),
    d_service_fee: units(r.serviceFeeCents),
    currency: r.currency,
    pk_coupon: r.coupon,
    card_last4: r.cardLast4,
    first_name: r.firstName,
    last_name: r.lastName,
  };
}
