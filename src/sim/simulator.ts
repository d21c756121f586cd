/**
 * A mesoscopic traffic simulator for demos and tests: trips between weighted origins and
 * destinations depart over a daily demand curve, choose the fastest route under current link
 * times, and move link by link. Link speed falls with recent inflow (BPR curve: v = v₀ / (1 +
 * 0.15 (q/C)⁴)), signalized nodes run fixed-time plans (stop at red, queues discharge at a
 * saturation headway per lane), stop signs cost a stop. A sample of vehicles (penetration)
 * reports GPS pings every `intervalS` (with noise): probe records for ingestion, deterministic for a seed.
 */
import FlatQueue from 'flatqueue';
import { type Graph, NodeFlag } from '../network/graph.js';
import type { Region } from '../network/region.js';
import { localParts } from '../time/index.js';
import type { ProbeRecord } from '../probes/ingest/records.js';
import { OdSampler, WEEKDAY_HOURLY_SHARE, WEEKEND_HOURLY_SHARE, isTripEndEdge } from './demand.js';
import { M_PER_DEG } from '../geo/index.js';
import { EdgeOffsets } from '../network/edge-offsets.js';
import { createRng, type Rng } from './prng.js';
import { type NodeBound, SimRouter } from './router.js';
import { exactBound, expectedNodeDelayS, STOP_SIGN_S } from './route-bound.js';
import { SignalPlans } from './signals.js';

/** Options of a simulation run. */
export interface SimulationOptions {
  /** unix seconds of the start */
  startS: number;
  durationS: number;
  /** share of vehicles that report pings, 0..1 */
  penetration: number;
  /** seconds between pings of a probe vehicle */
  intervalS?: number;
  /** GPS noise, standard deviation per axis, metres */
  noiseM?: number;
  seed?: number;
  /** trips per day (default: 2 per trip-end edge, at least 500) */
  tripsPerDay?: number;
  /** records per yielded batch */
  batchSize?: number;
  /** trace ids are `<prefix>-<seed>-<trip>` (default 'sim') */
  tracePrefix?: string;
  /** time zone of the demand curve (default: the region's) */
  timeZone?: string;
  /** stop everything at the end of the window (default: trips under way may finish, up to 1 h) */
  stopAtEnd?: boolean;
  /**
   * Exact distances over the drivable edges (`usable[e]` = 1) with weights `weightS` (s) to direct
   * each trip's route search; default: straight lines at the top speed. The same fastest routes
   * (up to ties), much faster on large regions after a build of seconds.
   */
  nodeDistance?: (graph: Region['graph'], usable: Uint8Array, weightS: Float64Array) => NodeBound;
}

/** Counters of a run, filled while it progresses. */
export interface SimulationStats {
  trips: number;
  /** trips that found a route */
  routedTrips: number;
  completedTrips: number;
  probeVehicles: number;
  pings: number;
  signalizedNodes: number;
  /** mean trip duration of completed trips, seconds */
  meanTripS: number;
  /** mean time spent waiting at signals and stop signs per completed trip, seconds */
  meanControlDelayS: number;
  /** simulated clock: unix seconds of the latest event handled (progress of a run) */
  nowS: number;
}

/** Saturation headway per lane at a signal stop line, seconds. */
const SAT_HEADWAY_S = 2.0;
/** Headway per lane at an uncontrolled node (merging), seconds. */
const FREE_HEADWAY_S = 1.2;
/** Window of the inflow estimate used for congestion, seconds. */
const FLOW_WINDOW_S = 300;

interface Vehicle {
  trip: number;
  route: number[];
  i: number;
  departS: number;
  enterS: number;
  /** time the vehicle reaches the stop line of its current edge */
  arriveS: number;
  /** km/h on the current edge */
  speedKph: number;
  probe: boolean;
  nextPingS: number;
  waitS: number;
  from: number;
  to: number;
}

/**
 * Runs a simulation, yielding batches of probe pings as they are produced.
 * @example
 * for await (const batch of simulate(region, { startS, durationS: 3 * 3600, penetration: 0.2 })) await insert(batch);
 */
export async function* simulate(
  region: Region,
  opts: SimulationOptions,
  stats: SimulationStats = newStats(),
): AsyncGenerator<ProbeRecord[]> {
  const run = new SimulationRun(region, checkedOptions(opts), stats);
  run.scheduleDepartures();
  while (run.events.length > 0) {
    const t = run.events.peekValue() as number;
    const id = run.events.pop() as number;
    if (t > run.hardStopS) break;
    run.handle(id, t);
    if (run.batch.length >= run.opts.batchSize) yield run.takeBatch();
  }
  if (run.batch.length > 0) yield run.takeBatch();
  run.finishStats();
}

/** Options with every default filled in. */
type RunOptions = Required<Omit<SimulationOptions, 'tripsPerDay' | 'timeZone' | 'nodeDistance'>> &
  Pick<SimulationOptions, 'tripsPerDay' | 'timeZone' | 'nodeDistance'>;

/** Checks the options and fills in the defaults. */
function checkedOptions(opts: SimulationOptions): RunOptions {
  if (!(opts.penetration >= 0 && opts.penetration <= 1)) throw new Error('penetration must be in 0..1');
  if (!(opts.durationS > 0)) throw new Error('durationS must be > 0');
  const intervalS = opts.intervalS ?? 5;
  if (!(intervalS > 0)) throw new Error('intervalS must be > 0');
  return {
    ...opts,
    intervalS,
    noiseM: opts.noiseM ?? 5,
    seed: opts.seed ?? 1,
    batchSize: opts.batchSize ?? 5000,
    tracePrefix: opts.tracePrefix ?? 'sim',
    stopAtEnd: opts.stopAtEnd ?? false,
  };
}

/**
 * Link state: free-flow speed, capacity, the decaying inflow estimate that slows a link down
 * (BPR), and when each approach's queue is next free.
 */
class Links {
  readonly freeKph: Float32Array;
  /** the top free-flow speed: no link runs faster (`speedAt`), the bound of the router's A* */
  readonly topKph: number;
  readonly queueFreeS: Float64Array;
  private readonly capacityVph: Float32Array;
  private readonly inflow: Float64Array;
  private readonly inflowAtS: Float64Array;

  constructor(g: Graph) {
    this.freeKph = new Float32Array(g.edgeCount);
    this.capacityVph = new Float32Array(g.edgeCount);
    this.inflow = new Float64Array(g.edgeCount);
    this.inflowAtS = new Float64Array(g.edgeCount);
    this.queueFreeS = new Float64Array(g.edgeCount);
    let topKph = 0;
    for (let e = 0; e < g.edgeCount; e++) {
      this.freeKph[e] = Math.max(8, g.edgeSpeedKph[e] * 0.95);
      const lanes = Math.max(1, g.edgeLanes[e]);
      this.capacityVph[e] = lanes * (g.edgeRoadClass[e] <= 1 ? 1900 : g.edgeRoadClass[e] <= 3 ? 900 : 600);
      if (this.freeKph[e] > topKph) topKph = this.freeKph[e];
    }
    this.topKph = topKph;
  }

  /** Speed on edge e at time t under its recent inflow, km/h (at least 5). */
  speedAt(e: number, t: number): number {
    const flowVph = this.inflow[e] * Math.exp(-(t - this.inflowAtS[e]) / FLOW_WINDOW_S) * (3600 / FLOW_WINDOW_S);
    const x = flowVph / this.capacityVph[e];
    return Math.max(5, this.freeKph[e] / (1 + 0.15 * x * x * x * x));
  }

  /** Counts one vehicle entering edge e at time t. */
  addInflow(e: number, t: number): void {
    this.inflow[e] = this.inflow[e] * Math.exp(-(t - this.inflowAtS[e]) / FLOW_WINDOW_S) + 1;
    this.inflowAtS[e] = t;
  }
}

/** The state of one run: links, signals, vehicles and their event queue, the pings not yet yielded. */
class SimulationRun {
  readonly events = new FlatQueue<number>();
  readonly hardStopS: number;
  batch: ProbeRecord[] = [];
  private readonly g: Graph;
  private readonly rng: Rng;
  private readonly signals: SignalPlans;
  private readonly geometry: EdgeOffsets;
  private readonly links: Links;
  private readonly router: SimRouter;
  private readonly vehicles: Vehicle[] = [];
  private readonly prefix: string;
  private readonly endS: number;
  private nowS: number;
  private tripTimeSum = 0;
  private waitSum = 0;

  constructor(
    private readonly region: Region,
    readonly opts: RunOptions,
    private readonly stats: SimulationStats,
  ) {
    const g = region.graph;
    this.g = g;
    this.rng = createRng(opts.seed);
    this.prefix = `${opts.tracePrefix}-${opts.seed}`;
    this.signals = new SignalPlans(g, this.rng);
    stats.signalizedNodes = this.signals.size;
    this.geometry = new EdgeOffsets(g);
    this.links = new Links(g);
    const nodeDistance = opts.nodeDistance;
    this.router = new SimRouter(
      g,
      this.links.topKph,
      nodeDistance === undefined ? undefined : exactBound(g, this.links.freeKph, this.signals, nodeDistance),
    );
    this.nowS = opts.startS;
    this.endS = opts.startS + opts.durationS;
    this.hardStopS = opts.stopAtEnd ? this.endS : this.endS + 3600;
  }

  /**
   * Departures over the demand curve (Poisson per local hour; the UTC offset of the start is used
   * for the whole run — a DST change inside a run shifts the curve by an hour).
   */
  scheduleDepartures(): void {
    const { g, opts, rng } = this;
    const od = new OdSampler(g);
    let tripEnds = 0;
    for (let e = 0; e < g.edgeCount; e++) if (isTripEndEdge(g, e)) tripEnds++;
    const tripsPerDay = opts.tripsPerDay ?? Math.max(500, 2 * tripEnds);
    const tz = opts.timeZone ?? this.region.meta.timeZone ?? 'UTC';
    const offsetS = localParts(opts.startS, tz).offsetMinutes * 60;
    const endS = this.endS;
    for (
      let hourStart = Math.floor((opts.startS + offsetS) / 3600) * 3600 - offsetS;
      hourStart < endS;
      hourStart += 3600
    ) {
      const local = new Date((hourStart + offsetS) * 1000);
      const dow = local.getUTCDay();
      const weekend = dow === 0 || dow === 6;
      const hour = local.getUTCHours();
      const share = (weekend ? WEEKEND_HOURLY_SHARE : WEEKDAY_HOURLY_SHARE)[hour];
      const from = Math.max(hourStart, opts.startS);
      const to = Math.min(hourStart + 3600, endS);
      const n = poisson(rng, tripsPerDay * share * ((to - from) / 3600));
      for (let k = 0; k < n; k++) {
        const [o, d] = od.pick(rng, hour, weekend);
        if (o === d) continue;
        const t = from + rng.next() * (to - from);
        const probe = rng.next() < opts.penetration;
        this.vehicles.push({
          trip: this.vehicles.length,
          route: [],
          i: -1,
          departS: t,
          enterS: t,
          arriveS: t,
          speedKph: 0,
          probe,
          nextPingS: t + rng.next() * opts.intervalS,
          waitS: 0,
          from: o,
          to: d,
        });
        this.events.push(this.vehicles.length - 1, t);
      }
    }
    this.stats.trips = this.vehicles.length;
  }

  /** Handles vehicle `id`'s event at time t: departure, arrival at its destination, or a node on its way. */
  handle(id: number, t: number): void {
    this.nowS = t;
    this.stats.nowS = t;
    const v = this.vehicles[id];
    if (v.i === -1) this.depart(id, v, t);
    else if (v.i === v.route.length - 1) this.arrive(v, t);
    else this.crossNode(id, v, t);
  }

  /** The pings collected so far; starts a new batch. */
  takeBatch(): ProbeRecord[] {
    const b = this.batch;
    this.batch = [];
    return b;
  }

  /** Fills in the means of the statistics at the end of the run. */
  finishStats(): void {
    const s = this.stats;
    s.meanTripS = s.completedTrips ? this.tripTimeSum / s.completedTrips : 0;
    s.meanControlDelayS = s.completedTrips ? this.waitSum / s.completedTrips : 0;
  }

  /** Routes the vehicle under the current link times and puts it on its first edge. */
  private depart(id: number, v: Vehicle, t: number): void {
    const { g, links, signals } = this;
    const timeOf = (e: number): number => (g.edgeLengthM[e] * 3.6) / links.speedAt(e, this.nowS);
    const nodeDelayS = (e: number): number => expectedNodeDelayS(g, signals, e);
    const route = this.router.route(v.from, v.to, timeOf, nodeDelayS);
    if (route === undefined) return;
    this.stats.routedTrips++;
    if (v.probe) this.stats.probeVehicles++;
    v.route = route;
    v.i = 0;
    this.enter(v, route[0], t);
    this.events.push(id, v.arriveS);
  }

  /** The vehicle reached the end of its last edge. */
  private arrive(v: Vehicle, t: number): void {
    if (v.probe) this.emit(v, v.route[v.i], t + 1e-6);
    this.stats.completedTrips++;
    this.tripTimeSum += t - v.departS;
    this.waitSum += v.waitS;
  }

  /** Node control: FIFO queue discharge per approach, then the signal (if any); then the next edge. */
  private crossNode(id: number, v: Vehicle, t: number): void {
    const { g, signals } = this;
    const e = v.route[v.i];
    const lanes = Math.max(1, g.edgeLanes[e]);
    const signalized = signals.phaseOfInEdge[e] !== 255;
    const stopSign = !signalized && (g.nodeFlags[g.edgeTarget[e]] & NodeFlag.stop) !== 0;
    let departS = Math.max(t + (stopSign ? STOP_SIGN_S : 0), this.links.queueFreeS[e]);
    if (signalized) departS = signals.nextGreenS(g, e, departS);
    this.links.queueFreeS[e] = departS + (signalized ? SAT_HEADWAY_S : stopSign ? STOP_SIGN_S : FREE_HEADWAY_S) / lanes;
    v.waitS += departS - t;
    if (v.probe) this.emit(v, e, departS);
    v.i++;
    this.enter(v, v.route[v.i], departS);
    this.events.push(id, v.arriveS);
  }

  /** Puts the vehicle on edge e at time t at the link's current speed. */
  private enter(v: Vehicle, e: number, t: number): void {
    this.links.addInflow(e, t);
    v.speedKph = this.links.speedAt(e, t);
    v.enterS = t;
    v.arriveS = t + (this.g.edgeLengthM[e] * 3.6) / v.speedKph;
  }

  /** Pings on edge e from the vehicle's next ping time up to untilS (moving, then waiting), with GPS noise. */
  private emit(v: Vehicle, e: number, untilS: number): void {
    const { g, opts, rng } = this;
    const len = g.edgeLengthM[e];
    const limitS = Math.min(untilS, this.hardStopS);
    for (; v.nextPingS < limitS; v.nextPingS += opts.intervalS) {
      const t = v.nextPingS;
      const moving = t < v.arriveS;
      const off = moving ? (len * (t - v.enterS)) / Math.max(1e-6, v.arriveS - v.enterS) : Math.max(0, len - 3);
      const [lat, lon] = this.geometry.pointAt(e, off);
      const dy = rng.normal() * opts.noiseM;
      const dx = rng.normal() * opts.noiseM;
      this.batch.push({
        traceId: `${this.prefix}-${v.trip}`,
        ping: {
          tS: Math.round(t * 1000) / 1000,
          lat: lat + dy / M_PER_DEG,
          lon: lon + dx / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)),
          speedKph: moving ? Math.round(v.speedKph * 10) / 10 : 0,
          headingDeg: Math.round(g.edgeBearingOut[e]) % 360,
        },
      });
      this.stats.pings++;
    }
  }
}

/** Fresh zeroed statistics. */
export function newStats(): SimulationStats {
  return {
    trips: 0,
    routedTrips: 0,
    completedTrips: 0,
    probeVehicles: 0,
    pings: 0,
    signalizedNodes: 0,
    meanTripS: 0,
    meanControlDelayS: 0,
    nowS: 0,
  };
}

/** Poisson-distributed count with mean `lambda` (normal approximation above 50). */
function poisson(rng: Rng, lambda: number): number {
  if (lambda <= 0) return 0;
  if (lambda > 50) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * rng.normal()));
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= rng.next();
  } while (p > l);
  return k - 1;
}
