/**
 * Persistence of raw pings in `probe_pings`, idempotent by (region, trace_id, t_s): storing the
 * same data again inserts nothing. A batch is one multi-row INSERT over unnest'ed arrays that also
 * marks every trace that received new pings in `probe_pending` (see `pending.ts`), so pings and
 * their marks are stored together or not at all.
 */
import type { Queryable } from '../../store/db.js';
import { partitionOf } from '../partition.js';
import type { Ping } from '../trajectory.js';
import type { PendingRef } from './pending.js';
import type { ProbeRecord } from './records.js';

/** What storing one batch did. */
export interface StoredBatch {
  /** pings newly stored */
  inserted: number;
  /** per trace that got new pings: its earliest new ping, unix seconds */
  firstNewS: Map<string, number>;
  /** the pending marks the batch left, to wait for their processing (`pendingLeft`) */
  marks: PendingRef[];
}

/**
 * Stores a batch of pings of region `region`, skipping those already stored (same trace id and
 * timestamp), and marks their traces pending in the same statement.
 * @example
 * const r = await insertPings(db, 'demo', [{ traceId: 'v1', ping: { tS: 1.8e9, lat: 39.29, lon: -76.61 } }]);
 */
export async function insertPings(
  db: Queryable,
  region: string,
  records: readonly ProbeRecord[],
): Promise<StoredBatch> {
  const out: StoredBatch = { inserted: 0, firstNewS: new Map(), marks: [] };
  if (records.length === 0) return out;
  // rows are written in (trace id, time) order, so concurrent batches and the workers' clearing
  // (`clearPending`) take their row locks in one order and cannot deadlock
  const sorted = [...records].sort(byTraceThenTime);
  const n = sorted.length;
  const ids: string[] = new Array(n);
  const ts: number[] = new Array(n);
  const lats: number[] = new Array(n);
  const lons: number[] = new Array(n);
  const speeds: Array<number | null> = new Array(n);
  const headings: Array<number | null> = new Array(n);
  const parts = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const r = sorted[i];
    ids[i] = r.traceId;
    ts[i] = r.ping.tS;
    lats[i] = r.ping.lat;
    lons[i] = r.ping.lon;
    speeds[i] = r.ping.speedKph ?? null;
    // every door stores headings in [0, 360), as the readers normalise them
    const h = r.ping.headingDeg;
    headings[i] = h === undefined ? null : ((h % 360) + 360) % 360;
    if (!parts.has(r.traceId)) parts.set(r.traceId, partitionOf(region, r.traceId));
  }
  const res = await db.query<{ trace_id: string; from_s: number; c: number; born: number; n: number }>(
    `WITH ins AS (
       INSERT INTO probe_pings (region, trace_id, t_s, lat, lon, speed_kph, heading_deg)
       SELECT $7, * FROM unnest($1::text[], $2::float8[], $3::float8[], $4::float8[], $5::real[], $6::real[])
       ON CONFLICT (region, trace_id, t_s) DO NOTHING
       RETURNING trace_id, t_s),
     news AS (SELECT trace_id, min(t_s) AS from_s, count(*)::int AS c FROM ins GROUP BY trace_id),
     pend AS (
       INSERT INTO probe_pending AS p (region, trace_id, part, from_s)
       SELECT $7, news.trace_id, k.part, news.from_s
       FROM news JOIN unnest($8::text[], $9::smallint[]) AS k(trace_id, part) ON k.trace_id = news.trace_id
       ORDER BY news.trace_id
       ON CONFLICT (region, trace_id) DO UPDATE
         SET from_s = least(p.from_s, EXCLUDED.from_s), n = p.n + 1, marked_at = now(), part = EXCLUDED.part
       RETURNING p.trace_id, p.born, p.n)
     SELECT news.trace_id, news.from_s, news.c, pend.born, pend.n FROM news JOIN pend USING (trace_id)`,
    [ids, ts, lats, lons, speeds, headings, region, [...parts.keys()], [...parts.values()]],
  );
  for (const r of res.rows) {
    out.inserted += Number(r.c);
    out.firstNewS.set(r.trace_id, Number(r.from_s));
    out.marks.push({ traceId: r.trace_id, born: Number(r.born), n: Number(r.n) });
  }
  return out;
}

/** Orders records by trace id, then time. */
function byTraceThenTime(a: ProbeRecord, b: ProbeRecord): number {
  return a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.ping.tS - b.ping.tS;
}

/**
 * Gives pings and pending marks stored before pings were keyed by region (region '') to region
 * `region`: those of traces `region`'s map version `mapVersion` already matched, and those of
 * traces no region matched. Returns the number of pings adopted.
 */
export async function adoptUnassigned(db: Queryable, region: string, mapVersion: string): Promise<number> {
  /** traces of `region`: matched by its map version (parameter `$mv`), or by no region */
  const mine = (
    mv: string,
  ): string => `(EXISTS (SELECT 1 FROM probe_traversals t WHERE t.trace_id = x.trace_id AND t.map_version = ${mv})
    OR NOT EXISTS (SELECT 1 FROM probe_traversals t WHERE t.trace_id = x.trace_id))`;
  const pings = await db.query(`UPDATE probe_pings x SET region = $1 WHERE region = '' AND ${mine('$2')}`, [
    region,
    mapVersion,
  ]);
  const marks = await db.query<{ trace_id: string }>(
    `SELECT trace_id FROM probe_pending x WHERE region = '' AND ${mine('$1')}`,
    [mapVersion],
  );
  if (marks.rows.length > 0) {
    const ids = marks.rows.map((r) => r.trace_id);
    await db.query(
      `UPDATE probe_pending p SET region = $1, part = k.part
       FROM unnest($2::text[], $3::smallint[]) AS k(trace_id, part)
       WHERE p.region = '' AND p.trace_id = k.trace_id`,
      [region, ids, ids.map((id) => partitionOf(region, id))],
    );
  }
  return pings.rowCount;
}

/** Reads the stored pings of one trace of `region` in time order. */
export async function readTracePings(db: Queryable, region: string, traceId: string): Promise<Ping[]> {
  const res = await db.query<{
    t_s: number;
    lat: number;
    lon: number;
    speed_kph: number | null;
    heading_deg: number | null;
  }>('SELECT t_s, lat, lon, speed_kph, heading_deg FROM probe_pings WHERE region = $1 AND trace_id = $2 ORDER BY t_s', [
    region,
    traceId,
  ]);
  return res.rows.map(pingOf);
}

/** A ping from its stored columns. */
export function pingOf(r: {
  t_s: number;
  lat: number;
  lon: number;
  speed_kph: number | null;
  heading_deg: number | null;
}): Ping {
  const p: Ping = { tS: Number(r.t_s), lat: Number(r.lat), lon: Number(r.lon) };
  if (r.speed_kph !== null) p.speedKph = Number(r.speed_kph);
  if (r.heading_deg !== null) p.headingDeg = Number(r.heading_deg);
  return p;
}
