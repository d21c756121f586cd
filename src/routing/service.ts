/**
 * The routing service: FindRoute, GetRoute, GetRouteTravelTimes and the incident admin
 * operations, over one RoutingEngine, the database port and the clock. Requests arrive parsed and
 * validated for syntax (HTTP layer); this module checks semantics (time windows, snapping, ids).
 */
import type { Db } from '../store/db.js';
import { IncidentCache, IncidentStore, type Incident, type NewIncident } from '../traffic/incidents.js';
import type { SpeedModeId } from '../traffic/model.js';
import { RoutingEngine, type EngineConfig, type PlannedRoute } from './engine.js';
import { RoutingError } from './errors.js';
import { RouteStore, newId, type StoredRoute, type TripWaypoint } from './route-store.js';
import { assembleRoute, isoUtc, routeTimes, type OutputOptions } from './assemble/route-view.js';
import type { Leg } from './path-cost.js';
import type { Graph } from '../network/graph.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import type {
  FindRouteRequest,
  GetRouteRequest,
  IncidentInput,
  TravelTimesRequest,
  TravelTimesView,
  TripView,
} from './service-types.js';

/** Service settings (config slice `routing`). */
export interface RoutingServiceConfig {
  /** hours a route id stays usable for GetRoute / GetRouteTravelTimes */
  routeTtlHours: number;
  /** incidents are re-read from the database at most this often, milliseconds */
  incidentRefreshMs: number;
  /** departures/arrivals up to this far before now count as now (clock skew), seconds; earlier ones are past times, planned with typical speeds */
  pastToleranceS: number;
  /** an unknown route id is looked up once more after this many ms plus `routeWriteDelayMs` (routes are written behind) */
  missRetryMs: number;
  /** routes answered within this many ms share one background INSERT (0: one per event-loop turn) */
  routeWriteDelayMs: number;
  engine: Partial<EngineConfig>;
}

/** Default service settings. */
export const DEFAULT_ROUTING_CONFIG: RoutingServiceConfig = {
  routeTtlHours: 24,
  incidentRefreshMs: 5000,
  pastToleranceS: 60,
  missRetryMs: 100,
  routeWriteDelayMs: 20,
  engine: {},
};

/** Nine calendar months after `nowS`, unix seconds. */
export function horizonS(nowS: number): number {
  const d = new Date(nowS * 1000);
  d.setUTCMonth(d.getUTCMonth() + 9);
  return d.getTime() / 1000;
}

/** The routing service of one loaded region. */
export class RoutingService {
  readonly engine: RoutingEngine;
  readonly incidents: IncidentCache;
  readonly incidentStore: IncidentStore;
  readonly routes: RouteStore;
  readonly cfg: RoutingServiceConfig;

  constructor(
    graph: Graph,
    feeds: SpeedFeeds,
    timeZone: string,
    private readonly mapVersion: string,
    db: Db,
    private readonly nowMs: () => number,
    cfg: Partial<RoutingServiceConfig> = {},
  ) {
    this.cfg = { ...DEFAULT_ROUTING_CONFIG, ...cfg };
    this.incidentStore = new IncidentStore(db);
    this.incidents = new IncidentCache(this.incidentStore, this.cfg.incidentRefreshMs);
    this.engine = new RoutingEngine(graph, feeds, this.incidents, timeZone, this.cfg.engine);
    this.routes = new RouteStore(db, this.cfg.routeWriteDelayMs);
  }

  private nowS(): number {
    return this.nowMs() / 1000;
  }

  /**
   * Validates a departure/arrival instant against the nine-month horizon. Past times are accepted:
   * they are planned with the typical speeds of that weekday and time (see `isPast`).
   */
  private checkTime(t: number | undefined, which: 'DepartureTime' | 'ArrivalTime'): void {
    if (t === undefined) return;
    const code = which === 'DepartureTime' ? 'BAD_DEPARTURE_TIME' : 'BAD_ARRIVAL_TIME';
    if (t > horizonS(this.nowS())) throw new RoutingError(code, `${which} must be within nine months`, which);
  }

  /**
   * True for an instant before now (beyond the clock-skew tolerance). Live speeds describe now and
   * incidents are kept only while they matter, so a past trip is planned and costed with the
   * typical speeds of its weekday and time: predicted profiles and learned probe speeds
   * (`trafficConsidered` false, abnormality 0).
   */
  private isPast(t: number): boolean {
    return t < this.nowS() - this.cfg.pastToleranceS;
  }

  /** Speed mode of a request at instant `atS`. */
  private modeAt(shortest: boolean, useTraffic: boolean, atS: number): SpeedModeId {
    return this.engine.speedMode(shortest, useTraffic, this.isPast(atS));
  }

  /** Plans at a departure, or finds the latest departure that arrives by `arriveS` (returns that departure). */
  planTimed(req: FindRouteRequest): { routes: PlannedRoute[]; departS: number } {
    const nowS = this.nowS();
    const typicalOnly = this.isPast(req.departS ?? req.arriveS ?? nowS);
    const base = {
      waypoints: req.waypoints,
      nowS,
      shortest: req.shortest,
      useTraffic: req.useTraffic,
      criteria: req.criteria,
      maxAlternates: req.maxAlternates,
      ambiguousOrigin: req.ambiguousOrigin,
      typicalOnly,
    };
    const mode = this.engine.speedMode(req.shortest, req.useTraffic, typicalOnly);
    if (req.departS !== undefined || req.arriveS === undefined) {
      const departS = req.departS ?? nowS;
      return { routes: this.engine.plan({ ...base, departS }), departS };
    }
    const arriveS = req.arriveS;
    // a future arrival never departs before now (the trip then arrives late); a past one may
    const earliest = typicalOnly ? -Infinity : nowS;
    // fixed-point iteration on the departure: dep = arrive − travelTime(dep), then back off
    let dep = Math.max(earliest, arriveS - 900);
    let routes = this.engine.plan({ ...base, departS: dep });
    for (let i = 0; i < 8; i++) {
      const tt = this.engine.costPath(routes[0].legs, dep, nowS, mode).totalS;
      const slack = arriveS - (dep + tt);
      if (slack >= 0 && slack < 30) break;
      let next = dep + slack - (slack < 0 ? 5 : 0);
      if (next < earliest) next = earliest;
      if (next === dep) break;
      dep = next;
      routes = this.engine.plan({ ...base, departS: dep });
    }
    return { routes, departS: dep };
  }

  /** FindRoute: plans, stores and assembles the trip. */
  async findRoute(req: FindRouteRequest): Promise<TripView> {
    this.checkTime(req.departS, 'DepartureTime');
    if (req.departS === undefined) this.checkTime(req.arriveS, 'ArrivalTime');
    await this.incidents.refresh(this.nowMs());
    const { routes, departS } = this.planTimed(req);
    const tripId = newId();
    const waypoints: TripWaypoint[] = req.waypoints.map((w) => ({
      lat: w.lat,
      lon: w.lon,
      ...(w.description !== undefined ? { description: w.description } : {}),
    }));
    const stored: StoredRoute[] = routes.map((r) => ({
      id: newId(),
      tripId,
      mapVersion: this.mapVersion,
      legs: r.legs,
      waypoints,
      shortest: req.shortest,
      useTraffic: req.useTraffic,
      criteria: req.criteria,
    }));
    const nowS = this.nowS();
    // written in the background; this process serves them from memory meanwhile
    this.routes.saveBehind(stored, nowS, this.cfg.routeTtlHours);
    const mode = this.modeAt(req.shortest, req.useTraffic, departS);
    const views = stored.map((s) =>
      assembleRoute(this.engine, s.id, s.legs, departS, nowS, mode, this.incidents.all(), req.output),
    );
    // Closure rule of the contract: the best route is searched with closed edges impassable, so it
    // is navigable whenever any navigable route exists; only when none does is it the best route
    // through the closures (hasClosures). Alternatives are searched the same way.
    return { tripId, wayPoints: tripWaypoints(waypoints, req.output), routes: views };
  }

  private async load(routeId: string): Promise<StoredRoute> {
    let r = await this.routes.find(routeId, this.nowS());
    if (!r && /^\d+$/.test(routeId)) {
      // another process may have answered the FindRoute a moment ago: its batch waits up to
      // routeWriteDelayMs (processes of one deployment share the setting), then the INSERT runs
      await new Promise((res) => setTimeout(res, this.cfg.routeWriteDelayMs + this.cfg.missRetryMs));
      r = await this.routes.find(routeId, this.nowS());
    }
    if (!r) throw new RoutingError('ROUTE_ID_NOT_FOUND', `route ${routeId} does not exist or has expired`, 'RouteId');
    if (r.mapVersion !== this.mapVersion)
      throw new RoutingError(
        'ROUTE_UNRETRIEVABLE',
        `route ${routeId} was planned on map ${r.mapVersion}, the server runs ${this.mapVersion}`,
        'RouteId',
      );
    return r;
  }

  /** Departure that arrives by `arriveS` on a fixed path (not before now for a future arrival). */
  private departureForArrival(legs: Leg[], arriveS: number, shortest: boolean, useTraffic: boolean): number {
    const nowS = this.nowS();
    const mode = this.modeAt(shortest, useTraffic, arriveS);
    let dep = arriveS - this.engine.costPath(legs, arriveS, nowS, mode).totalS;
    for (let i = 0; i < 6; i++) {
      const tt = this.engine.costPath(legs, dep, nowS, mode).totalS;
      const next = arriveS - tt;
      if (Math.abs(next - dep) < 1) {
        dep = Math.min(dep, next);
        break;
      }
      dep = next;
    }
    return this.isPast(arriveS) ? dep : Math.max(nowS, dep);
  }

  /** GetRoute: re-costs the stored path at the new departure (never re-optimises). */
  async getRoute(req: GetRouteRequest): Promise<TripView> {
    this.checkTime(req.departS, 'DepartureTime');
    if (req.departS === undefined) this.checkTime(req.arriveS, 'ArrivalTime');
    const r = await this.load(req.routeId);
    await this.incidents.refresh(this.nowMs());
    const shortest = req.shortest ?? r.shortest;
    const useTraffic = req.useTraffic ?? r.useTraffic;
    const departS =
      req.departS ??
      (req.arriveS !== undefined ? this.departureForArrival(r.legs, req.arriveS, shortest, useTraffic) : this.nowS());
    const view = assembleRoute(
      this.engine,
      r.id,
      r.legs,
      departS,
      this.nowS(),
      this.modeAt(shortest, useTraffic, departS),
      this.incidents.all(),
      req.output,
    );
    return { tripId: r.tripId, wayPoints: tripWaypoints(r.waypoints, req.output), routes: [view] };
  }

  /** GetRouteTravelTimes: the stored path costed at `count` departures `intervalMinutes` apart. */
  async getRouteTravelTimes(req: TravelTimesRequest): Promise<TravelTimesView> {
    this.checkTime(req.departS, 'DepartureTime');
    if (req.departS === undefined) this.checkTime(req.arriveS, 'ArrivalTime');
    const r = await this.load(req.routeId);
    await this.incidents.refresh(this.nowMs());
    const nowS = this.nowS();
    const stepS = req.intervalMinutes * 60;
    let starts: number[];
    if (req.departS !== undefined || req.arriveS === undefined) {
      const first = req.departS ?? nowS;
      starts = Array.from({ length: req.count }, (_, i) => first + i * stepS);
    } else {
      // arrivals counting back from ArrivalTime, reported in departure order
      starts = Array.from({ length: req.count }, (_, i) =>
        this.departureForArrival(r.legs, req.arriveS! - i * stepS, r.shortest, r.useTraffic),
      ).reverse();
    }
    if (starts[starts.length - 1] > horizonS(nowS)) {
      throw new RoutingError('BAD_TIME_RANGE', 'the series runs past the nine-month horizon', 'TravelTimeCount');
    }
    let uncongested = 0;
    const entries = starts.map((dep) => {
      // each departure on its own: past ones with typical speeds (abnormality 0), later ones current
      const t = routeTimes(this.engine, r.legs, dep, nowS, this.modeAt(r.shortest, r.useTraffic, dep));
      const trafficConsidered = t.trafficConsidered;
      uncongested = Math.round(t.freeFlowS / 60);
      const km = t.current.distanceM / 1000;
      const dist = req.units === 0 ? km / 1.609344 : km;
      const hours = t.current.totalS / 3600;
      return {
        departureTime: isoUtc(dep),
        // with closures the route is not drivable as planned: no travel time (spec, Route rule 2)
        travelTimeMinutes: t.hasClosures ? undefined : Math.round(t.current.totalS / 60),
        abnormalityMinutes: t.hasClosures
          ? undefined
          : !trafficConsidered
            ? 0
            : Math.round((t.current.totalS - t.typicalS) / 60),
        averageSpeed: t.hasClosures || hours <= 0 ? 0 : Math.round(dist / hours),
        routeHasClosures: t.hasClosures,
        routeRestricted: t.hasRestrictions,
      };
    });
    const wps = r.waypoints;
    return {
      tripId: r.tripId,
      origin: { lat: wps[0].lat, lon: wps[0].lon },
      destination: { lat: wps[wps.length - 1].lat, lon: wps[wps.length - 1].lon },
      route: {
        id: r.id,
        routeInstanceId: `${r.id}-${Math.floor(nowS)}`,
        uncongestedTravelTimeMinutes: uncongested,
        travelTimes: entries,
      },
    };
  }

  // ---- incidents (admin) ------------------------------------------------------------------

  /** Creates an incident; a point location is snapped to the nearest road (both directions unless a heading is given). */
  async createIncident(input: IncidentInput): Promise<Incident> {
    const g = this.engine.graph;
    let edges = input.edges ?? [];
    let lat = input.lat;
    let lon = input.lon;
    if (edges.length > 0) {
      for (const e of edges) {
        if (!Number.isInteger(e) || e < 0 || e >= g.edgeCount)
          throw new RoutingError('PARSE_FAILED', `edge ${e} does not exist (0..${g.edgeCount - 1})`, 'edges');
      }
      if (lat === undefined || lon === undefined) {
        const s = g.edgeGeomStart[edges[0]];
        lat = g.geomLatE7[s] / 1e7;
        lon = g.geomLonE7[s] / 1e7;
      }
    } else {
      if (lat === undefined || lon === undefined)
        throw new RoutingError('MISSING_PARAMETER', 'an incident needs lat/lon or edges', 'lat');
      const snaps = this.engine.locator.locate(lat, lon, 200, input.headingDeg);
      if (snaps.length === 0)
        throw new RoutingError('UNROUTABLE_WAYPOINT', 'no road within 200 m of the incident location', 'lat');
      edges = snaps.map((s) => s.edge);
    }
    const inc: NewIncident = {
      type: input.type,
      severity: input.severity,
      eventCode: input.eventCode ?? 0,
      lat,
      lon,
      edges,
      startS: input.startS,
      endS: input.endS,
      delayImpactMinutes: input.delayImpactMinutes,
      closure: input.closure,
      shortDescription: input.shortDescription,
      fullDescription: input.fullDescription,
    };
    const created = await this.incidentStore.create(inc);
    this.incidents.invalidate();
    return created;
  }

  /** Re-reads incidents now (another process changed them). */
  reloadIncidents(): Promise<void> {
    return this.incidents.reload(this.nowMs());
  }

  /** Incidents not ended (or all). */
  async listIncidents(all: boolean): Promise<Incident[]> {
    return all ? this.incidentStore.listAll() : this.incidentStore.listCurrent(this.nowS());
  }

  /** One incident or undefined. */
  async findIncident(id: number): Promise<Incident | undefined> {
    return this.incidentStore.find(id);
  }

  /** Deletes an incident; true when it existed. */
  async deleteIncident(id: number): Promise<boolean> {
    const ok = await this.incidentStore.delete(id);
    this.incidents.invalidate();
    return ok;
  }
}

function tripWaypoints(wps: TripWaypoint[], output: OutputOptions): TripView['wayPoints'] {
  if (!output.fields.has('W')) return undefined;
  return wps.map((w, i) => ({
    id: i + 1,
    lat: w.lat,
    lon: w.lon,
    ...(w.description !== undefined ? { description: w.description } : {}),
  }));
}
