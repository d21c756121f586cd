/**
 * Persistence of raw pings in `probe_pings`, idempotent by (trace_id, t_s): re-ingesting the same
 * data inserts nothing. Batches use one multi-row INSERT over unnest'ed arrays. Every trace that
 * receives new pings is marked in `probe_pending` by the same statement (see `pending.ts`).
 */
import type { Queryable } from '../../store/db.js';
import type { Ping } from '../trajectory.js';
import type { ProbeRecord } from './records.js';

/**
 * Inserts a batch of pings, skipping those already stored (same trace id and timestamp).
 * Returns the number of rows actually inserted; when `firstNewS` is given, lowers each trace's
 * entry to the earliest newly inserted timestamp (what re-matching has to start from).
 * `mapVersion` names the region that will process the pings (its pending marks), '' = any.
 */
export async function insertPings(
  db: Queryable,
  records: readonly ProbeRecord[],
  firstNewS?: Map<string, number>,
  mapVersion = '',
): Promise<number> {
  if (records.length === 0) return 0;
  const n = records.length;
  const ids: string[] = new Array(n);
  const ts: number[] = new Array(n);
  const lats: number[] = new Array(n);
  const lons: number[] = new Array(n);
  const speeds: Array<number | null> = new Array(n);
  const headings: Array<number | null> = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = records[i];
    ids[i] = r.traceId;
    ts[i] = r.ping.tS;
    lats[i] = r.ping.lat;
    lons[i] = r.ping.lon;
    speeds[i] = r.ping.speedKph ?? null;
    headings[i] = r.ping.headingDeg ?? null;
  }
  // The pings and their traces' pending marks in one statement: both are stored or neither.
  const res = await db.query<{ trace_id: string; from_s: number; n: number }>(
    `WITH ins AS (
       INSERT INTO probe_pings (trace_id, t_s, lat, lon, speed_kph, heading_deg)
       SELECT * FROM unnest($1::text[], $2::float8[], $3::float8[], $4::float8[], $5::real[], $6::real[])
       ON CONFLICT (trace_id, t_s) DO NOTHING
       RETURNING trace_id, t_s),
     pend AS (
       INSERT INTO probe_pending (trace_id, from_s, map_version)
       SELECT trace_id, min(t_s), $7 FROM ins GROUP BY trace_id
       ON CONFLICT (trace_id) DO UPDATE
         SET from_s = least(probe_pending.from_s, EXCLUDED.from_s), n = probe_pending.n + 1, marked_at = now(),
             map_version = EXCLUDED.map_version)
     SELECT trace_id, min(t_s) AS from_s, count(*)::int AS n FROM ins GROUP BY trace_id`,
    [ids, ts, lats, lons, speeds, headings, mapVersion],
  );
  // one row per trace that got new pings: the earliest and how many
  let inserted = 0;
  for (const r of res.rows) {
    inserted += Number(r.n);
    if (firstNewS === undefined) continue;
    const t = Number(r.from_s);
    const prev = firstNewS.get(r.trace_id);
    if (prev === undefined || t < prev) firstNewS.set(r.trace_id, t);
  }
  return inserted;
}

/** Reads the stored pings of one trace in time order. */
export async function readTracePings(db: Queryable, traceId: string): Promise<Ping[]> {
  const res = await db.query<{
    t_s: number;
    lat: number;
    lon: number;
    speed_kph: number | null;
    heading_deg: number | null;
  }>('SELECT t_s, lat, lon, speed_kph, heading_deg FROM probe_pings WHERE trace_id = $1 ORDER BY t_s', [traceId]);
  return res.rows.map((r) => {
    const p: Ping = { tS: Number(r.t_s), lat: Number(r.lat), lon: Number(r.lon) };
    if (r.speed_kph !== null) p.speedKph = Number(r.speed_kph);
    if (r.heading_deg !== null) p.headingDeg = Number(r.heading_deg);
    return p;
  });
}
