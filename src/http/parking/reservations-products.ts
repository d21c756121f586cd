/**
 * `GET /product/` and the admin API of products and publishers:
 * `PUT /v1/admin/parking/products`, `GET /v1/admin/parking/products`,
 * `DELETE /v1/admin/parking/products/{productId}`, `PUT /v1/admin/parking/publishers`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import {
  deactivateProduct,
  invalidParam,
  listProducts,
  loadProducts,
  MAX_STAY_MIN,
  missingParam,
  parseEntryIso,
  parseEntryLocal,
  queryProducts,
  ReservationsError,
  upsertPublishers,
  verifyChk,
  viewProducts,
  type LotRef,
  type ProductView,
} from '../../parking/reservations/index.js';
import { isValidCallback, sendJsonp } from '../xml.js';
import { adminCaller, appCaller, fieldsOf, rejectUnknown, sendJsonOrXml, stringField } from './reservations-support.js';
import { documentedStrings } from '../openapi.js';

/** Query parameters of `GET /product/`. */
const PRODUCT_PARAMS = [
  'f_id',
  'lot',
  'entry_dt',
  'entry',
  'duration',
  'callback',
  'pub_id',
  'chk',
  'pt',
  'accesstoken',
  '_',
] as const;

/** Most durations in one pipe list. */
export const MAX_DURATIONS = 12;

/** Parses `duration`: integer minutes or a pipe list of them. */
export function parseDurations(text: string, parameter = 'duration'): number[] {
  const parts = text.split('|');
  if (parts.length > MAX_DURATIONS) throw invalidParam(parameter, `at most ${MAX_DURATIONS} values`);
  return parts.map((p) => {
    if (!/^\d{1,6}$/.test(p.trim())) throw invalidParam(parameter, `"${p}" is not a whole number of minutes`);
    const n = Number(p);
    if (n <= 0 || n > MAX_STAY_MIN) throw invalidParam(parameter, `must be between 1 and ${MAX_STAY_MIN} minutes`);
    return n;
  });
}

/** Query string values as flat strings (for the chk hash). */
function flatQuery(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(v)) throw invalidParam(k, 'given more than once');
    out[k] = String(v);
  }
  return out;
}

/** XML shape of a product response: repeated elements and attribute-keyed dates. */
function productXml(body: Record<string, unknown>): Record<string, unknown> {
  const products = body.Products as ProductView[];
  return {
    ProductCount: body.ProductCount,
    Products: {
      Product: products.map((p) => ({
        ...p,
        rates: { rate: p.rates.map((r) => (r === null ? { '@_available': 'false' } : r)) },
        durations: { duration: p.durations },
        days_available: {
          day: Object.entries(p.days_available).map(([date, pct]) => ({ '@_date': date, '#text': pct })),
        },
      })),
    },
  };
}

/** The lots known to the server for product uploads: the region's OSM lots. */
function regionLots(ctx: AppContext): LotRef[] {
  return ctx.region.lots.map((l) => ({
    id: l.id,
    name: l.name,
    point: { coordinates: [l.lon, l.lat] as [number, number] },
  }));
}

/** The lot, entry time and durations of a `GET /product/` query (`lower`: lower-cased names). */
function productRequestOf(lower: Record<string, string>) {
  const fId = lower.f_id;
  const lot = lower.lot;
  if (fId === undefined && lot === undefined) throw missingParam('f_id');
  if (fId !== undefined && lot !== undefined) throw invalidParam('lot', 'give f_id or lot, not both');
  if (fId !== undefined && !/^-?\d{1,18}$/.test(fId)) throw invalidParam('f_id', 'must be an integer lot id');
  if (lot !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(lot))
    throw invalidParam('lot', 'must be a lot UUID (pk_lot)');
  if (lower.entry_dt !== undefined && lower.entry !== undefined)
    throw invalidParam('entry', 'give entry_dt or entry, not both');
  let entryAt: ((tz: string) => number) | undefined;
  if (lower.entry_dt !== undefined) {
    const text = lower.entry_dt;
    parseEntryLocal(text, 'UTC', 'entry_dt'); // validate once even when the lot has no products
    entryAt = (tz) => parseEntryLocal(text, tz, 'entry_dt');
  } else if (lower.entry !== undefined) {
    const ms = parseEntryIso(lower.entry, 'entry');
    entryAt = () => ms;
  }
  const durationsMin = lower.duration !== undefined ? parseDurations(lower.duration) : undefined;
  return { lotId: fId !== undefined ? Number(fId) : undefined, lotUuid: lot, entryAt, durationsMin };
}

/** `GET /product/`: the products of a lot, for an app token or a hashed publisher request. */
function registerProductQueryRoute(app: FastifyInstance, ctx: AppContext): void {
  const productQuery = documentedStrings('GET /product/', PRODUCT_PARAMS, {
    f_id: 'lot id (this or lot)',
    lot: 'lot UUID, pk_lot (this or f_id)',
    entry_dt: 'yyyy-mm-ddTHH:MM; trailing Z = UTC, else lot-local time',
    entry: 'ISO 8601 date-time, UTC unless an offset is given',
    duration: 'minutes, or a pipe list of minutes (at most 12)',
    callback: 'JSONP function name',
    pub_id: 'publisher id of a hashed request',
    chk: 'hex MD5 of the sorted parameter values and the private key (docs/reservations.md)',
    pt: 'request time, unix seconds (hashed request; within 900 s)',
    accesstoken: 'app token (or Authorization: Bearer)',
    _: 'cache buster (ignored)',
  });
  app.get(
    '/product/',
    {
      schema: {
        tags: ['parking'],
        summary: 'Reservation products of a lot (JSONP with callback; pub_id + chk hashed requests)',
        querystring: productQuery,
        security: [{ bearer: [] }, {}],
      },
    },
    async (req, reply) => {
      const q = flatQuery(req);
      const lower: Record<string, string> = {};
      for (const [k, v] of Object.entries(q)) lower[k.toLowerCase()] = v;
      rejectUnknown(q, PRODUCT_PARAMS);
      const callback = lower.callback;
      if (callback !== undefined && !isValidCallback(callback))
        throw invalidParam('callback', 'must be a JavaScript identifier (letters, digits, _ $ .)');
      // credentials: an app token, or the legacy hashed request
      if (lower.pub_id !== undefined) await verifyChk(ctx.db, lower, ctx.now());
      else if (lower.chk !== undefined || lower.pt !== undefined) throw missingParam('pub_id');
      else await appCaller(ctx, req, true);
      const body = await queryProducts(ctx.db, { ...productRequestOf(lower), nowMs: ctx.now() });
      if (callback !== undefined) return sendJsonp(reply, callback, body);
      return sendJsonOrXml(req, reply, 'ProductResponse', body as unknown as Record<string, unknown>, productXml);
    },
  );
}

const ADMIN = [{ bearer: [] as string[] }];

/** `PUT`, `GET /v1/admin/parking/products`, `DELETE /v1/admin/parking/products/:productId`. */
function registerProductAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.put(
    '/v1/admin/parking/products',
    {
      schema: {
        tags: ['parking admin'],
        summary: 'Add or replace reservation products (admin app token)',
        body: { description: 'an array of products, or { products: [...], lots?: [...] } (docs/reservations.md)' },
        security: ADMIN,
      },
    },
    async (req, reply) => {
      await adminCaller(ctx, req);
      const body = req.body as unknown;
      const products = Array.isArray(body) ? body : (body as { products?: unknown })?.products;
      if (!Array.isArray(products)) throw missingParam('products');
      const uploaded = Array.isArray(body) ? [] : ((body as { lots?: unknown }).lots ?? []);
      if (!Array.isArray(uploaded)) throw invalidParam('lots', 'must be an array');
      const known = new Set((uploaded as LotRef[]).map((l) => l.id));
      const lots = [...(uploaded as LotRef[]), ...regionLots(ctx).filter((l) => !known.has(l.id))];
      const stored = await loadProducts(ctx.db, products, lots);
      return reply.send(await viewProducts(ctx.db, stored, { nowMs: ctx.now() }));
    },
  );

  app.get(
    '/v1/admin/parking/products',
    {
      schema: {
        tags: ['parking admin'],
        summary: 'List every product, optionally of one lot (f_id)',
        querystring: documentedStrings('GET /v1/admin/parking/products', ['f_id'], { f_id: 'lot id' }),
        security: ADMIN,
      },
    },
    async (req, reply) => {
      await adminCaller(ctx, req);
      const fields = fieldsOf(req);
      rejectUnknown(fields, ['f_id']);
      const fId = stringField(fields, 'f_id');
      if (fId !== undefined && !/^-?\d{1,18}$/.test(fId)) throw invalidParam('f_id', 'must be an integer lot id');
      const products = await listProducts(ctx.db, fId === undefined ? undefined : Number(fId));
      return reply.send({ ProductCount: products.length, Products: products });
    },
  );

  app.delete(
    '/v1/admin/parking/products/:productId',
    {
      schema: {
        tags: ['parking admin'],
        summary: 'Withdraw a product (existing reservations stay valid)',
        security: ADMIN,
      },
    },
    async (req, reply) => {
      await adminCaller(ctx, req);
      const { productId } = req.params as { productId: string };
      if (!/^[0-9a-f-]{36}$/i.test(productId)) throw invalidParam('productId', 'must be a UUID');
      if (!(await deactivateProduct(ctx.db, productId)))
        throw new ReservationsError('PARKING_PRODUCT_NOT_FOUND', `no product ${productId}`, { parameter: 'productId' });
      return reply.send({ pk_reservation_product: productId, active: false });
    },
  );
}

/** `PUT /v1/admin/parking/publishers`. */
function registerPublisherRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.put(
    '/v1/admin/parking/publishers',
    {
      schema: {
        tags: ['parking admin'],
        summary: 'Add or replace publishers of hashed product requests (pub_id, private_key)',
        body: { description: 'an array of { pub_id, private_key }, or { publishers: [...] }' },
        security: ADMIN,
      },
    },
    async (req, reply) => {
      await adminCaller(ctx, req);
      const body = req.body as { publishers?: unknown } | unknown[];
      const publishers = Array.isArray(body) ? body : body?.publishers;
      if (!Array.isArray(publishers)) throw missingParam('publishers');
      const count = await ctx.db.transaction((tx) => upsertPublishers(tx, publishers));
      return reply.send({ PublisherCount: count });
    },
  );
}

/** Registers the product routes on the reservations plugin. */
export function registerProductRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerProductQueryRoute(app, ctx);
  registerProductAdminRoutes(app, ctx);
  registerPublisherRoutes(app, ctx);
}
