/**
 * Database migrations of the probe pipeline and learned speeds (versions 300–399).
 *
 * - `probe_pings`: raw pings, idempotent by (region, trace_id, t_s).
 * - `probe_pending`: traces of a region with stored but unprocessed pings, with their partition.
 * - `probe_traversals`: map-matched trajectories as timed edge traversals, per map version (read by
 *   analytics; documented in docs/probes.md). Rebuilt per trace whenever the trace gets new pings.
 * - `learned_speed_bins`: per edge × 15-minute bin of the local week, the exact sums behind the
 *   space-mean speed (Σ length / Σ duration), kept by difference with the traversals.
 */
import type { Migration } from '../store/db.js';

/** Migrations of the probe pipeline, collected by `app/migrations.ts`. */
export const migrations: Migration[] = [
  {
    version: 300,
    name: 'probe pings, traversals and learned speed bins',
    sql: `
CREATE TABLE probe_pings (
  trace_id     text NOT NULL,
  t_s          double precision NOT NULL,
  lat          double precision NOT NULL,
  lon          double precision NOT NULL,
  speed_kph    real,
  heading_deg  real,
  ingested_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (trace_id, t_s)
);
CREATE INDEX probe_pings_t_s ON probe_pings (t_s);

CREATE TABLE probe_traversals (
  trace_id     text NOT NULL,
  part         integer NOT NULL,
  seq          integer NOT NULL,
  map_version  text NOT NULL,
  edge_id      integer NOT NULL,
  enter_s      double precision NOT NULL,
  exit_s       double precision NOT NULL,
  covered      real NOT NULL,
  bin_of_week  smallint NOT NULL,
  speed_kph    real,
  pings        jsonb NOT NULL DEFAULT '[]'::jsonb,
  PRIMARY KEY (trace_id, part, seq)
);
CREATE INDEX probe_traversals_edge ON probe_traversals (edge_id, bin_of_week);
CREATE INDEX probe_traversals_enter ON probe_traversals (enter_s);

CREATE TABLE learned_speed_bins (
  map_version     text NOT NULL,
  edge_id         integer NOT NULL,
  bin_of_week     smallint NOT NULL,
  samples         integer NOT NULL,
  sum_length_m    double precision NOT NULL,
  sum_duration_s  double precision NOT NULL,
  PRIMARY KEY (map_version, edge_id, bin_of_week)
);
`,
  },
  {
    version: 301,
    name: 'probe traces waiting to be processed',
    sql: `
-- One row per trace with stored pings not yet processed (matched, learned, turned into facts).
-- Written in the same statement as the pings, deleted once everything derived from them is
-- stored; a batch that failed half-way leaves its rows here to be processed again.
CREATE TABLE probe_pending (
  trace_id   text PRIMARY KEY,
  -- earliest unprocessed ping, unix seconds (re-matching starts at the gap before it)
  from_s     double precision NOT NULL,
  -- bumped by every batch that adds pings: a processor deletes the row only if it is unchanged
  n          integer NOT NULL DEFAULT 1,
  -- the map version of the region that received the pings ('' = any region may process them)
  map_version text NOT NULL DEFAULT '',
  marked_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX probe_pending_marked ON probe_pending (marked_at);
`,
  },
  {
    version: 302,
    name: 'probe traversals by exit time',
    sql: `
-- Live speeds read the traversals that ended in the last window; through the edge index that
-- read scanned every stored traversal of the edges, a cost growing with the history.
CREATE INDEX IF NOT EXISTS probe_traversals_exit ON probe_traversals (exit_s);
`,
  },
  {
    version: 303,
    name: 'learned speed bins rebuilt from the traversals',
    sql: `
-- From here on the sums follow the traversal rows by difference, in the transaction that writes
-- them; they start from an aggregate over the table (an earlier version recomputed them after
-- the write, and a process that stopped in between left them behind).
DELETE FROM learned_speed_bins;
INSERT INTO learned_speed_bins (map_version, edge_id, bin_of_week, samples, sum_length_m, sum_duration_s)
SELECT map_version, edge_id, bin_of_week, count(*)::int, sum(speed_kph / 3.6 * (exit_s - enter_s)), sum(exit_s - enter_s)
FROM probe_traversals WHERE speed_kph IS NOT NULL
GROUP BY map_version, edge_id, bin_of_week;
`,
  },
  {
    version: 310,
    name: 'probe identity with the region, partitioned pending marks, exact learned sums',
    sql: `
-- A ping is identified by (region, trace id, timestamp): the same trace id in two regions is two
-- traces. Pings stored before regions were recorded get region '' and are adopted by the region
-- that processes them (adoptUnassigned in ping-store.ts).
ALTER TABLE probe_pings ADD COLUMN region text NOT NULL DEFAULT '';
ALTER TABLE probe_pings DROP CONSTRAINT probe_pings_pkey;
ALTER TABLE probe_pings ADD PRIMARY KEY (region, trace_id, t_s);
ALTER TABLE probe_pings ALTER COLUMN region DROP DEFAULT;

-- Pending marks per (region, trace), with the trace's partition (an owner lists its partitions'
-- marks). n is the row's version, bumped by every statement that stores pings of the trace: a
-- processor deletes the mark only if n is what it read, else records the version it processed in
-- cleared_n. born (from probe_pending_seq) tells a mark apart from a later one of the same trace.
CREATE SEQUENCE probe_pending_seq;
ALTER TABLE probe_pending RENAME TO probe_pending_old;
DROP INDEX probe_pending_marked;
CREATE TABLE probe_pending (
  region     text NOT NULL,
  trace_id   text NOT NULL,
  -- partitionOf(region, trace_id); -1 until adopted (rows of the previous schema)
  part       smallint NOT NULL,
  -- earliest unprocessed ping, unix seconds (re-matching starts at the gap before it)
  from_s     double precision NOT NULL,
  n          integer NOT NULL DEFAULT 1,
  born       bigint NOT NULL DEFAULT nextval('probe_pending_seq'),
  cleared_n  integer NOT NULL DEFAULT 0,
  marked_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (region, trace_id)
);
CREATE INDEX probe_pending_part ON probe_pending (region, part, marked_at);
INSERT INTO probe_pending (region, trace_id, part, from_s, marked_at)
  SELECT '', trace_id, -1, from_s, marked_at FROM probe_pending_old;
DROP TABLE probe_pending_old;

-- Traversals of the same trace id in two regions (map versions) are different rows.
ALTER TABLE probe_traversals DROP CONSTRAINT probe_traversals_pkey;
ALTER TABLE probe_traversals ADD PRIMARY KEY (map_version, trace_id, part, seq);

-- Learned sums in whole millimetres and milliseconds, each traversal's contribution rounded: the
-- sums are exact, so they do not depend on the order in which traversals were added and removed.
DROP TABLE learned_speed_bins;
CREATE TABLE learned_speed_bins (
  map_version      text NOT NULL,
  edge_id          integer NOT NULL,
  bin_of_week      smallint NOT NULL,
  samples          integer NOT NULL,
  sum_length_mm    bigint NOT NULL,
  sum_duration_ms  bigint NOT NULL,
  PRIMARY KEY (map_version, edge_id, bin_of_week)
);
INSERT INTO learned_speed_bins (map_version, edge_id, bin_of_week, samples, sum_length_mm, sum_duration_ms)
SELECT map_version, edge_id, bin_of_week, count(*)::int,
  sum(round(speed_kph::float8 / 3.6 * (exit_s - enter_s) * 1000))::bigint, sum(round((exit_s - enter_s) * 1000))::bigint
FROM probe_traversals WHERE speed_kph IS NOT NULL
GROUP BY map_version, edge_id, bin_of_week;
`,
  },
];
