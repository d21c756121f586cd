/**
 * Where the CLI's probe records go: the one place that chooses the `ProbeSink` for `ingest
 * probes` (files and NATS) and `simulate` — the admin API of the server that owns the embedded
 * database while one runs, the database itself otherwise (PostgreSQL, or no server).
 */
import type { Region } from '../network/region.js';
import type { ProbeRecord } from '../probes/ingest/records.js';
import { directProbeSink, type FlushReport, type ProbeSink } from '../app/probe-sink.js';
import type { CliDeps } from './deps.js';
import { serverProbeSink } from './server-client.js';
import { createProgress, startStep } from './progress.js';

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
    const sink = directProbeSink(db, region);
    try {
      return await fn(sink);
    } finally {
      await sink.close();
    }
  });
}

/** Counts of records sent to a sink. */
export interface StoreTotals {
  /** records read */
  read: number;
  inserted: number;
  duplicates: number;
}

/**
 * Sends records to a sink in batches of `batchSize`, calling `onBatch` after each stored batch.
 * Resolves when the last batch is stored.
 */
export async function storeAll(
  sink: ProbeSink,
  records: AsyncIterable<ProbeRecord> | Iterable<ProbeRecord>,
  batchSize: number,
  onBatch?: (t: StoreTotals) => void,
): Promise<StoreTotals> {
  const totals: StoreTotals = { read: 0, inserted: 0, duplicates: 0 };
  let batch: ProbeRecord[] = [];
  const send = async (): Promise<void> => {
    if (batch.length === 0) return;
    const r = await sink.store(batch);
    totals.inserted += r.inserted;
    totals.duplicates += r.duplicates;
    batch = [];
    onBatch?.(totals);
  };
  for await (const r of records) {
    totals.read++;
    batch.push(r);
    if (batch.length >= batchSize) await send();
  }
  await send();
  return totals;
}

/** Runs a flush with a progress bar over traces matched, then a step line while speeds and facts are computed. */
export async function processWithProgress(sink: ProbeSink): Promise<FlushReport> {
  if (!sink.reportsProgress) {
    const step = startStep(`matching, learned speeds and intersection facts on ${sink.via}`);
    try {
      return await sink.flush();
    } finally {
      step.stop();
    }
  }
  const bar = createProgress('match', 'traces');
  let step: ReturnType<typeof startStep> | undefined;
  try {
    return await sink.flush((done, total) => {
      bar.update(done, total);
      if (done >= total && step === undefined) {
        bar.stop();
        step = startStep('learned speeds and intersection facts');
      }
    });
  } finally {
    if (step !== undefined) step.stop();
    else bar.stop();
  }
}
