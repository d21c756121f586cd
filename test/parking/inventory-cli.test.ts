import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerParking } from '../../src/cli/parking.js';
import { allMigrations } from '../../src/app/migrations.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { buildInventory, readUploads } from '../../src/parking/index.js';
import { parkingRegion } from './inventory-fixture.js';
import type { CliDeps } from '../../src/cli/deps.js';
import { loadConfig } from '../../src/config/load.js';
import { writeRegion } from '../../src/network/index.js';

describe('streetwise parking load', () => {
  let db: Db;
  let dir: string;
  beforeAll(async () => {
    db = await openPglite();
    await runMigrations(db, allMigrations());
    dir = mkdtempSync(join(tmpdir(), 'sw-parking-load-'));
    writeRegion(join(dir, 'regions', 'fixture'), parkingRegion());
  });
  afterAll(async () => {
    await db.close();
  });

  const run = async (file: string, region = 'fixture') => {
    const program = new Command().exitOverride();
    const config = loadConfig({ 'store.dataDir': dir, 'region.name': region }, {});
    const deps = {
      config: () => config,
      withDb: async <T>(fn: (d: Db) => Promise<T>) => fn(db),
      server: async () => undefined,
      regionGiven: () => true,
    } as unknown as CliDeps;
    registerParking(program, deps);
    await program.parseAsync(['node', 'streetwise', 'parking', 'load', file]);
  };

  it('loads lots (merged over OSM by osm_id), blocks, and forwards products with the lot id filled in', async () => {
    const file = join(dir, 'upload.json');
    writeFileSync(
      file,
      JSON.stringify({
        lots: [
          {
            alias: 'demo|garage-a',
            osm_type: 'node',
            osm_id: 11,
            name: 'Harbor Garage',
            spacesTotal: 300,
            tz: 'America/New_York',
            point: { type: 'Point', coordinates: [-76.61, 39.291] },
          },
        ],
        blocks: [{ blockID: 1, operator: 'City DOT' }],
        products: [
          {
            pk_reservation_product: '6f1c2b1e-1111-4a4a-9b9b-000000000001',
            lot_alias: 'demo|garage-a',
            name: 'Early bird',
            rates: [{ duration: 120, rate: 9 }],
            capacity: 10,
          },
        ],
      }),
    );
    await run(file);
    const inv = buildInventory(parkingRegion(), await readUploads(db, 'fixture'), 'USD');
    expect(inv.lotById.get(11)).toMatchObject({
      alias: 'demo|garage-a',
      spacesTotal: 300,
      fields: expect.objectContaining({ name: 'Harbor Garage', operator: 'Metro Parking' }),
    });
    expect(inv.blockById.get(1)?.fields.operator).toBe('City DOT');
    const products = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pk_product WHERE lot_id = 11');
    expect(products.rows[0].n).toBe(1);
  });

  it('loads a GeoJSON FeatureCollection of lots', async () => {
    const file = join(dir, 'lots.geojson');
    writeFileSync(
      file,
      JSON.stringify({
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [-76.6095, 39.2902] },
            properties: { alias: 'acme|1', name: 'Acme One', spacesTotal: 8 },
          },
          {
            type: 'Feature',
            geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [-76.607, 39.291],
                  [-76.606, 39.291],
                  [-76.606, 39.292],
                  [-76.607, 39.292],
                  [-76.607, 39.291],
                ],
              ],
            },
            properties: { alias: 'acme|2', name: 'Acme Two' },
          },
        ],
      }),
    );
    await run(file);
    const inv = buildInventory(parkingRegion(), await readUploads(db, 'fixture'), 'USD');
    const two = inv.lotByAlias.get('acme|2')!;
    expect(two.fields.name).toBe('Acme Two');
    expect(two.lat).toBeCloseTo(39.2915, 6);
    expect(two.lon).toBeCloseTo(-76.6065, 6);
    expect(inv.lotByAlias.get('acme|1')?.spacesTotal).toBe(8);
  });

  it('refuses an invalid file and stores nothing from it', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        lots: [
          { alias: 'acme|3', point: { type: 'Point', coordinates: [-76.6, 39.29] } },
          { alias: 'acme|4', format: 'Tent' },
        ],
      }),
    );
    await expect(run(file)).rejects.toThrow(/lots\[1\]\.format/);
    const inv = buildInventory(parkingRegion(), await readUploads(db, 'fixture'), 'USD');
    expect(inv.lotByAlias.get('acme|3')).toBeUndefined();
  });

  it('refuses a region that was never imported, storing nothing', async () => {
    const file = join(dir, 'andorra.json');
    writeFileSync(file, JSON.stringify([{ alias: 'and|1', point: { type: 'Point', coordinates: [1.52, 42.51] } }]));
    await expect(run(file, 'andorra')).rejects.toThrow(
      /region "andorra" is not imported \(imported: fixture\): import it with `streetwise import <file.osm.pbf> --name andorra`/,
    );
    const n = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM parking_lot_upload WHERE alias = 'and|1'");
    expect(n.rows[0].n).toBe(0);
  });

  it("stores uploads for their region only: another region's inventory never shows them", async () => {
    const file = join(dir, 'scoped.json');
    writeFileSync(
      file,
      JSON.stringify([{ alias: 'scoped|1', name: 'Scoped', point: { type: 'Point', coordinates: [-76.6, 39.29] } }]),
    );
    await run(file);
    expect(
      buildInventory(parkingRegion(), await readUploads(db, 'fixture'), 'USD').lotByAlias.get('scoped|1'),
    ).toBeDefined();
    const other = buildInventory(parkingRegion(), await readUploads(db, 'monaco'), 'USD');
    expect(other.lotByAlias.get('scoped|1')).toBeUndefined();
    expect(other.lotByAlias.get('acme|1')).toBeUndefined();
  });
});
