/**
 * Where probe records go once parsed: a `ProbeSink` stores batches (idempotent by trace id and
 * timestamp) and processes what was stored (map matching, learned and live speeds, intersection
 * facts). Producers (the CLI's file ingestion, the NATS consumer, the simulator) talk to a sink and
 * never to the database directly, so the same producer works against the database (PostgreSQL, or
 * the embedded database when no server holds it) and through a running server.
 */
import type { Db } from '../store/db.js';
import type { Region } from '../network/region.js';
import type { ProbeRecord } from '../probes/ingest/records.js';
import { insertPings } from '../probes/ingest/ping-store.js';
import type { ProcessReport } from '../probes/pipeline.js';
import { processStored } from './ingestion/process-stored.js';

/** Counts of one stored batch. */
export interface StoreReport {
  /** pings newly stored */
  inserted: number;
  /** pings already stored (same trace id and timestamp) */
  duplicates: number;
}

/** What processing the stored pings did. */
export interface FlushReport extends ProcessReport {
  /** intersection facts rebuilt */
  facts: number;
}

/** A destination for probe records. */
export interface ProbeSink {
  /** where records go, for messages: "database" or "the server at http://…" */
  readonly via: string;
  /** whether `flush` reports matching progress (a server processes without telling) */
  readonly reportsProgress: boolean;
  /**
   * Stores a batch. Resolves once the pings are durably stored, so a broker message may be
   * acknowledged then; processing may happen later (`flush`).
   */
  store(records: readonly ProbeRecord[]): Promise<StoreReport>;
  /** Processes everything this sink stored and has not processed yet; resolves when done. */
  flush(onProgress?: (done: number, total: number) => void): Promise<FlushReport>;
  close(): Promise<void>;
}

/** A sink writing straight to a database this process may use (PostgreSQL, or an unowned data directory). */
export function directProbeSink(db: Db, region: Region, nowS: () => number = () => Date.now() / 1000): ProbeSink {
  const firstNewS = new Map<string, number>();
  return {
    via: 'the database',
    reportsProgress: true,
    async store(records) {
      const inserted = await insertPings(db, records, firstNewS, region.meta.mapVersion);
      return { inserted, duplicates: records.length - inserted };
    },
    async flush(onProgress) {
      const pending = new Map(firstNewS);
      firstNewS.clear();
      const done = await processStored(
        { db, region, nowS: nowS(), onMatchProgress: onProgress },
        [...pending.keys()],
        pending,
      );
      return { ...done.process, facts: done.facts.facts };
    },
    async close() {},
  };
}
