/**
 * Controller logs in the database (migration 420): events per intersection (uploading a log again
 * adds nothing twice) and one channel/phase map per intersection; and the service operations the
 * HTTP API and the CLI share: upload a log, set a map, read the split failures and the Purdue
 * coordination diagram of a phase and day.
 */
import { DateTime } from 'luxon';
import type { Queryable } from '../../store/db.js';
import type { IntersectionCatalog } from '../catalog/catalog.js';
import { AnalyticsError, invalid } from '../errors.js';
import { type ChannelMap, eventOrder, parseChannelMap, parseEventLog, type SignalEvent } from './event-log.js';
import {
  type CoordinationDiagram,
  coordinationDiagram,
  type IntersectionLog,
  type SplitCycle,
  signalTimingFromLogs,
  splitFailures,
} from './measures.js';
import type { SignalTiming } from '../facts/build-facts.js';

/** Events written per statement. */
const INSERT_BATCH = 10_000;

/** Where logs are stored: the region's name and time zone. */
export interface SignalStoreContext {
  region: string;
  timeZone: string;
}

function intersectionOf(catalog: IntersectionCatalog, key: string) {
  const ci = catalog.byKey.get(key);
  if (!ci)
    throw new AnalyticsError('ANALYTICS_INTERSECTION_NOT_FOUND', `intersection ${key} not found`, 'intersectionId');
  return ci;
}

/**
 * Validates and stores the channel/phase map of intersection `key` (replacing the previous one).
 *
 * @example
 * await putChannelMap(db, catalog, ctx, '39.29000_-76.61000', { intersectionId: '39.29000_-76.61000', phases: [...] });
 */
export async function putChannelMap(
  db: Queryable,
  catalog: IntersectionCatalog,
  ctx: SignalStoreContext,
  key: string,
  body: unknown,
): Promise<ChannelMap> {
  const ci = intersectionOf(catalog, key);
  const map = parseChannelMap(body, new Set(ci.movements.map((m) => m.id)));
  if (map.intersectionId !== key) throw invalid('map.intersectionId', `must be ${key}, the intersection of the path`);
  await db.query(
    `INSERT INTO signal_channel_map (region, intersection_key, map) VALUES ($1, $2, $3::jsonb)
     ON CONFLICT (region, intersection_key) DO UPDATE SET map = excluded.map`,
    [ctx.region, key, JSON.stringify(map)],
  );
  return map;
}

/** Result of a log upload. */
export interface LogUpload {
  intersectionId: string;
  /** events in the upload */
  events: number;
  /** events not stored before */
  inserted: number;
  /** ISO 8601 local times of the first and last event (null for an empty log) */
  from: string | null;
  to: string | null;
}

/**
 * Parses a hi-res event log (CSV, `parseEventLog`) of intersection `key` and stores its events;
 * events already stored are not stored twice.
 */
export async function uploadEventLog(
  db: Queryable,
  catalog: IntersectionCatalog,
  ctx: SignalStoreContext,
  key: string,
  csv: string,
): Promise<LogUpload> {
  intersectionOf(catalog, key);
  const events = parseEventLog(csv, ctx.timeZone);
  let inserted = 0;
  for (let i = 0; i < events.length; i += INSERT_BATCH) {
    const batch = events.slice(i, i + INSERT_BATCH).map((e) => ({ t: e.tS, c: e.code, p: e.param }));
    const r = await db.query(
      `INSERT INTO signal_event (region, intersection_key, t_s, code, param)
       SELECT $1, $2, x.t, x.c, x.p FROM jsonb_to_recordset($3::jsonb) AS x(t float8, c smallint, p smallint)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [ctx.region, key, JSON.stringify(batch)],
    );
    inserted += r.rows.length;
  }
  const iso = (s: number): string => DateTime.fromMillis(s * 1000, { zone: ctx.timeZone }).toISO()!;
  return {
    intersectionId: key,
    events: events.length,
    inserted,
    from: events.length > 0 ? iso(events[0].tS) : null,
    to: events.length > 0 ? iso(events[events.length - 1].tS) : null,
  };
}

/** The stored log of intersection `key` between `fromS` and `toS` with its map, or undefined without a map. */
export async function readIntersectionLog(
  db: Queryable,
  ctx: SignalStoreContext,
  key: string,
  fromS: number,
  toS: number,
): Promise<IntersectionLog | undefined> {
  const m = await db.query<{ map: ChannelMap | string }>(
    'SELECT map FROM signal_channel_map WHERE region = $1 AND intersection_key = $2',
    [ctx.region, key],
  );
  if (m.rows.length === 0) return undefined;
  const raw = m.rows[0].map;
  const map = (typeof raw === 'string' ? JSON.parse(raw) : raw) as ChannelMap;
  const r = await db.query<{ t_s: number; code: number; param: number }>(
    `SELECT t_s, code, param FROM signal_event
     WHERE region = $1 AND intersection_key = $2 AND t_s >= $3 AND t_s < $4`,
    [ctx.region, key, fromS, toS],
  );
  const events: SignalEvent[] = r.rows
    .map((x) => ({ tS: Number(x.t_s), code: Number(x.code), param: Number(x.param) }))
    .sort(eventOrder);
  return { map, events };
}

/** Signal timing of every mapped intersection between `fromS` and `toS` (for `buildFacts`). */
export async function storedSignalTiming(
  db: Queryable,
  ctx: SignalStoreContext,
  fromS: number,
  toS: number,
): Promise<SignalTiming> {
  const keys = await db.query<{ intersection_key: string }>(
    'SELECT intersection_key FROM signal_channel_map WHERE region = $1',
    [ctx.region],
  );
  const logs = new Map<string, IntersectionLog>();
  for (const { intersection_key: key } of keys.rows) {
    const log = await readIntersectionLog(db, ctx, key, fromS, toS);
    if (log && log.events.length > 0) logs.set(key, log);
  }
  return signalTimingFromLogs(logs);
}

/** A phase and local day asked for. */
export interface PhaseDayQuery {
  intersectionId: string;
  /** `YYYY-MM-DD`, local */
  day: string;
  phase: number;
}

/** Parses `{ day, phase }` query parameters. */
export function parsePhaseDayQuery(key: string, q: Record<string, string | string[] | undefined>): PhaseDayQuery {
  for (const k of Object.keys(q)) if (k !== 'day' && k !== 'phase') throw invalid(k, 'unknown parameter');
  const day = q.day;
  if (typeof day !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(day)) throw invalid('day', 'must be YYYY-MM-DD');
  const phase = Number(q.phase);
  if (typeof q.phase !== 'string' || !Number.isInteger(phase) || phase < 1 || phase > 255)
    throw invalid('phase', 'must be an integer 1–255');
  return { intersectionId: key, day, phase };
}

function dayBounds(day: string, tz: string): [number, number] {
  const d = DateTime.fromISO(day, { zone: tz });
  if (!d.isValid) throw invalid('day', 'is not a date');
  return [d.toSeconds(), d.plus({ days: 1 }).toSeconds()];
}

async function logFor(db: Queryable, catalog: IntersectionCatalog, ctx: SignalStoreContext, q: PhaseDayQuery) {
  intersectionOf(catalog, q.intersectionId);
  const [fromS, toS] = dayBounds(q.day, ctx.timeZone);
  // a cycle that began before midnight: read a little of the day before and after
  const log = await readIntersectionLog(db, ctx, q.intersectionId, fromS - 600, toS + 600);
  if (!log)
    throw new AnalyticsError(
      'ANALYTICS_SIGNAL_MAP_NOT_FOUND',
      `intersection ${q.intersectionId} has no channel/phase map`,
      'intersectionId',
    );
  return { log, fromS, toS };
}

/** Split failures of a phase over a local day. */
export async function querySplitFailures(
  db: Queryable,
  catalog: IntersectionCatalog,
  ctx: SignalStoreContext,
  q: PhaseDayQuery,
): Promise<{ cycles: SplitCycle[]; splitFailures: number }> {
  const { log, fromS, toS } = await logFor(db, catalog, ctx, q);
  const cycles = splitFailures(log, q.phase).filter((c) => c.greenStartS >= fromS && c.greenStartS < toS);
  return { cycles, splitFailures: cycles.filter((c) => c.splitFailure).length };
}

/** The Purdue coordination diagram of a phase over a local day (detector arrivals). */
export async function queryCoordinationDiagram(
  db: Queryable,
  catalog: IntersectionCatalog,
  ctx: SignalStoreContext,
  q: PhaseDayQuery,
): Promise<CoordinationDiagram> {
  const { log, fromS, toS } = await logFor(db, catalog, ctx, q);
  return coordinationDiagram(log, q.phase, fromS, toS);
}
