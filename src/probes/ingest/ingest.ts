/**
 * The ingestion path shared by the CLI, the HTTP endpoint and the simulator: parse a stream in
 * the given format (`readProbes`), persist pings in batches (idempotent), count and report
 * malformed rows.
 */
import type { Readable } from 'node:stream';
import type { Db } from '../../store/db.js';
import { readCsvProbes, type CsvOptions } from './csv.js';
import { readFcdProbes } from './fcd.js';
import { readJsonProbes } from './json.js';
import { readNdjsonProbes } from './ndjson.js';
import { insertPings } from './ping-store.js';
import { latestRefs, notifyStored, type PendingRef } from './pending.js';
import {
  probeFormatFromName,
  type ParseIssue,
  type ProbeFormat,
  type ProbeFormatName,
  type ProbeRecord,
} from './records.js';

/** Options of the readers (each format reads its own). */
export interface ReadProbesOptions extends CsvOptions {
  /** unix seconds of SUMO simulation time 0 (FCD only; default 2026-01-05T00:00:00Z, a Monday) */
  fcdStartS?: number;
  /** prefix for FCD vehicle ids */
  tracePrefix?: string;
}

/** Options of `ingestProbeStream`. */
export interface IngestOptions extends ReadProbesOptions {
  format: ProbeFormatName;
  /** pings per INSERT (default 5000) */
  batchSize?: number;
  /** name of the region the pings belong to (part of their identity) */
  region: string;
  /** at most this many issues are kept in the report (all are counted; default 1000) */
  maxIssues?: number;
  /** called after each batch with running totals */
  onProgress?: (p: { parsed: number; inserted: number; malformed: number; bytesRead?: number }) => void;
}

/** What an ingestion did. */
export interface IngestReport {
  /** well-formed pings read */
  parsed: number;
  /** pings newly stored (parsed − duplicates) */
  inserted: number;
  /** pings already stored (same trace id and timestamp) */
  duplicates: number;
  /** malformed rows (all counted, first `maxIssues` listed in `issues`) */
  malformed: number;
  issues: ParseIssue[];
  /** every trace id read */
  traceIds: string[];
  /** trace ids that received new pings */
  touchedTraceIds: string[];
  /** the pending marks the pings left, newest per trace: processed once `pendingLeft` says 0 */
  refs: PendingRef[];
}

/** Default unix time of SUMO simulation second 0: Monday 2026-01-05 00:00 UTC. */
export const DEFAULT_FCD_START_S = Date.UTC(2026, 0, 5) / 1000;

/**
 * Reads probe records of any supported format from a stream, one at a time (memory stays bounded
 * whatever the input size). Keeps no state outside the generator, so it runs on any thread.
 * Malformed rows go to `onIssue`; an input that cannot be read as a whole (CSV header, column
 * mapping, JSON shape) throws `ProbeFormatError` before the first record.
 * @example
 * for await (const r of readProbes(createReadStream('pings.csv'), 'csv', console.warn, { columns: 'speed=v:mps' })) batch.push(r);
 */
export function readProbes(
  input: Readable,
  format: ProbeFormatName,
  onIssue: (i: ParseIssue) => void,
  opts: ReadProbesOptions = {},
): AsyncGenerator<ProbeRecord> {
  const f = probeFormatFromName(format);
  switch (f) {
    case 'csv':
      return readCsvProbes(input, onIssue, opts);
    case 'json':
      return readJsonProbes(input, onIssue);
    case 'ndjson':
      return readNdjsonProbes(input, onIssue);
    case 'fcd':
      return readFcdProbes(input, onIssue, {
        startS: opts.fcdStartS ?? DEFAULT_FCD_START_S,
        tracePrefix: opts.tracePrefix,
      });
    case undefined:
      throw new Error(`unknown probe format "${format}" (json, ndjson, csv, fcd)`);
  }
}

/** Guesses the format from a file name: .csv, .json, .ndjson/.jsonl, .xml (SUMO FCD); a trailing .gz is ignored. */
export function formatFromFileName(name: string): ProbeFormat | undefined {
  const n = name.toLowerCase().replace(/\.gz$/, '');
  if (n.endsWith('.csv')) return 'csv';
  if (n.endsWith('.json')) return 'json';
  if (n.endsWith('.jsonl') || n.endsWith('.ndjson')) return 'ndjson';
  if (n.endsWith('.xml')) return 'fcd';
  return undefined;
}

/**
 * Stores probe records of `opts.region` in `probe_pings`, in batches, each with the pending marks
 * of its traces, and wakes the ingestion workers after each batch. Malformed rows never abort the
 * run. Works on any AsyncIterable of records, so generated pings take the same path as files.
 */
export async function ingestRecords(
  db: Db,
  records: AsyncIterable<ProbeRecord> | Iterable<ProbeRecord>,
  opts: Omit<IngestOptions, 'format'>,
  issuesSoFar?: { count: number; list: ParseIssue[] },
): Promise<IngestReport> {
  const batchSize = opts.batchSize ?? 5000;
  const touched = new Set<string>();
  const seen = new Set<string>();
  const refs: PendingRef[] = [];
  const issues = issuesSoFar ?? { count: 0, list: [] };
  let parsed = 0;
  let inserted = 0;
  let batch: ProbeRecord[] = [];
  // one batch is stored while the next is parsed; batches are stored one at a time, in order
  let storing: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const b = batch;
    batch = [];
    await storing;
    const parsedSoFar = parsed;
    storing = insertPings(db, opts.region, b).then(async (r) => {
      inserted += r.inserted;
      for (const id of r.firstNewS.keys()) touched.add(id);
      for (const m of r.marks) refs.push(m);
      if (r.inserted > 0) await notifyStored(db, opts.region);
      opts.onProgress?.({ parsed: parsedSoFar, inserted, malformed: issues.count });
    });
    // a failure is thrown where `storing` is awaited, not reported as unhandled meanwhile
    storing.catch(() => undefined);
  };
  try {
    for await (const r of records) {
      parsed++;
      seen.add(r.traceId);
      batch.push(r);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
  } catch (err) {
    // the body failed: the batch being stored ends first (what it stored stays pending)
    await storing?.catch(() => undefined);
    throw err;
  }
  await storing;
  return {
    parsed,
    inserted,
    duplicates: parsed - inserted,
    malformed: issues.count,
    issues: issues.list,
    traceIds: [...seen],
    touchedTraceIds: [...touched],
    refs: latestRefs(refs),
  };
}

/**
 * Ingests a stream (file, request body, stdin) in the given format.
 * @example
 * const report = await ingestProbeStream(db, createReadStream('pings.csv'), { format: 'csv' });
 */
export async function ingestProbeStream(db: Db, input: Readable, opts: IngestOptions): Promise<IngestReport> {
  const maxIssues = opts.maxIssues ?? 1000;
  const issues = { count: 0, list: [] as ParseIssue[] };
  const onIssue = (i: ParseIssue): void => {
    issues.count++;
    if (issues.list.length < maxIssues) issues.list.push(i);
  };
  const records = readProbes(input, opts.format, onIssue, opts);
  return ingestRecords(db, records, opts, issues);
}
