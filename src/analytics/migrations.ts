/** Database migrations of the analytics module (versions 400–499). */
import type { Migration } from '../store/db.js';

/**
 * 400: traversal facts (one row per vehicle crossing of an intersection's influence zone) with
 * local-time columns computed at insert, so every temporal dimension is a cheap expression.
 * 401: namespaces and their intersection subscriptions (one list per id).
 */
export const migrations: Migration[] = [
  {
    version: 400,
    name: 'analytics_fact',
    sql: `
CREATE TABLE analytics_fact (
  trace_id text NOT NULL,
  part integer NOT NULL,
  intersection_key text NOT NULL,
  occurrence smallint NOT NULL,
  intersection_id bigint NOT NULL,
  movement_id integer NOT NULL,
  in_edge integer NOT NULL,
  out_edge integer NOT NULL,
  entry_s double precision NOT NULL,
  exit_s double precision NOT NULL,
  local_day date NOT NULL,
  local_minute smallint NOT NULL,
  local_dow smallint NOT NULL,
  zone_length_m real NOT NULL,
  travel_time_s real NOT NULL,
  free_flow_s real NOT NULL,
  control_delay_s real NOT NULL,
  stopped boolean NOT NULL,
  stop_duration_s real NOT NULL,
  approach_speed_kph real,
  map_version text NOT NULL DEFAULT '',
  PRIMARY KEY (trace_id, part, intersection_key, occurrence)
);
CREATE INDEX analytics_fact_day_idx ON analytics_fact (local_day);
CREATE INDEX analytics_fact_intersection_day_idx ON analytics_fact (intersection_key, local_day);
CREATE INDEX analytics_fact_movement_day_idx ON analytics_fact (movement_id, local_day);
`,
  },
  {
    version: 401,
    name: 'analytics_namespace',
    sql: `
CREATE TABLE analytics_namespace (
  name text PRIMARY KEY,
  map_version text NOT NULL,
  country text NOT NULL DEFAULT '',
  state text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE analytics_namespace_member (
  namespace text NOT NULL REFERENCES analytics_namespace(name) ON DELETE CASCADE,
  intersection_key text NOT NULL,
  list text NOT NULL CHECK (list IN ('provisioned', 'pending', 'reviewRequired')),
  position integer NOT NULL,
  PRIMARY KEY (namespace, intersection_key)
);
CREATE INDEX analytics_namespace_member_list_idx ON analytics_namespace_member (namespace, list, position);
`,
  },
];
