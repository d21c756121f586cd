/**
 * `GET /product/`: the products of a lot at three levels of precision (contract rules):
 * no entry → generic rates and generic day list; entry only → estimated rates and that day's
 * availability; entry + duration → exact rate per duration and the availability of that stay.
 */
import type { Queryable } from '../../../store/db.js';
import { localDateKey, localMidnightMs } from './clock.js';
import { findProductsOfLot } from './product-store.js';
import { fitStay, peakConcurrency, priceForDurationCents, windowOnDay } from './pricing.js';
import { productClock, type Product } from './product.js';

/** Statuses that hold a space (reserved, redeemed, scanned); quotes, cancellations and expiries do not. */
export const HOLDING_STATUSES = [1, 2, 3] as const;

/** Days listed in the generic (no entry) day list. */
export const GENERIC_DAYS = 7;

/** One product as `GET /product/` returns it (contract Product shape; money in currency units). */
export interface ProductView {
  pk_reservation_product: string;
  name: string;
  promo_text: string | null;
  /** one price per duration in `durations` (currency units); null when that stay is not offered */
  rates: Array<number | null>;
  /** minutes each entry of `rates` is for (added field: clients ignore unknown fields) */
  durations: number[];
  max_duration: number;
  start_time: string;
  end_time: string;
  /** local date → percent of the product's capacity still free (100 generic, 0 sold out / closed) */
  days_available: Record<string, number>;
  service_fee: number;
  type: string;
  phone_required: boolean;
  license_required: boolean;
  cpf_required: boolean;
  printed_pass_required: boolean;
  f_id: number;
  pk_lot: string;
  currency: string;
  processing_engine: string;
}

/** Which products and at what precision. */
export interface ProductQuery {
  lotId?: number;
  lotUuid?: string;
  /** the entry as unix ms, given the lot's time zone (entry_dt is lot-local unless it ends in Z) */
  entryAt?: (tz: string) => number;
  /** requested stay lengths in minutes, when given */
  durationsMin?: number[];
  /** the clock, unix ms (start of the generic day list) */
  nowMs: number;
}

/** Start and end (unix ms) of the stays holding a space of `productId` that overlap [fromMs, toMs). */
export async function heldIntervals(
  q: Queryable,
  productId: string,
  fromMs: number,
  toMs: number,
): Promise<Array<[number, number]>> {
  const res = await q.query<{ s: string | number; e: string | number }>(
    `SELECT (extract(epoch FROM start_at) * 1000)::bigint AS s, (extract(epoch FROM end_at) * 1000)::bigint AS e
       FROM pk_reservation
      WHERE product_id = $1 AND status = ANY($2::smallint[]) AND start_at < $4 AND end_at > $3`,
    [productId, HOLDING_STATUSES, new Date(fromMs), new Date(toMs)],
  );
  return res.rows.map((r) => [Number(r.s), Number(r.e)]);
}

/** Percent (0–100, floor) of the capacity free during the whole of [fromMs, toMs). */
async function freePct(q: Queryable, product: Product, fromMs: number, toMs: number): Promise<number> {
  if (product.capacity === 0) return 0;
  const peak = peakConcurrency(await heldIntervals(q, product.id, fromMs, toMs), fromMs, toMs);
  return Math.max(0, Math.floor((100 * (product.capacity - peak)) / product.capacity));
}

const units = (cents: number): number => cents / 100;

/** Renders one product at the precision the query allows. */
async function viewOf(q: Queryable, p: Product, query: ProductQuery): Promise<ProductView> {
  const entryMs = query.entryAt?.(p.tz);
  const days: Record<string, number> = {};
  let durations: number[];
  let rates: Array<number | null>;
  if (entryMs === undefined) {
    // generic: the rate table as is, and the next GENERIC_DAYS local dates the product runs
    durations = query.durationsMin ?? p.rateTable.map((t) => t.durationMin);
    rates = durations.map((d) => (d <= p.maxDurationMin ? units(priceForDurationCents(p.rateTable, d)) : null));
    for (let i = 0; i < GENERIC_DAYS; i++) {
      const day = localMidnightMs(query.nowMs, p.tz, i);
      if (windowOnDay(p, day)) days[localDateKey(day, p.tz)] = 100;
    }
  } else if (query.durationsMin === undefined) {
    // estimate: rate table prices, availability over the rest of that day's window
    durations = p.rateTable.map((t) => t.durationMin).filter((d) => d <= p.maxDurationMin);
    rates = durations.map((d) => units(priceForDurationCents(p.rateTable, d)));
    const window = windowOnDay(p, entryMs);
    const key = localDateKey(entryMs, p.tz);
    days[key] =
      window && entryMs < window.endMs ? await freePct(q, p, Math.max(window.startMs, entryMs), window.endMs) : 0;
  } else {
    // exact: each requested stay fitted to hours, days and max duration
    durations = query.durationsMin;
    const fits = durations.map((d) => fitStay(p, entryMs, d));
    rates = fits.map((f) => (f.ok ? units(f.priceCents) : null));
    const longest = Math.max(...durations.filter((_, i) => fits[i].ok), 0);
    const key = localDateKey(entryMs, p.tz);
    days[key] = longest > 0 ? await freePct(q, p, entryMs, entryMs + longest * 60_000) : 0;
  }
  return {
    pk_reservation_product: p.id,
    name: p.name,
    promo_text: p.promoText,
    rates,
    durations,
    max_duration: p.maxDurationMin,
    ...productClock(p),
    days_available: days,
    service_fee: units(p.serviceFeeCents),
    type: p.type,
    phone_required: p.phoneRequired,
    license_required: p.licenseRequired,
    cpf_required: p.cpfRequired,
    printed_pass_required: p.printedPassRequired,
    f_id: p.lotId,
    pk_lot: p.lotUuid,
    currency: p.currency,
    processing_engine: p.processingEngine,
  };
}

/**
 * Answers `GET /product/` (domain part): `{ ProductCount, Products }` for the lot.
 * @example await queryProducts(db, { lotId: 7, entryAt: () => Date.UTC(2026, 10, 23, 14), durationsMin: [60, 120], nowMs })
 */
export async function queryProducts(
  q: Queryable,
  query: ProductQuery,
): Promise<{ ProductCount: number; Products: ProductView[] }> {
  const products = await findProductsOfLot(q, { lotId: query.lotId, lotUuid: query.lotUuid });
  return viewProducts(q, products, query);
}

/** Renders given products at the precision `query` allows (its lot fields are not used). */
export async function viewProducts(
  q: Queryable,
  products: Product[],
  query: ProductQuery,
): Promise<{ ProductCount: number; Products: ProductView[] }> {
  const views: ProductView[] = [];
  for (const p of products) views.push(await viewOf(q, p, query));
  return { ProductCount: views.length, Products: views };
}
