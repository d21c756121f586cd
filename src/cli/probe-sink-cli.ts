/**
 * Where the CLI's probe records go: the one place that chooses the `ProbeSink` for `ingest
 * probes` (files and NATS) and `simulate` — the admin API of the server that owns the embedded
 * database while one runs, the database itself otherwise (PostgreSQL, or no server).
 */
import type { Region } from '../network/region.js';
import { directProbeSink, type FlushReport, type ProbeSink } from '../app/probe-sink.js';
import type { CliDeps } from './deps.js';
import { serverProbeSink } from './server-client.js';
import { startStep } from './progress.js';

export { storeAll, type StoreTotals } from '../app/store-all.js';

/** Runs `fn` with the probe sink of this CLI invocation and closes it afterwards. */
export async function withProbeSink<T>(deps: CliDeps, region: Region, fn: (sink: ProbeSink) => Promise<T>): Promise<T> {
  const server = await deps.server();
  if (server) {
    if (server.region !== region.meta.name) {
      throw new Error(
        `the server at ${server.url} serves region "${server.region}", not "${region.meta.name}": run the command with --region ${server.region}, or stop the server`,
      );
    }
    const sink = serverProbeSink(server);
    try {
      return await fn(sink);
    } finally {
      await sink.close();
    }
  }
  return deps.withDb(async (db) => {
    const sink = directProbeSink(db, region, deps.config().store.databaseUrl || undefined, (l) => console.error(l));
    try {
      return await fn(sink);
    } finally {
      await sink.close();
    }
  });
}

/** Waits for the processing of what a sink stored, with a step line while it runs. */
export async function processWithProgress(sink: ProbeSink): Promise<FlushReport> {
  const step = startStep(`matching, learned speeds and intersection facts (${sink.via})`);
  try {
    return await sink.flush();
  } finally {
    step.stop();
  }
}

/** The lines a command prints once its pings are processed. */
export function processedLines(proc: FlushReport, seconds: number): string[] {
  const lines = [
    `matched: ${proc.traces} traces → ${proc.trajectories} trajectories, ${proc.traversals} edge traversals, ${proc.unmatchedPings} pings off-road`,
    `speeds: these traces cover ${proc.edgesUpdated} edges, ${proc.liveEdges} with a live speed now (${seconds.toFixed(1)} s)`,
    `intersection facts: ${proc.intersectionFacts} from ${proc.trajectories} trajectories`,
  ];
  if (proc.pendingTraces > 0)
    lines.push(`${proc.pendingTraces} traces are still pending: no ingestion worker of the region is running`);
  return lines;
}
