/** Sending records to a probe sink in batches (the CLI, the simulator and the demo do). */
import type { ProbeRecord } from '../probes/ingest/records.js';
import type { ProbeSink } from './probe-sink.js';

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
