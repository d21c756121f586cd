/**
 * Loads an operator upload document (`{ lots, blocks, products, publishers }`, a bare array of
 * lots, or GeoJSON) into the database: inventory uploads first, then products and publishers.
 * Shared by `streetwise parking load` and the demo's first start.
 */
import type { Db } from '../store/db.js';
import { idFromAlias, osmLotId, parseUploadDocument, storeUploads } from '../parking/index.js';
import { loadParkingFile } from '../parking/reservations/index.js';

/** Counts of what was stored, and upload fields that were not recognised. */
export interface ParkingLoadResult {
  lots: number;
  blocks: number;
  products: number;
  publishers: number;
  ignoredFields: string[];
  version: number;
}

/** Lots of the file with the inventory id filled in (what products refer to). */
function withIds(lots: unknown[]): unknown[] {
  return lots.map((l) => {
    const o = l as Record<string, unknown>;
    if (!o || typeof o !== 'object' || o.id !== undefined) return l;
    const t = o.osm_type;
    if ((t === 'node' || t === 'way' || t === 'relation') && typeof o.osm_id === 'number')
      return { ...o, id: osmLotId(t, o.osm_id) };
    if (typeof o.alias === 'string') return { ...o, id: idFromAlias(o.alias) };
    return l;
  });
}

/**
 * Stores the document's inventory as uploads of `region`, and its products. Throws a ParkingError
 * on invalid content.
 */
export async function loadParkingDocument(db: Db, region: string, doc: unknown): Promise<ParkingLoadResult> {
  const { lots, blocks, products } = parseUploadDocument(doc);
  const res = await storeUploads(db, region, lots, blocks);
  const raw = (Array.isArray(doc) ? {} : doc) as Record<string, unknown>;
  let p = { products: 0, publishers: 0 };
  if (products.length > 0 || Array.isArray(raw.publishers))
    p = await loadParkingFile(db, { ...raw, lots: withIds(lots) });
  return {
    lots: res.lots,
    blocks: res.blocks,
    products: p.products,
    publishers: p.publishers,
    ignoredFields: res.ignoredFields,
    version: res.version,
  };
}
