/**
 * Route store: route id → the exact path (legs), waypoints and options of a FindRoute answer,
 * in the database so every server process can serve GetRoute / GetRouteTravelTimes for it until
 * it expires (configurable hours).
 */
import { randomInt } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import type { Criteria } from './engine.js';
import type { Leg } from './path-cost.js';

/** A waypoint as echoed in trips. */
export interface TripWaypoint {
  lat: number;
  lon: number;
  description?: string;
}

/** What is stored per route. */
export interface StoredRoute {
  id: string;
  tripId: string;
  mapVersion: string;
  legs: Leg[];
  waypoints: TripWaypoint[];
  shortest: boolean;
  useTraffic: boolean;
  criteria: Criteria;
}

/** New numeric id (as a string, like the reference's samples). */
export function newId(): string {
  return String(randomInt(100_000_000, 2 ** 47));
}

/** Persistence of routes over the `Db` port. */
export class RouteStore {
  private lastPurgeS = -Infinity;

  constructor(private readonly db: Queryable) {}

  /** Saves routes (one statement) with a lifetime of `ttlHours` from `nowS` (unix seconds); purges expired rows at most once a minute. */
  async save(routes: StoredRoute[], nowS: number, ttlHours: number): Promise<void> {
    if (nowS - this.lastPurgeS >= 60) {
      this.lastPurgeS = nowS;
      await this.db.query(`DELETE FROM routes WHERE expires_at < to_timestamp($1)`, [nowS]);
    }
    if (routes.length === 0) return;
    const values: string[] = [];
    const params: unknown[] = [];
    for (const r of routes) {
      const path = { legs: r.legs, waypoints: r.waypoints, shortest: r.shortest, useTraffic: r.useTraffic, criteria: r.criteria };
      const k = params.length;
      values.push(`($${k + 1}, $${k + 2}, $${k + 3}, $${k + 4}::jsonb, to_timestamp($${k + 5}), to_timestamp($${k + 6}))`);
      params.push(r.id, r.tripId, r.mapVersion, JSON.stringify(path), nowS, nowS + ttlHours * 3600);
    }
    await this.db.query(`INSERT INTO routes (id, trip_id, map_version, path, created_at, expires_at) VALUES ${values.join(', ')}`, params);
  }

  /** The route if it exists and has not expired at `nowS`. */
  async find(id: string, nowS: number): Promise<StoredRoute | undefined> {
    const res = await this.db.query<{ id: string; trip_id: string; map_version: string; path: unknown }>(
      `SELECT id, trip_id, map_version, path FROM routes WHERE id = $1 AND expires_at > to_timestamp($2)`, [id, nowS],
    );
    const row = res.rows[0];
    if (!row) return undefined;
    const p = (typeof row.path === 'string' ? JSON.parse(row.path) : row.path) as Omit<StoredRoute, 'id' | 'tripId' | 'mapVersion'>;
    return { id: row.id, tripId: row.trip_id, mapVersion: row.map_version, ...p };
  }
}
