/**
 * Products in the database (`pk_product`): upsert from admin uploads, lookups by lot and by id,
 * and the row lock that serialises reservations of one product.
 */
import type { Db, Queryable } from '../../../store/db.js';
import { ReservationsError } from '../errors.js';
import { productFromInput, type LotRef, type Product, type RateTier } from './product.js';

const COLUMNS = `id, lot_id, lot_uuid, lot_alias, lot_name, lot_address, lot_lat, lot_lon, tz, name, promo_text, type,
  currency, currency_iso, rate_table, max_duration_min, start_min, end_min, days_of_week, capacity, service_fee_cents,
  phone_required, license_required, cpf_required, printed_pass_required, processing_engine, active`;

/** Maps a `pk_product` row to a Product. */
function rowToProduct(r: Record<string, unknown>): Product {
  const rateTable = (typeof r.rate_table === 'string' ? JSON.parse(r.rate_table) : r.rate_table) as RateTier[];
  return {
    id: String(r.id),
    lotId: Number(r.lot_id),
    lotUuid: String(r.lot_uuid),
    lotAlias: (r.lot_alias as string | null) ?? null,
    lotName: String(r.lot_name),
    lotAddress: String(r.lot_address),
    lotLat: r.lot_lat === null ? null : Number(r.lot_lat),
    lotLon: r.lot_lon === null ? null : Number(r.lot_lon),
    tz: String(r.tz),
    name: String(r.name),
    promoText: (r.promo_text as string | null) ?? null,
    type: String(r.type),
    currency: String(r.currency),
    currencyIso: String(r.currency_iso),
    rateTable,
    maxDurationMin: Number(r.max_duration_min),
    startMin: Number(r.start_min),
    endMin: Number(r.end_min),
    daysOfWeek: (r.days_of_week as number[]).map(Number),
    capacity: Number(r.capacity),
    serviceFeeCents: Number(r.service_fee_cents),
    phoneRequired: Boolean(r.phone_required),
    licenseRequired: Boolean(r.license_required),
    cpfRequired: Boolean(r.cpf_required),
    printedPassRequired: Boolean(r.printed_pass_required),
    processingEngine: String(r.processing_engine),
    active: Boolean(r.active),
  };
}

/** Inserts or replaces products by id (one statement each, inside the caller's transaction). */
export async function upsertProducts(q: Queryable, products: Product[]): Promise<void> {
  for (const p of products) {
    await q.query(
      `INSERT INTO pk_product (${COLUMNS}, updated_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27, now())
       ON CONFLICT (id) DO UPDATE SET lot_id = EXCLUDED.lot_id, lot_uuid = EXCLUDED.lot_uuid, lot_alias = EXCLUDED.lot_alias,
         lot_name = EXCLUDED.lot_name, lot_address = EXCLUDED.lot_address, lot_lat = EXCLUDED.lot_lat, lot_lon = EXCLUDED.lot_lon,
         tz = EXCLUDED.tz, name = EXCLUDED.name, promo_text = EXCLUDED.promo_text, type = EXCLUDED.type, currency = EXCLUDED.currency,
         currency_iso = EXCLUDED.currency_iso, rate_table = EXCLUDED.rate_table, max_duration_min = EXCLUDED.max_duration_min,
         start_min = EXCLUDED.start_min, end_min = EXCLUDED.end_min, days_of_week = EXCLUDED.days_of_week, capacity = EXCLUDED.capacity,
         service_fee_cents = EXCLUDED.service_fee_cents, phone_required = EXCLUDED.phone_required, license_required = EXCLUDED.license_required,
         cpf_required = EXCLUDED.cpf_required, printed_pass_required = EXCLUDED.printed_pass_required,
         processing_engine = EXCLUDED.processing_engine, active = EXCLUDED.active, updated_at = now()`,
      [
        p.id,
        p.lotId,
        p.lotUuid,
        p.lotAlias,
        p.lotName,
        p.lotAddress,
        p.lotLat,
        p.lotLon,
        p.tz,
        p.name,
        p.promoText,
        p.type,
        p.currency,
        p.currencyIso,
        JSON.stringify(p.rateTable),
        p.maxDurationMin,
        p.startMin,
        p.endMin,
        p.daysOfWeek,
        p.capacity,
        p.serviceFeeCents,
        p.phoneRequired,
        p.licenseRequired,
        p.cpfRequired,
        p.printedPassRequired,
        p.processingEngine,
        p.active,
      ],
    );
  }
}

/**
 * Validates and stores uploaded products in one transaction (all or nothing). `lots` are the lots
 * of the same upload (contract Lot shape) used to resolve `f_id` / `lot_alias` / `pk_lot` and to
 * copy the lot's name, address, position and time zone. Returns the stored products.
 * This is what `streetwise parking load file.json` calls with the file's `products` and `lots`.
 * @example await loadProducts(db, file.products, file.lots)
 */
export async function loadProducts(db: Db, products: unknown[], lots: LotRef[] = []): Promise<Product[]> {
  if (!Array.isArray(products))
    throw new ReservationsError('PARKING_PARAM_INVALID', 'products must be an array', { parameter: 'products' });
  const parsed = products.map((raw, i) => productFromInput(raw, lots, i));
  await db.transaction((tx) => upsertProducts(tx, parsed));
  return parsed;
}

/** Active products of a lot, by integer lot id or lot UUID (`pk_lot`), in name order. */
export async function findProductsOfLot(q: Queryable, lot: { lotId?: number; lotUuid?: string }): Promise<Product[]> {
  const where = lot.lotId !== undefined ? 'lot_id = $1' : 'lot_uuid::text = $1';
  const value = lot.lotId !== undefined ? lot.lotId : lot.lotUuid;
  const res = await q.query(`SELECT ${COLUMNS} FROM pk_product WHERE ${where} AND active ORDER BY name, id`, [value]);
  return res.rows.map(rowToProduct);
}

/** All products (admin listing), optionally of one lot id. */
export async function listProducts(q: Queryable, lotId?: number): Promise<Product[]> {
  const res =
    lotId === undefined
      ? await q.query(`SELECT ${COLUMNS} FROM pk_product ORDER BY lot_id, name, id`)
      : await q.query(`SELECT ${COLUMNS} FROM pk_product WHERE lot_id = $1 ORDER BY name, id`, [lotId]);
  return res.rows.map(rowToProduct);
}

/**
 * The product `id`; `forUpdate` locks its row until the transaction ends (the capacity lock:
 * concurrent reservations of one product queue here). Throws PARKING_PRODUCT_NOT_FOUND.
 */
export async function getProduct(q: Queryable, id: string, forUpdate = false): Promise<Product> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw new ReservationsError('PARKING_PARAM_INVALID', 'parameter pk_reservation_product: must be a UUID', {
      parameter: 'pk_reservation_product',
    });
  }
  const res = await q.query(`SELECT ${COLUMNS} FROM pk_product WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  if (res.rows.length === 0)
    throw new ReservationsError('PARKING_PRODUCT_NOT_FOUND', `no product ${id}`, {
      parameter: 'pk_reservation_product',
    });
  return rowToProduct(res.rows[0]);
}

/** Deactivates (soft-deletes) a product; existing reservations keep referring to it. */
export async function deactivateProduct(q: Queryable, id: string): Promise<boolean> {
  const res = await q.query('UPDATE pk_product SET active = false, updated_at = now() WHERE id = $1', [id]);
  return res.rowCount > 0;
}
