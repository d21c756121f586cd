/**
 * A reservation as stored and as read: its shape, the row mapping, who may see it, the status a
 * client sees, the reads by id and by caller, and the contract's Reservation view.
 */
import type { Queryable } from '../../../store/db.js';
import { ReservationsError, invalidParam } from '../errors.js';
import type { CardInput, PaymentMethod, PaymentProcessor } from '../payments/processor.js';
import { isoUtc } from '../products/clock.js';
import { ReservationStatus, STATUS_NAMES, type ReservationStatusCode } from './state-machine.js';

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

export const SELECT = `SELECT r.*, p.name AS product_name, p.lot_id, p.lot_uuid, p.lot_name, p.lot_address, p.currency,
  (extract(epoch FROM r.start_at) * 1000)::bigint AS start_ms, (extract(epoch FROM r.end_at) * 1000)::bigint AS end_ms,
  (extract(epoch FROM r.expires_at) * 1000)::bigint AS expires_ms, (extract(epoch FROM r.created_at) * 1000)::bigint AS created_ms,
  (extract(epoch FROM r.scanned_at) * 1000)::bigint AS scanned_ms, (extract(epoch FROM r.redeemed_at) * 1000)::bigint AS redeemed_ms,
  (extract(epoch FROM r.cancelled_at) * 1000)::bigint AS cancelled_ms
  FROM pk_reservation r JOIN pk_product p ON p.id = r.product_id`;

const msOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function rowToReservation(r: Record<string, unknown>): Reservation {
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

export const scopeOf = (caller: Caller): string =>
  caller.kind === 'user' ? `u:${caller.userId}` : `a:${caller.appId}`;
export const seesAll = (caller: Caller): boolean => (caller.kind === 'user' ? caller.isStaff : caller.admin);

/** True when `caller` may see (and act on) `r`: its owner, staff users and admin apps. */
export function canSee(caller: Caller, r: Reservation): boolean {
  if (seesAll(caller)) return true;
  return caller.kind === 'user' ? r.ownerUserId === caller.userId : r.ownerAppId === caller.appId;
}

export async function getById(q: Queryable, id: string, forUpdate = false): Promise<Reservation> {
  const res = await q.query(`${SELECT} WHERE r.id = $1${forUpdate ? ' FOR UPDATE OF r' : ''}`, [id]);
  if (res.rows.length === 0)
    throw new ReservationsError('PARKING_RESERVATION_NOT_FOUND', `no reservation ${id}`, {
      parameter: 'reservationId',
    });
  return rowToReservation(res.rows[0]);
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
