/**
 * The reservations part of `streetwise parking load file.json`: the file's `publishers` and
 * `products` (products resolve their lots against the file's `lots`). Inventory (`lots`, `blocks`)
 * is loaded by the inventory module; call both.
 */
import type { Db } from '../../store/db.js';
import { invalidParam } from './errors.js';
import { upsertPublishers } from './products/legacy-chk.js';
import { loadProducts } from './products/product-store.js';
import type { LotRef } from './products/product.js';

/**
 * Loads `{ lots?, products?, publishers? }` (the parsed upload file): returns how many products and
 * publishers were stored. All or nothing for products; publishers in the same transaction.
 * @example await loadParkingFile(db, JSON.parse(readFileSync('demo-parking.json', 'utf8')))
 */
export async function loadParkingFile(db: Db, file: unknown): Promise<{ products: number; publishers: number }> {
  if (typeof file !== 'object' || file === null)
    throw invalidParam('file', 'must be a JSON object with products and lots');
  const f = file as { lots?: unknown; products?: unknown; publishers?: unknown };
  const lots = Array.isArray(f.lots) ? (f.lots as LotRef[]) : [];
  const publishers = Array.isArray(f.publishers)
    ? await db.transaction((tx) => upsertPublishers(tx, f.publishers as unknown[]))
    : 0;
  const products = Array.isArray(f.products) ? (await loadProducts(db, f.products, lots)).length : 0;
  return { products, publishers };
}
