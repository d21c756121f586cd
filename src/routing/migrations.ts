/** Database migrations of the routing service and its traffic model (versions 100–199). */
import type { Migration } from '../store/db.js';

/** 100 incidents, 101 stored routes, 102 compact route edges. */
export const migrations: Migration[] = [
  {
    version: 100,
    name: 'traffic incidents',
    sql: `
CREATE TABLE IF NOT EXISTS incidents (
  id bigserial PRIMARY KEY,
  version integer NOT NULL DEFAULT 1,
  -- 1 construction, 2 event, 3 congestion, 4 crash/hazard
  type smallint NOT NULL CHECK (type BETWEEN 1 AND 4),
  severity smallint NOT NULL CHECK (severity BETWEEN 0 AND 4),
  event_code integer NOT NULL,
  lat double precision NOT NULL,
  lon double precision NOT NULL,
  -- affected directed edge ids of the loaded graph (JSON array of integers)
  edges jsonb NOT NULL,
  start_at timestamptz NOT NULL,
  end_at timestamptz,
  delay_impact_minutes real NOT NULL DEFAULT 0,
  closure boolean NOT NULL DEFAULT false,
  short_description text NOT NULL DEFAULT '',
  full_description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS incidents_end_at ON incidents (end_at);
`,
  },
  {
    version: 101,
    name: 'stored routes',
    sql: `
CREATE TABLE IF NOT EXISTS routes (
  id text PRIMARY KEY,
  trip_id text NOT NULL,
  map_version text NOT NULL,
  -- the exact path and the request it answered (JSON): edges, fractions, waypoints, options
  path jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS routes_expires_at ON routes (expires_at);
`,
  },
  {
    version: 102,
    name: 'compact stored route edges',
    sql: `
-- edge ids of every leg, concatenated: base64 of little-endian uint32 (NULL on rows from before)
ALTER TABLE routes ADD COLUMN IF NOT EXISTS edges text;
-- the rest of the path stays JSON, kept as text (no jsonb conversion on insert)
ALTER TABLE routes ALTER COLUMN path TYPE json USING path::json;
`,
  },
];
