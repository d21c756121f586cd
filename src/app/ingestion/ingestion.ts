/**
 * The ingestion role as the serving side sees it: submit a body, get the job's report; ask how
 * ingestion is doing (for `/healthz`). A server runs it in its own thread
 * (`ingestion-thread.ts`); tests and single-purpose tools run it in the caller's thread
 * (`inThreadIngestion`). Either way the same `runIngestJob` does the work.
 */
import type { Readable } from 'node:stream';
import { runIngestJob, type IngestJobDeps, type IngestJobReport, type IngestJobSpec } from './ingest-job.js';
import { MatchStateCache } from '../../probes/pipeline.js';
import { runTask, type IngestionTask, type ProcessPendingReport, type RefreshFactsReport } from './tasks.js';

/** The report type of a task. */
export type TaskReport<T extends IngestionTask> = T extends { kind: 'process-pending' }
  ? ProcessPendingReport
  : RefreshFactsReport;

/** How ingestion is doing. */
export interface IngestionStatus {
  /** `degraded` while ingestion fails (the reason says how) */
  state: 'ok' | 'degraded';
  reason?: string;
  /** jobs waiting and running */
  queued: number;
  running: number;
  /** traces stored but not processed yet, and the age of the oldest, seconds (when known) */
  pendingTraces?: number;
  oldestPendingS?: number;
  /** time the ingestion thread has waited for requests to be answered since it started, ms (`step-aside.ts`) */
  steppedAsideMs?: number;
}

/** The ingestion role. */
export interface Ingestion {
  /** Runs a job on `body`; rejects with IngestJobError for bodies that cannot be read at all. */
  submit(spec: IngestJobSpec, body: Readable): Promise<IngestJobReport>;
  /** Runs a task after the jobs already submitted. */
  run<T extends IngestionTask>(task: T): Promise<TaskReport<T>>;
  status(): IngestionStatus;
  close(): Promise<void>;
}

/** Ingestion on the caller's thread (tests, tools): jobs run one after another. */
export function inThreadIngestion(depsOf: () => IngestJobDeps): Ingestion {
  const matchStates = new MatchStateCache();
  const deps = (): IngestJobDeps => ({ matchStates, ...depsOf() });
  let tail: Promise<unknown> = Promise.resolve();
  let queued = 0;
  let running = 0;
  let lastError: string | undefined;
  const enqueue = <T>(fn: () => Promise<T>): Promise<T> => {
    queued++;
    const job = tail.then(async () => {
      queued--;
      running++;
      try {
        const r = await fn();
        lastError = undefined;
        return r;
      } catch (err) {
        if (!(err instanceof Error && err.name === 'IngestJobError'))
          lastError = err instanceof Error ? err.message : String(err);
        throw err;
      } finally {
        running--;
      }
    });
    tail = job.catch(() => undefined);
    return job;
  };
  return {
    submit: (spec, body) => enqueue(() => runIngestJob(deps(), spec, body)),
    run: <T extends IngestionTask>(task: T) => enqueue(() => runTask(deps(), task) as Promise<TaskReport<T>>),
    status() {
      return lastError === undefined
        ? { state: 'ok', queued, running }
        : { state: 'degraded', reason: `the last ingestion failed: ${lastError}`, queued, running };
    },
    async close() {
      await tail;
    },
  };
}
