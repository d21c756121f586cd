/**
 * The demo's first-start traffic: simulate the previous local day on the demo region (fixed-time
 * signals, congestion, noisy GPS from a share of vehicles), feed the pings through the normal
 * ingestion → map matching → learned/live speeds path, and build the intersection facts, so that
 * routing shows learned traffic and analytics shows metrics out of the box.
 */
import { DateTime } from 'luxon';
import type { AppContext } from './context.js';
import { simulate, newStats } from '../sim/simulator.js';
import { ingestRecordsAndProcess } from '../probes/pipeline.js';
import { readTrajectories } from '../probes/traversal-store.js';
import { refreshFacts } from '../analytics/facts/store-facts.js';
import type { ProbeRecord } from '../probes/ingest/records.js';

/** Counts of a demo traffic run. */
export interface DemoTrafficSummary {
  vehicles: number;
  pings: number;
  trajectories: number;
  facts: number;
  /** first simulated instant, ISO date-time */
  from: string;
  to: string;
}

/** Options: which local day to simulate (default: yesterday) and the probe share. */
export interface DemoTrafficOptions {
  /** unix seconds of the start; default: local midnight of the previous day */
  startS?: number;
  durationS?: number;
  penetration?: number;
  seed?: number;
}

/** Runs the demo simulation through ingestion, matching, speeds and facts. */
export async function runDemoTraffic(ctx: AppContext, log: (line: string) => void = () => undefined, opts: DemoTrafficOptions = {}): Promise<DemoTrafficSummary> {
  const tz = ctx.region.meta.timeZone;
  const startS = opts.startS ?? DateTime.fromMillis(ctx.now(), { zone: tz }).startOf('day').minus({ days: 1 }).toSeconds();
  const durationS = opts.durationS ?? 24 * 3600;
  const stats = newStats();
  const source = simulate(ctx.region, { startS, durationS, penetration: opts.penetration ?? 0.25, intervalS: 5, seed: opts.seed ?? 7 }, stats);
  async function* records(): AsyncGenerator<ProbeRecord> {
    for await (const batch of source) yield* batch;
  }
  const deps = {
    db: ctx.db, graph: ctx.region.graph, mapVersion: ctx.region.meta.mapVersion, timeZone: tz,
    feeds: ctx.speeds, nowS: ctx.now() / 1000,
  };
  const { ingest, process } = await ingestRecordsAndProcess(deps, records());
  log(`  simulated ${stats.trips} trips (${stats.probeVehicles} probe vehicles), matched ${process.trajectories} trajectories`);
  const facts = await refreshFacts(ctx.db, ctx.region, (db) => readTrajectories(db, { sinceS: startS, untilS: startS + durationS }));
  return {
    vehicles: stats.probeVehicles, pings: ingest.inserted, trajectories: process.trajectories, facts: facts.facts,
    from: new Date(startS * 1000).toISOString(), to: new Date((startS + durationS) * 1000).toISOString(),
  };
}
