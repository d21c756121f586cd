/**
 * Live speeds from recent probe traversals: every usable traversal that left its edge within the
 * last `windowS` seconds of "now" contributes to that edge's live speed (space-mean speed of the
 * recent traversals). Older ones expire from the feed; the traffic model fades live speeds back
 * to the profile over its blend horizon.
 */
import { intArrayLiteral, type Queryable } from '../store/db.js';
import type { SpeedFeeds } from './feeds.js';

/** Settings of live speeds. */
export interface LiveSpeedConfig {
  /** traversals that ended within this many seconds before now are live, seconds */
  windowS: number;
}

/** Default live-speed settings. */
export const DEFAULT_LIVE_SPEED_CONFIG: Readonly<LiveSpeedConfig> = Object.freeze({ windowS: 600 });

/** One usable traversal, reduced to what live speeds need. */
export interface SpeedObservation {
  edge: number;
  /** unix seconds when the vehicle left the edge */
  exitS: number;
  durationS: number;
  speedKph: number;
}

/**
 * Sets live speeds from observations that ended within the window before `nowS`, and expires
 * live speeds older than the window. Returns the number of edges updated.
 */
export function applyLiveObservations(
  feeds: SpeedFeeds,
  observations: Iterable<SpeedObservation>,
  nowS: number,
  cfg: Partial<LiveSpeedConfig> = {},
): number {
  const windowS = cfg.windowS ?? DEFAULT_LIVE_SPEED_CONFIG.windowS;
  const since = nowS - windowS;
  const acc = new Map<number, { lengthM: number; durationS: number; samples: number; lastS: number }>();
  for (const o of observations) {
    if (o.exitS < since || o.exitS > nowS + 60 || !(o.durationS > 0)) continue;
    let a = acc.get(o.edge);
    if (a === undefined) acc.set(o.edge, (a = { lengthM: 0, durationS: 0, samples: 0, lastS: -Infinity }));
    a.lengthM += (o.speedKph / 3.6) * o.durationS;
    a.durationS += o.durationS;
    a.samples++;
    if (o.exitS > a.lastS) a.lastS = o.exitS;
  }
  for (const [edge, a] of acc) {
    feeds.setLive(edge, { speedKph: (a.lengthM / a.durationS) * 3.6, observedAtS: a.lastS, samples: a.samples });
  }
  feeds.expireLive(since);
  return acc.size;
}

/**
 * Recomputes live speeds from the stored traversals of the last window: for `edges` (after an
 * ingest) or for every edge (server start-up). Idempotent: a re-matched trace is not counted twice.
 */
export async function refreshLiveSpeeds(
  db: Queryable,
  feeds: SpeedFeeds,
  mapVersion: string,
  nowS: number,
  edges?: Iterable<number>,
  cfg: Partial<LiveSpeedConfig> = {},
): Promise<number> {
  const windowS = cfg.windowS ?? DEFAULT_LIVE_SPEED_CONFIG.windowS;
  const ids = edges === undefined ? null : [...edges];
  const res = await db.query<{ edge_id: number; exit_s: number; enter_s: number; speed_kph: number }>(
    `SELECT edge_id, enter_s, exit_s, speed_kph FROM probe_traversals
     WHERE map_version = $1 AND speed_kph IS NOT NULL AND exit_s >= $2 AND exit_s <= $3
       AND ($4::int[] IS NULL OR edge_id = ANY($4::int[]))`,
    [mapVersion, nowS - windowS, nowS + 60, intArrayLiteral(ids)],
  );
  return applyLiveObservations(
    feeds,
    res.rows.map((r) => ({
      edge: Number(r.edge_id),
      exitS: Number(r.exit_s),
      durationS: Number(r.exit_s) - Number(r.enter_s),
      speedKph: Number(r.speed_kph),
    })),
    nowS,
    cfg,
  );
}

/**
 * How many of `edges` have a live speed from the stored traversals at `nowS`: what
 * `refreshLiveSpeeds` returns, counted in the database for a process that keeps no feeds.
 */
export async function countLiveEdges(
  db: Queryable,
  mapVersion: string,
  nowS: number,
  edges: Iterable<number>,
  cfg: Partial<LiveSpeedConfig> = {},
): Promise<number> {
  const windowS = cfg.windowS ?? DEFAULT_LIVE_SPEED_CONFIG.windowS;
  const res = await db.query<{ n: number }>(
    `SELECT count(DISTINCT edge_id)::int AS n FROM probe_traversals
     WHERE map_version = $1 AND speed_kph IS NOT NULL AND exit_s >= $2 AND exit_s <= $3 AND exit_s > enter_s
       AND edge_id = ANY($4::int[])`,
    [mapVersion, nowS - windowS, nowS + 60, intArrayLiteral([...edges])],
  );
  return Number(res.rows[0]?.n ?? 0);
}
