/**
 * Where probe records go once parsed: a `ProbeSink` stores batches (idempotent by region, trace id
 * and timestamp) and, on `flush`, waits until what it stored is processed. Producers (the CLI's
 * file ingestion, the NATS consumer, the simulator) talk to a sink and never to the database
 * directly, so the same producer works against the database (PostgreSQL, or the embedded database
 * when no server holds it) and through a running server.
 */
import type { Db } from '../store/db.js';
import type { Region } from '../network/region.js';
import { ingestRecords } from '../probes/ingest/ingest.js';
import { pendingRefsOf } from '../probes/ingest/pending.js';
import type { ProbeRecord } from '../probes/ingest/records.js';
import { processHere, summarizeTraces, waitProcessed, workersOf, type TracesSummary } from './ingestion/intake.js';

/** Counts of one stored batch. */
export interface StoreReport {
  /** pings newly stored */
  inserted: number;
  /** pings already stored (same trace id and timestamp) */
  duplicates: number;
}

/** What is stored for the sink's traces once processed, and how many are still pending. */
export interface FlushReport extends TracesSummary {
  /** traces still waiting for a worker (none is alive, or it took too long) */
  pendingTraces: number;
}

/** A destination for probe records. */
export interface ProbeSink {
  /** where records go, for messages: "the database" or "the server at http://…" */
  readonly via: string;
  /**
   * Stores a batch. Resolves once the pings are durably stored, so a broker message may be
   * acknowledged then; processing happens on the owners of the traces.
   */
  store(records: readonly ProbeRecord[]): Promise<StoreReport>;
  /** Waits until everything this sink stored is processed (processing it here when nobody would). */
  flush(): Promise<FlushReport>;
  close(): Promise<void>;
}

/**
 * A sink writing straight to a database this process may use: PostgreSQL at `databaseUrl`, or an
 * embedded database no server holds (then this process is its only worker).
 */
export function directProbeSink(
  db: Db,
  region: Region,
  databaseUrl: string | undefined,
  log?: (line: string) => void,
): ProbeSink {
  const name = region.meta.name;
  const touched = new Set<string>();
  const src = { db, region: name, databaseUrl };
  return {
    via: 'the database',
    async store(records) {
      const r = await ingestRecords(db, records, { region: name });
      for (const id of r.traceIds) touched.add(id);
      return { inserted: r.inserted, duplicates: r.duplicates };
    },
    async flush() {
      const traces = [...touched];
      touched.clear();
      const mine = await pendingRefsOf(db, name, traces);
      // nobody else processes: the embedded database's only process, or PostgreSQL without a worker
      const workers = workersOf(src, 0);
      let left = await waitProcessed(db, name, mine, { workers });
      if (left > 0 && (await workers()) === 0) {
        await processHere({ ...src, graphRegion: region }, log);
        left = await waitProcessed(db, name, mine, { workers, maxWaitMs: 0 });
      }
      return { ...(await summarizeTraces(db, region, traces, Date.now() / 1000)), pendingTraces: left };
    },
    async close() {},
  };
}
