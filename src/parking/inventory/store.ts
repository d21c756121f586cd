/**
 * Inventory uploads in the database (the `Db` port): upsert of lot and block uploads in one
 * transaction (uploaded fields merge shallowly over earlier uploads of the same lot), reading them
 * back, and the change counter processes poll to rebuild their in-memory index.
 */
import type { Db, Queryable } from '../../store/db.js';
import { ParkingError } from '../errors.js';
import { encodeLine } from './polyline.js';
import { type BlockUpload, validateBlockUpload } from './block-upload.js';
import { type LotUpload, validateLotUpload } from './lot-upload.js';

/** Result of storing uploads. */
export interface UploadResult {
  lots: number;
  blocks: number;
  /** input keys that are not inventory fields and were ignored, e.g. "lots[0].colour" */
  ignoredFields: string[];
  /** the new inventory version */
  version: number;
}

/**
 * Validates every lot and block first (nothing is written when one is bad), then upserts them as
 * uploads of `region` (a region's inventory reads only its own uploads).
 */
export async function storeUploads(
  db: Db,
  region: string,
  lots: unknown[],
  blocks: unknown[],
  check?: (tx: Queryable) => Promise<void>,
): Promise<UploadResult> {
  const lotUps = lots.map((l, i) => validateLotUpload(l, `lots[${i}]`));
  const blockUps = blocks.map((b, i) => validateBlockUpload(b, `blocks[${i}]`));
  const ignoredFields = [
    ...lotUps.flatMap((u, i) => u.ignored.map((k) => `lots[${i}].${k}`)),
    ...blockUps.flatMap((u, i) => u.ignored.map((k) => `blocks[${i}].${k}`)),
  ];
  const version = await db.transaction(async (tx) => {
    for (const u of lotUps) {
      await tx.query(
        `INSERT INTO parking_lot_upload (region, upload_key, lot_id, alias, osm_ref, data, updated_at) VALUES ($6, $1, $2, $3, $4, $5::jsonb, now())
         ON CONFLICT (region, upload_key) DO UPDATE SET data = parking_lot_upload.data || EXCLUDED.data,
           lot_id = COALESCE(EXCLUDED.lot_id, parking_lot_upload.lot_id), alias = COALESCE(EXCLUDED.alias, parking_lot_upload.alias),
           osm_ref = COALESCE(EXCLUDED.osm_ref, parking_lot_upload.osm_ref), updated_at = now()`,
        [u.key, u.id, u.alias, u.osmRef, JSON.stringify(u.data), region],
      );
    }
    for (const u of blockUps) {
      await tx.query(
        `INSERT INTO parking_block_upload (region, block_id, data, updated_at) VALUES ($3, $1, $2::jsonb, now())
         ON CONFLICT (region, block_id) DO UPDATE SET data = parking_block_upload.data || EXCLUDED.data, updated_at = now()`,
        [u.blockID, JSON.stringify(u.data), region],
      );
    }
    // the stored uploads as a whole must still make an inventory (e.g. a new lot needs a location):
    // a check that throws rolls the write back, so one bad upload never blocks the next ones
    if (check) await check(tx);
    return bumpVersion(tx);
  });
  noteLocalWrite(db);
  return { lots: lotUps.length, blocks: blockUps.length, ignoredFields, version };
}

async function bumpVersion(tx: Queryable): Promise<number> {
  const r = await tx.query<{ version: string | number }>(
    'UPDATE parking_inventory_version SET version = version + 1 RETURNING version',
  );
  return Number(r.rows[0].version);
}

/**
 * Deletes the upload of one lot of `region` (by id, "osm:<ref>" or "alias:<alias>" key); true when
 * one existed.
 */
export async function deleteLotUpload(db: Db, region: string, key: string): Promise<boolean> {
  return db
    .transaction(async (tx) => {
      const r = await tx.query(
        `DELETE FROM parking_lot_upload WHERE region IN ($2, '')
           AND (upload_key = $1 OR ($1 ~ '^id:' AND lot_id::text = substring($1 from 4)))`,
        [key, region],
      );
      if (r.rowCount === 0) return false;
      await bumpVersion(tx);
      return true;
    })
    .then((deleted) => {
      if (deleted) noteLocalWrite(db);
      return deleted;
    });
}

const localWrites = new WeakMap<Db, number>();

function noteLocalWrite(db: Db): void {
  localWrites.set(db, (localWrites.get(db) ?? 0) + 1);
}

/**
 * Uploads and deletions committed through this process on `db` so far: an inventory service on the
 * same database rebuilds as soon as this changes, without waiting for its periodic version check.
 */
export function localUploadWrites(db: Db): number {
  return localWrites.get(db) ?? 0;
}

/** Current inventory version (incremented by every upload). */
export async function inventoryVersion(db: Queryable): Promise<number> {
  const r = await db.query<{ version: string | number }>('SELECT version FROM parking_inventory_version');
  return r.rows.length ? Number(r.rows[0].version) : 0;
}

/**
 * Every stored upload of `region` (and those stored before uploads had a region, which apply to
 * every region and come first, so the region's own merge over them), in insertion-independent key
 * order.
 */
export async function readUploads(
  db: Queryable,
  region: string,
): Promise<{ lots: LotUpload[]; blocks: BlockUpload[] }> {
  const lots = await db.query<{
    upload_key: string;
    lot_id: string | number | null;
    alias: string | null;
    osm_ref: string | null;
    data: unknown;
  }>(
    "SELECT upload_key, lot_id, alias, osm_ref, data FROM parking_lot_upload WHERE region IN ($1, '') ORDER BY upload_key, region",
    [region],
  );
  const blocks = await db.query<{ block_id: string | number; data: unknown }>(
    "SELECT block_id, data FROM parking_block_upload WHERE region IN ($1, '') ORDER BY block_id, region",
    [region],
  );
  const json = (d: unknown): Record<string, unknown> =>
    (typeof d === 'string' ? JSON.parse(d) : d) as Record<string, unknown>;
  return {
    lots: lots.rows.map((r) => ({
      key: r.upload_key,
      id: r.lot_id === null ? null : Number(r.lot_id),
      alias: r.alias,
      osmRef: r.osm_ref,
      data: json(r.data),
      ignored: [],
    })),
    blocks: blocks.rows.map((r) => ({
      key: `block:${r.block_id}`,
      blockID: Number(r.block_id),
      data: json(r.data),
      ignored: [],
    })),
  };
}

/** Parses an upload file: `{ lots, blocks, products }`, a bare array of lots, or a GeoJSON FeatureCollection of lots. */
export function parseUploadDocument(doc: unknown): { lots: unknown[]; blocks: unknown[]; products: unknown[] } {
  if (Array.isArray(doc)) return { lots: doc, blocks: [], products: [] };
  if (!doc || typeof doc !== 'object')
    throw new ParkingError('PARKING_UPLOAD_INVALID', 'upload: a JSON object or array expected');
  const o = doc as Record<string, unknown>;
  if (o.type === 'FeatureCollection') {
    if (!Array.isArray(o.features))
      throw new ParkingError('PARKING_UPLOAD_INVALID', 'features: array expected', 'features');
    const lots: unknown[] = [];
    const blocks: unknown[] = [];
    o.features.forEach((f, i) => {
      const feat = f as { geometry?: { type?: string; coordinates?: unknown }; properties?: Record<string, unknown> };
      const props = { ...(feat?.properties ?? {}) };
      const g = feat?.geometry;
      if (g?.type === 'Point') lots.push({ ...props, point: { type: 'Point', coordinates: g.coordinates } });
      else if (g?.type === 'Polygon' && Array.isArray(g.coordinates)) {
        const ring = (g.coordinates as number[][][])[0] ?? [];
        lots.push({ ...props, polygon: encodeLine(ring.map((c) => [c[1], c[0]] as [number, number])) });
      } else if (g?.type === 'LineString' && props.blockID !== undefined)
        blocks.push({ ...props, geojson: { type: 'LineString', coordinates: g.coordinates } });
      else
        throw new ParkingError(
          'PARKING_UPLOAD_INVALID',
          `features[${i}].geometry: Point or Polygon (lots) or LineString with blockID (blocks) expected`,
          `features[${i}].geometry`,
        );
    });
    return { lots, blocks, products: [] };
  }
  const arr = (k: string): unknown[] => {
    const v = o[k];
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw new ParkingError('PARKING_UPLOAD_INVALID', `${k}: array expected`, k);
    return v;
  };
  return { lots: arr('lots'), blocks: arr('blocks'), products: arr('products') };
}
