/**
 * Incidents: crashes and hazards, events, construction, congestion alerts. Stored in the database
 * (table `incidents`, migration 100 of routing), cached in memory per process by `IncidentCache`
 * so the traffic model reads them without any preprocessing. A closure makes its edges impassable
 * while active; the other kinds slow their edges by a severity factor.
 */
import type { Db, Queryable } from '../store/db.js';

/** Incident type codes of the reference (§7): 1 construction, 2 event, 3 congestion, 4 crash/hazard. */
export const IncidentType = { construction: 1, event: 2, congestion: 3, crash: 4 } as const;
/** Names accepted by the admin API for each type code. */
export const INCIDENT_TYPE_NAMES: Record<string, number> = {
  construction: 1,
  event: 2,
  congestion: 3,
  crash: 4,
  hazard: 4,
};
/** Default Alert-C event codes per type when none is given. */
export const DEFAULT_EVENT_CODE: Record<number, number> = { 1: 701, 2: 1501, 3: 101, 4: 201 };
/** Speed factor applied to an active non-closure incident's edges, by severity 0..4. */
export const SEVERITY_SPEED_FACTOR = [0.9, 0.75, 0.6, 0.45, 0.3];

/** One stored incident. Times are unix seconds; `endS` null = open ended. */
export interface Incident {
  id: number;
  version: number;
  type: number;
  severity: number;
  eventCode: number;
  lat: number;
  lon: number;
  /** directed edge ids affected */
  edges: number[];
  startS: number;
  endS: number | null;
  /** expected delay caused, minutes */
  delayImpactMinutes: number;
  closure: boolean;
  shortDescription: string;
  fullDescription: string;
  createdAtS: number;
}

/** What creating an incident needs (edges already resolved by the caller). */
export type NewIncident = Omit<Incident, 'id' | 'version' | 'createdAtS'>;

interface IncidentRow {
  id: string | number;
  version: number;
  type: number;
  severity: number;
  event_code: number;
  lat: number;
  lon: number;
  edges: number[] | string;
  start_s: string | number;
  end_s: string | number | null;
  delay_impact_minutes: number;
  closure: boolean;
  short_description: string;
  full_description: string;
  created_s: string | number;
}

const SELECT = `SELECT id, version, type, severity, event_code, lat, lon, edges,
  extract(epoch from start_at)::float8 AS start_s, extract(epoch from end_at)::float8 AS end_s,
  delay_impact_minutes, closure, short_description, full_description,
  extract(epoch from created_at)::float8 AS created_s FROM incidents`;

function fromRow(r: IncidentRow): Incident {
  const edges = typeof r.edges === 'string' ? (JSON.parse(r.edges) as number[]) : r.edges;
  return {
    id: Number(r.id),
    version: r.version,
    type: r.type,
    severity: r.severity,
    eventCode: r.event_code,
    lat: r.lat,
    lon: r.lon,
    edges: edges.map(Number),
    startS: Number(r.start_s),
    endS: r.end_s === null ? null : Number(r.end_s),
    delayImpactMinutes: r.delay_impact_minutes,
    closure: r.closure,
    shortDescription: r.short_description,
    fullDescription: r.full_description,
    createdAtS: Number(r.created_s),
  };
}

/** Incident persistence over the `Db` port. */
export class IncidentStore {
  constructor(private readonly db: Queryable) {}

  /** Inserts an incident and returns it with its id. */
  async create(inc: NewIncident): Promise<Incident> {
    const res = await this.db.query<IncidentRow>(
      `INSERT INTO incidents (type, severity, event_code, lat, lon, edges, start_at, end_at,
         delay_impact_minutes, closure, short_description, full_description)
       VALUES ($1,$2,$3,$4,$5,$6::jsonb, to_timestamp($7), CASE WHEN $8::float8 IS NULL THEN NULL ELSE to_timestamp($8::float8) END,
         $9,$10,$11,$12)
       RETURNING id, version, type, severity, event_code, lat, lon, edges,
         extract(epoch from start_at)::float8 AS start_s, extract(epoch from end_at)::float8 AS end_s,
         delay_impact_minutes, closure, short_description, full_description,
         extract(epoch from created_at)::float8 AS created_s`,
      [
        inc.type,
        inc.severity,
        inc.eventCode,
        inc.lat,
        inc.lon,
        JSON.stringify(inc.edges),
        inc.startS,
        inc.endS,
        inc.delayImpactMinutes,
        inc.closure,
        inc.shortDescription,
        inc.fullDescription,
      ],
    );
    return fromRow(res.rows[0]);
  }

  /** Incidents whose window has not ended before `sinceS` (unix seconds), by id. */
  async listCurrent(sinceS: number): Promise<Incident[]> {
    const res = await this.db.query<IncidentRow>(
      `${SELECT} WHERE end_at IS NULL OR end_at > to_timestamp($1) ORDER BY id`,
      [sinceS],
    );
    return res.rows.map(fromRow);
  }

  /** Every incident, by id. */
  async listAll(): Promise<Incident[]> {
    const res = await this.db.query<IncidentRow>(`${SELECT} ORDER BY id`);
    return res.rows.map(fromRow);
  }

  /** One incident or undefined. */
  async find(id: number): Promise<Incident | undefined> {
    const res = await this.db.query<IncidentRow>(`${SELECT} WHERE id = $1`, [id]);
    return res.rows[0] ? fromRow(res.rows[0]) : undefined;
  }

  /** Deletes an incident; true when it existed. */
  async delete(id: number): Promise<boolean> {
    const res = await this.db.query(`DELETE FROM incidents WHERE id = $1`, [id]);
    return res.rowCount > 0;
  }
}

/** How an active incident affects one edge. */
export interface IncidentEffect {
  incidentId: number;
  startS: number;
  /** Infinity when open ended */
  endS: number;
  closure: boolean;
  /** speed multiplier while active (1 for closures: they block instead) */
  speedFactor: number;
}

/**
 * In-memory cache of current incidents: read at first use, again at once after a change made
 * through this process or announced by another, and in the background when older than `ttlMs`.
 */
export class IncidentCache {
  private incidents: Incident[] = [];
  private byEdge = new Map<number, IncidentEffect[]>();
  private loadedAtMs = -Infinity;
  private loading: Promise<void> | null = null;
  private everLoaded = false;
  /** incremented whenever the cached set changes */
  version = 0;

  /** `store` null: an in-memory cache fed only through `setIncidents` (tests, benchmarks). */
  constructor(
    private readonly store: IncidentStore | null,
    private readonly ttlMs = 5000,
  ) {}

  /** Forces the next `refresh` to re-read before it returns (after a write through this process). */
  invalidate(): void {
    this.loadedAtMs = -Infinity;
  }

  /**
   * Makes the cache current for a request at `nowMs` (clock, unix ms): waits for a read when the
   * cache was never loaded or was invalidated; when it is merely older than the TTL, the read
   * runs in the background and the request goes on with what is cached (changes made by other
   * processes arrive through the change log and `reload`; the TTL is only a fallback).
   */
  async refresh(nowMs: number): Promise<void> {
    if (this.store === null || nowMs - this.loadedAtMs < this.ttlMs) return;
    if (this.loadedAtMs === -Infinity || !this.everLoaded) return this.reload(nowMs);
    this.reload(nowMs).catch(() => undefined);
  }

  /** Re-reads the incidents now (`nowMs` = clock, unix ms); concurrent calls share one read. */
  async reload(nowMs: number): Promise<void> {
    if (this.store === null) return;
    const store = this.store;
    if (!this.loading) {
      this.loading = (async () => {
        try {
          // keep an hour of history so routes departing slightly earlier still see them
          const list = await store.listCurrent(nowMs / 1000 - 3600);
          this.setIncidents(list);
          this.loadedAtMs = nowMs;
          this.everLoaded = true;
        } finally {
          this.loading = null;
        }
      })();
    }
    await this.loading;
  }

  /** Replaces the cached set (also used by tests and the bench without a database). */
  setIncidents(list: Incident[]): void {
    this.incidents = list;
    const byEdge = new Map<number, IncidentEffect[]>();
    for (const inc of list) {
      const eff: IncidentEffect = {
        incidentId: inc.id,
        startS: inc.startS,
        endS: inc.endS ?? Infinity,
        closure: inc.closure,
        speedFactor: inc.closure ? 1 : SEVERITY_SPEED_FACTOR[Math.max(0, Math.min(4, inc.severity))],
      };
      for (const e of inc.edges) {
        let arr = byEdge.get(e);
        if (!arr) byEdge.set(e, (arr = []));
        arr.push(eff);
      }
    }
    this.byEdge = byEdge;
    this.version++;
  }

  /** Current incidents. */
  all(): readonly Incident[] {
    return this.incidents;
  }

  /** Effects per edge (shared; do not mutate). */
  effectsByEdge(): ReadonlyMap<number, IncidentEffect[]> {
    return this.byEdge;
  }

  /** The incident with that id, if cached. */
  get(id: number): Incident | undefined {
    return this.incidents.find((i) => i.id === id);
  }
}

/** Runs `IncidentStore` on the database port. */
export function incidentStore(db: Db): IncidentStore {
  return new IncidentStore(db);
}
