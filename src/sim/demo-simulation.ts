/**
 * The demo's first-start simulation: the morning and evening peaks of the most recent weekdays,
 * with demand that congests the city's arterials and signals (so routing has learned congestion to
 * route around and analytics shows levels of service down to D–F), plus the minutes just before
 * now (so live speeds exist). The pings of each window go to `store` (the application stores them like any
 * other door; their processing follows).
 */
import type { Region } from '../network/region.js';
import { localParts, parseIsoToUnixS } from '../time/index.js';
import type { ProbeRecord } from '../probes/ingest/records.js';
import { newStats, simulate, type SimulationOptions, type SimulationStats } from './simulator.js';

/** Stores a window's pings; resolves with how many were new. */
export type StoreRecords = (records: AsyncIterable<ProbeRecord>) => Promise<{ inserted: number }>;

/** What the demo simulation needs from the application. */
export interface DemoSimulationDeps {
  region: Region;
  /** where the pings go */
  store: StoreRecords;
  /** wall clock, unix seconds */
  nowS: number;
  log?: (message: string) => void;
}

/** Tunables of the demo simulation. */
export interface DemoSimulationOptions {
  /** length of the morning-peak window, hours (default 3: 06:30–09:30 local) */
  peakHours?: number;
  /** length of the evening-peak window, hours (default 2: 16:30–18:30 local; 0: none) */
  eveningHours?: number;
  /** demand of the peak windows as a multiple of the daily default (default `PEAK_DEMAND_FACTOR`) */
  peakDemandFactor?: number;
  /** share of the peak windows' vehicles reporting pings (default `PEAK_PENETRATION`) */
  peakPenetration?: number;
  /** length of the window just before now, minutes (default 20) */
  recentMinutes?: number;
  /** share of vehicles reporting pings in the window before now (default 0.15) */
  penetration?: number;
  /** seconds between pings (default 5) */
  intervalS?: number;
  seed?: number;
  /** trips per day; default from the road length (see `defaultTripsPerDay`) */
  tripsPerDay?: number;
}

/** Result of one window of the demo simulation. */
export interface DemoWindowReport {
  startS: number;
  endS: number;
  stats: SimulationStats;
  /** pings newly stored */
  inserted: number;
}

/**
 * Default demand: 400 trips per day per kilometre of directed road where trips can start, capped
 * to 500..50 000 (enough to congest arterials of the demo city at the peaks).
 */
export function defaultTripsPerDay(region: Region): number {
  const g = region.graph;
  let km = 0;
  for (let e = 0; e < g.edgeCount; e++) km += g.edgeLengthM[e] / 1000;
  return Math.round(Math.min(50_000, Math.max(500, 400 * km)));
}

/**
 * Demand of the demo's peak windows as a multiple of `defaultTripsPerDay`: enough for queues at
 * the downtown signals and slow arterials at 08:00 and 17:00 (measured on the demo city,
 * docs/demo.md), while the first start stays within about half a minute.
 */
export const PEAK_DEMAND_FACTOR = 2.5;
/**
 * Share of the peak windows' vehicles reporting pings: the demand is three times the default, so
 * a fifth of the default share keeps the pings (and the first start's processing time) near
 * twice those of an uncongested morning while every street still gets samples.
 */
export const PEAK_PENETRATION = 0.025;

/** Unix seconds of `startTime` (HH:MM:SS, default 06:30) local on the most recent weekday whose window of `hours` ended before `nowS`. */
export function lastWeekdayPeakStartS(nowS: number, tz: string, hours: number, startTime = '06:30:00'): number {
  for (let d = 0; d < 10; d++) {
    const p = localParts(nowS - d * 86400, tz);
    if (p.dayOfWeek > 5) continue;
    const iso = `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}T${startTime}`;
    const s = parseIsoToUnixS(iso, tz);
    if (s !== undefined && s + hours * 3600 <= nowS) return s;
  }
  throw new Error('no weekday found in the last 10 days');
}

/**
 * Unix seconds of both peaks of one weekday, the most recent whose evening window (`eveningHours`
 * from 16:30) ended before `nowS`: its morning (06:30) and evening (16:30) starts, so the morning
 * and evening a user sees are always of the same day, whatever the hour of the start.
 */
export function lastWeekdayPeaksS(
  nowS: number,
  tz: string,
  eveningHours: number,
): { morningS: number; eveningS: number } {
  const eveningS = lastWeekdayPeakStartS(nowS, tz, eveningHours, '16:30:00');
  const p = localParts(eveningS, tz);
  const morningS = parseIsoToUnixS(
    `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}T06:30:00`,
    tz,
  );
  if (morningS === undefined) throw new Error('no 06:30 on the evening peak day');
  return { morningS, eveningS };
}

/** Runs one simulated window into `deps.store`. */
export async function simulateWindow(deps: DemoSimulationDeps, opts: SimulationOptions): Promise<DemoWindowReport> {
  const stats = newStats();
  async function* records(): AsyncGenerator<ProbeRecord> {
    for await (const batch of simulate(deps.region, opts, stats)) yield* batch;
  }
  const { inserted } = await deps.store(records());
  return { startS: opts.startS, endS: opts.startS + opts.durationS, stats, inserted };
}

/**
 * Simulates the morning and evening peaks of the last weekday whose evening peak has ended, and the
 * minutes before now, on the region and stores
 * the pings. Idempotent: a rerun with the same clock and seed stores nothing new.
 * @example
 * await runDemoSimulation({ region, store: (r) => ingestRecords(db, r, { region: 'demo' }), nowS: Date.now() / 1000 });
 */
export async function runDemoSimulation(
  deps: DemoSimulationDeps,
  options: DemoSimulationOptions = {},
): Promise<DemoWindowReport[]> {
  const log = deps.log ?? ((): void => undefined);
  const tz = deps.region.meta.timeZone || 'UTC';
  const peakHours = options.peakHours ?? 3;
  const eveningHours = options.eveningHours ?? 2;
  const baseTrips = options.tripsPerDay ?? defaultTripsPerDay(deps.region);
  const peakTrips = Math.round(baseTrips * (options.peakDemandFactor ?? PEAK_DEMAND_FACTOR));
  const common = {
    penetration: options.penetration ?? 0.15,
    intervalS: options.intervalS ?? 5,
    noiseM: 5,
    seed: options.seed ?? 42,
    tripsPerDay: baseTrips,
    tracePrefix: 'demo',
  };
  const peak = { tripsPerDay: peakTrips, penetration: options.peakPenetration ?? PEAK_PENETRATION };
  // both peaks of one weekday (the evening's 2 h by default fix the day, also when there is no evening window)
  const day = lastWeekdayPeaksS(deps.nowS, tz, eveningHours > 0 ? eveningHours : 2);
  const windows: Array<{
    startS: number;
    durationS: number;
    seed: number;
    stopAtEnd?: boolean;
    tripsPerDay?: number;
    penetration?: number;
  }> = [
    {
      startS: day.morningS,
      durationS: peakHours * 3600,
      seed: common.seed,
      ...peak,
    },
  ];
  const recentS = (options.recentMinutes ?? 20) * 60;
  // The recent window is aligned to whole minutes so that a restart within the minute reproduces it.
  if (recentS > 0)
    windows.push({
      startS: Math.floor((deps.nowS - recentS) / 60) * 60,
      durationS: recentS,
      seed: common.seed + 1,
      stopAtEnd: true,
    });
  if (eveningHours > 0)
    windows.push({
      startS: day.eveningS,
      durationS: eveningHours * 3600,
      seed: common.seed + 2,
      ...peak,
    });
  const reports: DemoWindowReport[] = [];
  for (const w of windows) {
    const t0 = Date.now();
    const r = await simulateWindow(deps, { ...common, ...w });
    reports.push(r);
    log(
      `demo traffic: ${new Date(w.startS * 1000).toISOString()} +${Math.round(w.durationS / 60)} min: ${r.stats.routedTrips} trips, ` +
        `${r.stats.probeVehicles} probe vehicles, ${r.inserted} pings stored (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
  }
  return reports;
}
