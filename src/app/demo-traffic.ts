/**
 * The demo's first-start traffic: the simulator's demo windows (the morning and evening peaks of
 * the last weekday whose evening peak has ended, and the minutes before now) are stored like any probe feed and processed by the same worker code as
 * every other door (map matching, traversals, learned and live speeds, intersection facts), so
 * that routing shows learned traffic and analytics shows metrics out of the box.
 */
import type { AppContext } from './context.js';
import { runDemoSimulation } from '../sim/demo-simulation.js';
import { directProbeSink } from './probe-sink.js';
import { storeAll } from './store-all.js';

/** Counts of a demo traffic run. */
export interface DemoTrafficSummary {
  vehicles: number;
  pings: number;
  trajectories: number;
  facts: number;
}

/** Runs the demo simulation through storing, then processing. */
export async function runDemoTraffic(
  ctx: AppContext,
  log: (line: string) => void = () => undefined,
): Promise<DemoTrafficSummary> {
  const sink = directProbeSink(ctx.db, ctx.region, ctx.config.store.databaseUrl || undefined, log);
  const reports = await runDemoSimulation({
    region: ctx.region,
    store: async (records) => storeAll(sink, records, 5000),
    nowS: ctx.now() / 1000,
    log: (m) => log(`  ${m}`),
  });
  const done = await sink.flush();
  return {
    vehicles: reports.reduce((n, r) => n + r.stats.probeVehicles, 0),
    pings: reports.reduce((n, r) => n + r.inserted, 0),
    trajectories: done.trajectories,
    facts: done.intersectionFacts,
  };
}
