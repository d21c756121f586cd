/** Database migrations of the analytics module (versions 400–499). */
import type { Migration } from '../store/db.js';
import { REBUILD_ROLLUPS_SQL_402, ROLLUP_MEASURE_COLUMNS } from './facts/rollup.js';

/**
 * 400: traversal facts (one row per vehicle crossing of an intersection's influence zone) with
 * local-time columns computed at insert, so every temporal dimension is a cheap expression.
 * 401: namespaces and their intersection subscriptions (one list per id).
 * 402: rollups kept in step with the facts by `storeFacts` (see `facts/rollup.ts`):
 *   analytics_rollup_15m (map version, intersection, movement, approach, local day, 15-minute bin) and
 *   analytics_rollup_hour (map version, intersection, local day, hour) and analytics_rollup_month
 *   (map version, intersection, month, day of week, hour), all holding counts, sums and maxima from
 *   which every metric is exact; filled from the facts already stored. The facts' (intersection, day)
 *   index gains the local minute, so one 15-minute slice is recomputed from its own facts only.
 * 420: signal controllers' hi-res events (`signal_event`, one row per event, idempotent on upload)
 *   and the channel/phase map of each intersection (`signal_channel_map`), per region.
 * 421: facts record whether the vehicle arrived on green by the controller's timing
 *   (`arrived_on_green`, null without timing); the rollups count the vehicles on green
 *   (`on_green_count`: arrived on green, or without timing did not stop) for `POG`.
 * 422: observed free-flow speeds per edge (`analytics_free_flow`, `facts/free-flow.ts`).
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
  {
    version: 402,
    name: 'analytics_rollups',
    sql: `
DROP INDEX analytics_fact_intersection_day_idx;
CREATE INDEX analytics_fact_intersection_day_minute_idx ON analytics_fact (intersection_key, local_day, local_minute);
CREATE TABLE analytics_rollup_15m (
  intersection_key text NOT NULL,
  local_day date NOT NULL,
  local_minute smallint NOT NULL,
  movement_id integer NOT NULL,
  in_edge integer NOT NULL,
  map_version text NOT NULL,
  local_dow smallint NOT NULL,
${ROLLUP_MEASURE_COLUMNS},
  PRIMARY KEY (intersection_key, local_day, local_minute, movement_id, in_edge, map_version)
);
CREATE INDEX analytics_rollup_15m_movement_day_idx ON analytics_rollup_15m (movement_id, local_day);
CREATE INDEX analytics_rollup_15m_day_idx ON analytics_rollup_15m (local_day);
CREATE TABLE analytics_rollup_hour (
  intersection_key text NOT NULL,
  local_day date NOT NULL,
  local_minute smallint NOT NULL,
  map_version text NOT NULL,
  local_dow smallint NOT NULL,
${ROLLUP_MEASURE_COLUMNS},
  PRIMARY KEY (intersection_key, local_day, local_minute, map_version)
);
CREATE INDEX analytics_rollup_hour_day_idx ON analytics_rollup_hour (local_day);
CREATE TABLE analytics_rollup_month (
  intersection_key text NOT NULL,
  local_day date NOT NULL,
  local_dow smallint NOT NULL,
  local_minute smallint NOT NULL,
  map_version text NOT NULL,
${ROLLUP_MEASURE_COLUMNS},
  PRIMARY KEY (intersection_key, local_day, local_dow, local_minute, map_version)
);
CREATE INDEX analytics_rollup_month_day_idx ON analytics_rollup_month (local_day);
${REBUILD_ROLLUPS_SQL_402}
`,
  },
  {
    version: 419,
    name: 'facts keyed by region',
    sql: `
-- The same trace id in two regions is two traces: their facts never replace each other. Facts
-- stored before regions were recorded get region '' and are adopted by the region that serves them.
ALTER TABLE analytics_fact ADD COLUMN region text NOT NULL DEFAULT '';
ALTER TABLE analytics_fact DROP CONSTRAINT analytics_fact_pkey;
ALTER TABLE analytics_fact ADD PRIMARY KEY (region, trace_id, part, intersection_key, occurrence);
ALTER TABLE analytics_fact ALTER COLUMN region DROP DEFAULT;
`,
  },
  {
    version: 420,
    name: 'signal controller logs',
    sql: `
CREATE TABLE signal_event (
  region text NOT NULL,
  intersection_key text NOT NULL,
  t_s double precision NOT NULL,
  code smallint NOT NULL,
  param smallint NOT NULL,
  PRIMARY KEY (region, intersection_key, t_s, code, param)
);
CREATE TABLE signal_channel_map (
  region text NOT NULL,
  intersection_key text NOT NULL,
  map jsonb NOT NULL,
  PRIMARY KEY (region, intersection_key)
);
`,
  },
  {
    version: 421,
    name: 'arrivals on green',
    sql: `
ALTER TABLE analytics_fact ADD COLUMN arrived_on_green boolean;
ALTER TABLE analytics_rollup_15m ADD COLUMN on_green_count integer NOT NULL DEFAULT 0;
ALTER TABLE analytics_rollup_hour ADD COLUMN on_green_count integer NOT NULL DEFAULT 0;
ALTER TABLE analytics_rollup_month ADD COLUMN on_green_count integer NOT NULL DEFAULT 0;
-- no fact has timing yet: on green = did not stop
UPDATE analytics_rollup_15m SET on_green_count = through_count;
UPDATE analytics_rollup_hour SET on_green_count = through_count;
UPDATE analytics_rollup_month SET on_green_count = through_count;
`,
  },
  {
    version: 422,
    name: 'observed free flow',
    sql: `
CREATE TABLE analytics_free_flow (
  region text NOT NULL,
  map_version text NOT NULL,
  edge_id integer NOT NULL,
  speed_kph real NOT NULL,
  samples integer NOT NULL,
  PRIMARY KEY (region, map_version, edge_id)
);
`,
  },
];
