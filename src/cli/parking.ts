/**
 * `streetwise parking load <file.json|file.geojson>`: loads operator lots and blocks into the
 * inventory uploads (uploaded fields win over OSM ones) and forwards `products` / `publishers` to the
 * reservations module. Accepts `{ lots, blocks, products, publishers }`, a bare array of lots, or a
 * GeoJSON FeatureCollection (Point/Polygon features = lots, LineString features with blockID = blocks).
 * While a server owns the embedded database the document goes through its admin API.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { CliDeps } from './deps.js';
import { loadParkingDocument, type ParkingLoadResult } from '../app/parking-upload.js';
import { announceChange } from '../store/changes.js';
import { regionExists } from '../network/index.js';
import { chosenRegionName, importedRegions } from './region-choice.js';

function importedRegionsText(deps: CliDeps): string {
  const names = importedRegions(deps.config().store.dataDir);
  return names.length === 0 ? 'no region is imported' : `imported: ${names.join(', ')}`;
}

/** Registers `parking load` on the program. */
export function registerParking(program: Command, deps: CliDeps): void {
  const parking = program
    .command('parking')
    .description('parking inventory: operator uploads of lots, blocks and products');
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
      // the region must be imported (a typo must not store uploads no server ever reads); a server
      // owning the database stores them for the region it serves, and refuses another name
      const region = await chosenRegionName(deps);
      if (!regionExists(join(deps.config().store.dataDir, 'regions', region)))
        throw new Error(
          `region "${region}" is not imported (${importedRegionsText(deps)}): import it with \`streetwise import <file.osm.pbf> --name ${region}\`, or name an imported one with --region`,
        );
      const server = await deps.server();
      const res = server
        ? await server.request<ParkingLoadResult>('POST', '/v1/admin/parking/load', doc)
        : await deps.withDb(async (db) => {
            const r = await loadParkingDocument(db, region, doc);
            await announceChange(db, 'parking', '');
            return r;
          });
      console.log(
        `parking load: ${res.lots} lots and ${res.blocks} blocks stored for region ${region} (inventory version ${res.version})${server ? ` through the server at ${server.url}` : ''}`,
      );
      if (res.ignoredFields.length > 0)
        console.log(
          `ignored fields: ${res.ignoredFields.slice(0, 20).join(', ')}${res.ignoredFields.length > 20 ? ', …' : ''}`,
        );
      if (res.products > 0 || res.publishers > 0)
        console.log(`parking load: ${res.products} products and ${res.publishers} publishers stored`);
    });
}
