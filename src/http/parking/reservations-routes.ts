/**
 * `POST /reservation/`, `GET /reservation/`, `GET /reservation/{id}`, `PUT /reservation/{id}`.
 * Fields come as form fields or JSON (query string too, per the contract's entry_time/duration).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import {
  actOnReservation,
  createReservation,
  getReservation,
  invalidParam,
  listReservations,
  missingParam,
  parseAction,
  parseCardExpiry,
  parseEntryLocal,
  reservationView,
  type CreateReservationRequest,
  type PaymentInput,
  type Reservation,
} from '../../parking/reservations/index.js';
import { parseDurations } from './reservations-products.js';
import {
  BODY_ONLY_FIELD,
  fieldsOf,
  paymentProcessor,
  publicBaseUrl,
  rejectUnknown,
  reservationCaller,
  sendJsonOrXml,
  stringField,
  fieldSchemas,
} from './reservations-support.js';

/** Header carrying the idempotency key of `POST /reservation/`. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

const PAYMENT_FIELDS = [
  'token',
  'card-number',
  'card_expiry_month',
  'card_expiry_year',
  'card-expiry',
  'card-cvc',
] as const;
const CONTACT_FIELDS = ['first_name', 'last_name', 'phone', 'str_license_plate', 'cpf'] as const;
const POST_FIELDS = [
  'id',
  'f_id',
  'pk_reservation_product',
  'pk_reservation',
  'action',
  'entry_time',
  'duration',
  'idempotency_key',
  ...PAYMENT_FIELDS,
  ...CONTACT_FIELDS,
] as const;
const PUT_FIELDS = ['action', ...PAYMENT_FIELDS] as const;

/** Payment fields of a request: a processor token or card details (card numbers are only passed to the processor). */
function paymentOf(fields: Record<string, unknown>): PaymentInput | undefined {
  const token = stringField(fields, 'token');
  const number = stringField(fields, 'card-number');
  if (token && number) throw invalidParam('token', 'send either token or card-number, not both');
  if (token) return { token };
  if (!number) {
    for (const f of ['card_expiry_month', 'card_expiry_year', 'card-expiry', 'card-cvc'])
      if (fields[f] !== undefined) throw missingParam('card-number');
    return undefined;
  }
  const month = stringField(fields, 'card_expiry_month');
  const year = stringField(fields, 'card_expiry_year');
  const combined = stringField(fields, 'card-expiry');
  let m: number | undefined = month === undefined ? undefined : Number(month);
  let y: number | undefined = year === undefined ? undefined : Number(year);
  if (year !== undefined && !/^\d{4}$/.test(year)) throw invalidParam('card_expiry_year', 'must have 4 digits');
  if (combined !== undefined) ({ month: m, year: y } = parseCardExpiry(combined));
  if (m === undefined) throw missingParam('card_expiry_month');
  if (y === undefined) throw missingParam('card_expiry_year');
  return { card: { number, expiryMonth: m, expiryYear: y, cvc: stringField(fields, 'card-cvc') } };
}

/** Refuses card data in the query string: it would end up in logs and caches. */
function rejectCardInQuery(req: FastifyRequest): void {
  const q = (req.query ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(q)) {
    if (BODY_ONLY_FIELD.test(k))
      throw invalidParam(k, 'payment data must be sent in the request body, never in the URL');
  }
}

/** XML shape of a reservation response (Reservations/Reservation repeated). */
function reservationXml(body: Record<string, unknown>): Record<string, unknown> {
  return {
    Token: body.Token,
    ReservationCount: body.ReservationCount,
    Reservations: { Reservation: body.Reservations },
  };
}

function send(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  token: string,
  items: Reservation[],
): FastifyReply {
  const body = {
    Token: token,
    ReservationCount: items.length,
    Reservations: items.map((r) => reservationView(r, ctx.now(), publicBaseUrl(req))),
  };
  return sendJsonOrXml(req, reply, 'ReservationResponse', body, reservationXml);
}

const PAYMENT_DOCS = {
  token: 'payment-processor token (test: tok_visa, tok_mastercard, tok_chargeDeclined)',
  'card-number': 'card number (tokenized, never stored)',
  card_expiry_month: '1–12',
  card_expiry_year: '4 digits',
  'card-expiry': 'MM/YY, MM YYYY or MM-YY',
  'card-cvc': '3 digits (never stored)',
};
const POST_DOCS: Record<string, string> = {
  pk_reservation_product: 'product UUID',
  f_id: 'lot id (optional; must be the product lot)',
  id: 'lot id (same as f_id)',
  pk_reservation: 'existing reservation for Reserve (pay a quote), Redeem, Scan, Cancel',
  action: 'Reserve (default), Quote, Redeem, Scan, Cancel',
  entry_time: 'yyyy-mm-ddTHH:MM[:ss]; trailing Z = UTC, else lot-local',
  duration: 'minutes',
  idempotency_key: 'same as the Idempotency-Key header',
  ...PAYMENT_DOCS,
  first_name: 'driver first name',
  last_name: 'driver last name',
  phone: 'required by products with phone_required',
  str_license_plate: 'required by products with license_required',
  cpf: 'required by products with cpf_required',
};
const PUT_DOCS: Record<string, string> = { action: 'Cancel, Scan, Redeem or Reserve', ...PAYMENT_DOCS };
/** Security of the reservation routes: an app token, or the user's Basic credentials. */
const CALLER: Array<Record<string, string[]>> = [{ bearer: [] }, { basic: [] }];

/** The create request of a `POST /reservation/` (a new reservation or a quote). */
function createRequestOf(
  req: FastifyRequest,
  fields: Record<string, unknown>,
  quoteOnly: boolean,
  payment: PaymentInput | undefined,
): CreateReservationRequest {
  const headerKey = req.headers[IDEMPOTENCY_HEADER];
  const bodyKey = stringField(fields, 'idempotency_key');
  if (Array.isArray(headerKey)) throw invalidParam('Idempotency-Key', 'given more than once');
  if (headerKey !== undefined && bodyKey !== undefined && headerKey !== bodyKey)
    throw invalidParam('idempotency_key', 'differs from the Idempotency-Key header');
  const productId = stringField(fields, 'pk_reservation_product');
  if (!productId) throw missingParam('pk_reservation_product');
  const idText = stringField(fields, 'f_id') ?? stringField(fields, 'id');
  if (idText !== undefined && !/^-?\d{1,18}$/.test(idText)) throw invalidParam('f_id', 'must be an integer lot id');
  const entryText = stringField(fields, 'entry_time');
  if (!entryText) throw missingParam('entry_time');
  parseEntryLocal(entryText, 'UTC', 'entry_time');
  const durationText = stringField(fields, 'duration');
  if (!durationText) throw missingParam('duration');
  const durations = parseDurations(durationText);
  if (durations.length !== 1) throw invalidParam('duration', 'a reservation has one duration');
  return {
    productId,
    lotId: idText === undefined ? undefined : Number(idText),
    entryAt: (tz) => parseEntryLocal(entryText, tz, 'entry_time'),
    durationMin: durations[0],
    quoteOnly,
    payment,
    idempotencyKey: headerKey ?? bodyKey,
    contact: {
      firstName: stringField(fields, 'first_name'),
      lastName: stringField(fields, 'last_name'),
      phone: stringField(fields, 'phone'),
      licensePlate: stringField(fields, 'str_license_plate'),
      cpf: stringField(fields, 'cpf'),
    },
  };
}

/** `POST /reservation/`: reserve, quote, or act on an existing reservation. */
function registerCreateRoute(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/reservation/',
    {
      schema: {
        tags: ['parking'],
        summary: 'Reserve (and pay) or quote a product; Idempotency-Key header or idempotency_key field',
        description: 'Fields as form fields or a JSON object; all but payment data may also come in the query string.',
        ...fieldSchemas('POST /reservation/', POST_FIELDS, POST_DOCS),
        security: CALLER,
      },
    },
    async (req, reply) => {
      rejectCardInQuery(req);
      const fields = fieldsOf(req);
      rejectUnknown(fields, POST_FIELDS);
      const { caller, token } = await reservationCaller(ctx, req);
      const actionText = stringField(fields, 'action') ?? 'Reserve';
      const quoteOnly = actionText.toLowerCase() === 'quote';
      const action = quoteOnly ? 'Reserve' : parseAction(actionText);
      if (!action) throw invalidParam('action', 'must be Reserve, Quote, Redeem, Scan or Cancel');
      const payment = paymentOf(fields);
      const existing = stringField(fields, 'pk_reservation');
      if (action !== 'Reserve' || (existing && !quoteOnly)) {
        // an action on an existing reservation (Reserve on a quote pays it)
        if (!existing) throw missingParam('pk_reservation');
        const r = await actOnReservation(
          ctx.db,
          caller,
          existing,
          action,
          { processor: paymentProcessor, nowMs: ctx.now() },
          payment,
        );
        return send(req, reply, ctx, token, [r]);
      }
      const result = await createReservation(ctx.db, caller, createRequestOf(req, fields, quoteOnly, payment), {
        processor: paymentProcessor,
        nowMs: ctx.now(),
      });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return send(req, reply, ctx, token, [result.reservation]);
    },
  );
}

/** Registers the reservation routes on the reservations plugin. */
export function registerReservationRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerCreateRoute(app, ctx);

  app.get(
    '/reservation/',
    {
      schema: {
        tags: ['parking'],
        summary: 'Reservations the caller may see (own; staff users and admin apps see all)',
        security: CALLER,
      },
    },
    async (req, reply) => {
      rejectUnknown(fieldsOf(req), []);
      const { caller, token } = await reservationCaller(ctx, req);
      return send(req, reply, ctx, token, await listReservations(ctx.db, caller));
    },
  );

  app.get(
    '/reservation/:reservationId',
    { schema: { tags: ['parking'], summary: 'One reservation', security: CALLER } },
    async (req, reply) => {
      rejectUnknown(fieldsOf(req), []);
      const { caller, token } = await reservationCaller(ctx, req);
      const { reservationId } = req.params as { reservationId: string };
      return send(req, reply, ctx, token, [await getReservation(ctx.db, caller, reservationId)]);
    },
  );

  app.put(
    '/reservation/:reservationId',
    {
      schema: {
        tags: ['parking'],
        summary: 'Cancel, Scan or Redeem a reservation (Reserve pays a quote)',
        ...fieldSchemas('PUT /reservation/{id}', PUT_FIELDS, PUT_DOCS),
        security: CALLER,
      },
    },
    async (req, reply) => {
      rejectCardInQuery(req);
      const fields = fieldsOf(req);
      rejectUnknown(fields, PUT_FIELDS);
      const { caller, token } = await reservationCaller(ctx, req);
      const { reservationId } = req.params as { reservationId: string };
      const actionText = stringField(fields, 'action');
      if (!actionText) throw missingParam('action');
      const action = parseAction(actionText);
      if (!action) throw invalidParam('action', 'must be Cancel, Scan, Redeem or Reserve');
      const r = await actOnReservation(
        ctx.db,
        caller,
        reservationId,
        action,
        { processor: paymentProcessor, nowMs: ctx.now() },
        paymentOf(fields),
      );
      return send(req, reply, ctx, token, [r]);
    },
  );
}
