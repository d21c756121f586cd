/**
 * `streetwise parking load <file.json|file.geojson>`: loads operator lots and blocks into the
 * inventory uploads (uploaded fields win over OSM ones) and forwards `products` / `publishers` to the
 * reservations module. Accepts `{ lots, blocks, products, publishers }`, a bare array of lots, or a
 * GeoJSON FeatureCollection (Point/Polygon features = lots, LineString features with blockID = blocks).
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CliDeps } from './deps.js';
import { idFromAlias, osmLotId, parseUploadDocument, storeUploads } from '../parking/index.js';
import { loadParkingFile } from '../parking/reservations/index.js';

/** Lots of the file with the inventory id filled in (what products refer to). */
function withIds(lots: unknown[]): unknown[] {
  return lots.map((l) => {
    const o = l as Record<string, unknown>;
    if (!o || typeof o !== 'object' || o.id !== undefined) return l;
    const t = o.osm_type;
    if ((t === 'node' || t === 'way' || t === 'relation') && typeof o.osm_id === 'number') return { ...o, id: osmLotId(t, o.osm_id) };
    if (typeof o.alias === 'string') return { ...o, id: idFromAlias(o.alias) };
    return l;
  });
}

/** Registers `parking load` on the program. */
export function registerParking(program: Command, deps: CliDeps): void {
  const parking = program.command('parking').description('parking inventory: operator uploads of lots, blocks and products');
  parking
    .command('load <file>')
    .description('load lots, blocks (and products) from a JSON or GeoJSON file into the database')
    .action(async (file: string) => {
      let doc: unknown;
      try {
        doc = JSON.parse(await readFile(file, 'utf8'));
      } catch (e) {
        throw new Error(`cannot read ${file}: ${(e as Error).message}`);
      }
      const { lots, blocks, products } = parseUploadDocument(doc);
      await deps.withDb(async (db) => {
        const res = await storeUploads(db, lots, blocks);
        console.log(`parking load: ${res.lots} lots and ${res.blocks} blocks stored (inventory version ${res.version})`);
        if (res.ignoredFields.length > 0) console.log(`ignored fields: ${res.ignoredFields.slice(0, 20).join(', ')}${res.ignoredFields.length > 20 ? ', …' : ''}`);
        const raw = doc as Record<string, unknown>;
        if (products.length > 0 || Array.isArray(raw.publishers)) {
          const r = await loadParkingFile(db, { ...raw, lots: withIds(lots) });
          console.log(`parking load: ${r.products} products and ${r.publishers} publishers stored`);
        }
      });
    });
}
