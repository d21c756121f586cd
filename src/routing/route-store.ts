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

/** Routes this process saved recently: served without a database read. */
const RECENT_MAX = 2000;

/** Default wait before a background INSERT, milliseconds: routes answered meanwhile share it. */
export const DEFAULT_WRITE_DELAY_MS = 20;

/** Routes written by one INSERT at most. */
const ROWS_PER_INSERT = 2000;

/**
 * Persistence of routes over the `Db` port. `saveBehind` answers at once and writes in the
 * background: the routes answered within `writeDelayMs` of the first queued one go in one INSERT
 * (a statement costs far more than a row, on the embedded database in this process's own CPU);
 * this process serves its own recent routes from memory, other processes read them once the
 * INSERT has committed. `flushed()` waits for the queue (the HTTP layer awaits it on close).
 */
export class RouteStore {
  private lastPurgeS = -Infinity;
  private queue: Array<{ route: StoredRoute; nowS: number; ttlHours: number; attempts: number }> = [];
  private flushing: Promise<void> | null = null;
  private readonly recent = new Map<string, { route: StoredRoute; expiresAtS: number }>();
  /** last background write failure (the batch is retried up to three times) */
  lastError: unknown = null;

  constructor(
    private readonly db: Queryable,
    private readonly writeDelayMs = DEFAULT_WRITE_DELAY_MS,
  ) {}

  /** Queues routes for a background INSERT; they are readable through this store at once. */
  saveBehind(routes: StoredRoute[], nowS: number, ttlHours: number): void {
    for (const route of routes) {
      this.remember(route, nowS + ttlHours * 3600);
      this.queue.push({ route, nowS, ttlHours, attempts: 0 });
    }
    if (this.flushing === null && this.queue.length > 0) {
      const delay = this.writeDelayMs;
      this.flushing = new Promise<void>((resolve) =>
        delay > 0 ? setTimeout(resolve, delay) : setImmediate(resolve),
      ).then(() => this.flush());
    }
  }

  /** Resolves when every queued route has been written (or given up after three attempts). */
  async flushed(): Promise<void> {
    while (this.flushing !== null) await this.flushing;
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        // at most ROWS_PER_INSERT a statement (7 parameters a row; PostgreSQL takes 65 535)
        const batch = this.queue.splice(0, ROWS_PER_INSERT);
        try {
          await this.insert(batch);
        } catch (err) {
          this.lastError = err;
          for (const i of batch) if (++i.attempts < 3) this.queue.push(i);
          if (this.queue.length > 0) await new Promise((r) => setTimeout(r, 50));
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  private remember(route: StoredRoute, expiresAtS: number): void {
    if (this.recent.size >= RECENT_MAX) this.recent.delete(this.recent.keys().next().value as string);
    this.recent.set(route.id, { route, expiresAtS });
  }

  /**
   * Saves routes (one INSERT; edge lists as base64 of uint32) with a lifetime of `ttlHours` from
   * `nowS` (unix seconds). Expired rows are purged at most once a minute, after the insert and
   * without holding up the caller.
   */
  async save(routes: StoredRoute[], nowS: number, ttlHours: number): Promise<void> {
    await this.insert(routes.map((route) => ({ route, nowS, ttlHours })));
  }

  /** One INSERT for routes that may have been answered at different times; then the purge. */
  private async insert(items: ReadonlyArray<{ route: StoredRoute; nowS: number; ttlHours: number }>): Promise<void> {
    let nowS = -Infinity;
    if (items.length > 0) {
      const values: string[] = [];
      const params: unknown[] = [];
      for (const { route: r, nowS: at, ttlHours } of items) {
        const legs = r.legs.map((l) => ({
          n: l.edges.length,
          startFraction: l.startFraction,
          endFraction: l.endFraction,
          offsetS: l.offsetS,
        }));
        const path = {
          legs,
          waypoints: r.waypoints,
          shortest: r.shortest,
          useTraffic: r.useTraffic,
          criteria: r.criteria,
        };
        const k = params.length;
        values.push(
          `($${k + 1}, $${k + 2}, $${k + 3}, $${k + 4}, $${k + 5}, to_timestamp($${k + 6}), to_timestamp($${k + 7}))`,
        );
        params.push(r.id, r.tripId, r.mapVersion, JSON.stringify(path), encodeEdges(r.legs), at, at + ttlHours * 3600);
        if (at > nowS) nowS = at;
      }
      await this.db.query(
        `INSERT INTO routes (id, trip_id, map_version, path, edges, created_at, expires_at) VALUES ${values.join(', ')}`,
        params,
      );
    }
    if (nowS - this.lastPurgeS >= 60) {
      this.lastPurgeS = nowS;
      // best effort: a failed purge is retried a minute later
      this.db.query(`DELETE FROM routes WHERE expires_at < to_timestamp($1)`, [nowS]).catch(() => {
        this.lastPurgeS = -Infinity;
      });
    }
  }

  /** The route if it exists and has not expired at `nowS` (this process's recent routes from memory). */
  async find(id: string, nowS: number): Promise<StoredRoute | undefined> {
    const mine = this.recent.get(id);
    if (mine !== undefined && nowS < mine.expiresAtS) return mine.route;
    const res = await this.db.query<{
      id: string;
      trip_id: string;
      map_version: string;
      path: unknown;
      edges: string | null;
    }>(`SELECT id, trip_id, map_version, path, edges FROM routes WHERE id = $1 AND expires_at > to_timestamp($2)`, [
      id,
      nowS,
    ]);
    const row = res.rows[0];
    if (!row) return undefined;
    const p = (typeof row.path === 'string' ? JSON.parse(row.path) : row.path) as Omit<
      StoredRoute,
      'id' | 'tripId' | 'mapVersion' | 'legs'
    > & {
      legs: Array<Omit<Leg, 'edges'> & { n?: number; edges?: number[] }>;
    };
    // rows written before the compact encoding carry the edges inside the JSON legs
    const all = row.edges === null ? null : decodeEdges(row.edges);
    let at = 0;
    const legs: Leg[] = p.legs.map((l) => {
      let edges: number[];
      if (all === null) edges = l.edges ?? [];
      else {
        const n = l.n ?? 0;
        edges = Array.from(all.subarray(at, at + n));
        at += n;
      }
      return { edges, startFraction: l.startFraction, endFraction: l.endFraction, offsetS: l.offsetS };
    });
    return {
      id: row.id,
      tripId: row.trip_id,
      mapVersion: row.map_version,
      waypoints: p.waypoints,
      shortest: p.shortest,
      useTraffic: p.useTraffic,
      criteria: p.criteria,
      legs,
    };
  }
}

/** Edge ids of all legs, concatenated, as base64 of little-endian uint32. */
export function encodeEdges(legs: readonly Leg[]): string {
  let n = 0;
  for (const l of legs) n += l.edges.length;
  const buf = Buffer.allocUnsafe(n * 4);
  let o = 0;
  for (const l of legs)
    for (const e of l.edges) {
      buf.writeUInt32LE(e, o);
      o += 4;
    }
  return buf.toString('base64');
}

/** Inverse of `encodeEdges`. */
export function decodeEdges(s: string): Uint32Array {
  const buf = Buffer.from(s, 'base64');
  const out = new Uint32Array(buf.length >> 2);
  for (let i = 0; i < out.length; i++) out[i] = buf.readUInt32LE(i * 4);
  return out;
}
