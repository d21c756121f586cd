/**
 * Database migrations of the parking inventory (versions 200–249): operator uploads of lots and
 * blocks (stored verbatim as JSONB, merged over the imported region when the inventory is built),
 * a change counter so every process notices uploads, and occupancy observations.
 */
import type { Migration } from '../store/db.js';

/** Parking inventory migrations, version order. */
export const migrations: Migration[] = [
  {
    version: 200,
    name: 'parking inventory uploads and occupancy observations',
    sql: `
      CREATE TABLE parking_lot_upload (
        upload_key  text PRIMARY KEY,
        lot_id      bigint,
        alias       text,
        osm_ref     text,
        data        jsonb NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE parking_block_upload (
        block_id    bigint PRIMARY KEY,
        data        jsonb NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE parking_inventory_version (
        singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        version     bigint NOT NULL
      );
      INSERT INTO parking_inventory_version (singleton, version) VALUES (true, 0);
      CREATE TABLE parking_occupancy_observation (
        id           bigserial PRIMARY KEY,
        target_kind  text NOT NULL CHECK (target_kind IN ('lot', 'segment')),
        target_id    text NOT NULL,
        observed_at  timestamptz NOT NULL,
        occupied     integer NOT NULL CHECK (occupied >= 0),
        capacity     integer CHECK (capacity IS NULL OR capacity >= 0),
        source       text NOT NULL CHECK (source IN ('operator', 'feed', 'park_events', 'reservations'))
      );
      CREATE INDEX parking_occupancy_observation_target ON parking_occupancy_observation (target_kind, target_id, observed_at DESC);
    `,
  },
  {
    version: 210,
    name: 'parking uploads scoped to their region',
    // '' marks uploads stored before uploads had a region: they keep applying to every region
    sql: `
      ALTER TABLE parking_lot_upload ADD COLUMN region text NOT NULL DEFAULT '';
      ALTER TABLE parking_lot_upload DROP CONSTRAINT parking_lot_upload_pkey;
      ALTER TABLE parking_lot_upload ADD PRIMARY KEY (region, upload_key);
      ALTER TABLE parking_block_upload ADD COLUMN region text NOT NULL DEFAULT '';
      ALTER TABLE parking_block_upload DROP CONSTRAINT parking_block_upload_pkey;
      ALTER TABLE parking_block_upload ADD PRIMARY KEY (region, block_id);
    `,
  },
];
