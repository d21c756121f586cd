/**
 * The demo's first-start traffic: the simulator's demo windows (the last weekday morning peak and
 * the minutes before now) go through the normal ingestion → map matching → learned/live speeds
 * path, then the intersection facts are built, so that routing shows learned traffic and
 * analytics shows metrics out of the box.
 */
import type { AppContext } from './context.js';
import { runDemoSimulation } from '../sim/demo-simulation.js';
import { refreshFactsBetween } from './facts-after-ingest.js';

/** Counts of a demo traffic run. */
export interface DemoTrafficSummary {
  vehicles: number;
  pings: number;
  trajectories: number;
  facts: number;
}

/** Runs the demo simulation through ingestion, matching, speeds and facts. */
export async function runDemoTraffic(
  ctx: AppContext,
  log: (line: string) => void = () => undefined,
): Promise<DemoTrafficSummary> {
  const reports = await runDemoSimulation({
    db: ctx.db,
    region: ctx.region,
    speeds: ctx.speeds,
    nowS: ctx.now() / 1000,
    log: (m) => log(`  ${m}`),
  });
  const sinceS = Math.min(...reports.map((r) => r.startS)) - 3600;
  const untilS = Math.max(...reports.map((r) => r.endS)) + 3600;
  const facts = await refreshFactsBetween(ctx.db, ctx.region, sinceS, untilS);
  return {
    vehicles: reports.reduce((n, r) => n + r.stats.probeVehicles, 0),
    pings: reports.reduce((n, r) => n + r.ingest.inserted, 0),
    trajectories: facts.trajectories,
    facts: facts.facts,
  };
}
