/**
 * One ingestion job: a request body (or file) in one of the probe formats → pings stored with
 * their pending marks → the traces processed (`processStored`). Runs wherever it is called: in the
 * ingestion thread for a server, in the caller's thread for tests and the CLI. Reads the body as a
 * stream, so memory stays bounded whatever its size.
 */
import type { Readable } from 'node:stream';
import type { Db } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import type { SpeedFeeds } from '../../traffic/feeds.js';
import { ingestRecords, readProbes, type IngestReport, type ReadProbesOptions } from '../../probes/ingest/ingest.js';
import { readPending } from '../../probes/ingest/pending.js';
import type { ParseIssue, ProbeFormatName, ProbeRecord } from '../../probes/ingest/records.js';
import { ProbeFormatError } from '../../probes/ingest/errors.js';
import type { MatchStateCache, ProcessReport } from '../../probes/pipeline.js';
import type { TraceMatcher } from '../../probes/match/matcher.js';
import { processStored } from './process-stored.js';
import { EarlyRounds, mergeRounds, type EarlyRound } from './early-rounds.js';

/** Formats a job accepts: the probe format names. */
export type JobFormat = ProbeFormatName;

/** What to ingest and how (crosses thread boundaries: plain data only). */
export interface IngestJobSpec {
  format: JobFormat;
  /** FCD: unix seconds of simulation time 0 */
  fcdStartS?: number;
  /** FCD: prefix of vehicle ids */
  tracePrefix?: string;
  /** CSV: explicit column mapping (`probeFormatFromRequest` parses the `columns` query parameter) */
  columns?: ReadProbesOptions['columns'];
  /** CSV: whether the first row is a header (default: detected) */
  header?: boolean;
  /** issues listed in the report (all are counted; default 1000) */
  maxIssues?: number;
  /**
   * store only: answer once the pings are stored; they are processed by a later
   * `process-pending` task, or by the ingestion thread's sweep when none comes
   */
  defer?: boolean;
}

/** What a job did (the body of `POST /v1/probes`'s answer). */
export interface IngestJobReport {
  /** pings in the body, well-formed or not */
  received: number;
  inserted: number;
  duplicates: number;
  malformed: number;
  /** malformed pings: array index (`json`) or line number */
  issues: Array<{ index?: number; line?: number; message: string }>;
  matched: ProcessReport;
  intersectionFacts: number;
  /** the `speeds` change announced (0 when no edge changed) */
  changeSeq: number;
}

/** A job refused for its input: `status` is the HTTP status, `code` the probes catalog code. */
export class IngestJobError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'IngestJobError';
  }
}

/** What a job runs against. */
export interface IngestJobDeps {
  db: Db;
  region: Region;
  nowS: number;
  /** feeds of this thread to update directly (omitted in the ingestion thread) */
  feeds?: SpeedFeeds;
  /** matching states kept between jobs */
  matchStates?: MatchStateCache;
  /** called between traces: a promise to wait for before the next (see `ProbePipelineDeps.pace`) */
  pace?: () => Promise<void> | undefined;
  /** pings stored per statement (default 5000) */
  batchSize?: number;
  /** traces an early round waits for (default `EARLY_MIN_TRACES`; see `early-rounds.ts`) */
  earlyMinTraces?: number;
  /** traces matched per chunk (see `ProbePipelineDeps.traceChunk`) */
  traceChunk?: number;
  /**
   * matches traces on another thread (see `ProbePipelineDeps.matchHelper`): used for bodies stored
   * in more than one batch (their early rounds and final round), never for a feed's post of one
   * batch, whose traces mostly go on from a matching state and which should not take a second
   * core from requests
   */
  matchHelper?: TraceMatcher;
}

/** Runs a job to the end; throws IngestJobError on a body that cannot be read at all. */
export async function runIngestJob(deps: IngestJobDeps, spec: IngestJobSpec, body: Readable): Promise<IngestJobReport> {
  const stored = await storeJobBody(deps, spec, body);
  return spec.defer ? deferredReport(stored) : (await processJobs(deps, [stored]))[0];
}

/** A job whose body is stored, before processing. */
export interface StoredJob {
  spec: IngestJobSpec;
  received: number;
  inserted: number;
  duplicates: number;
  malformed: number;
  issues: IngestJobReport['issues'];
  /** traces with new pings, and traces of this body that an earlier, failed batch left pending */
  traceIds: Set<string>;
  /** earliest new ping per trace (that no early round processed) */
  firstNewS: Map<string, number>;
  /** rounds that processed traces of the body while it was stored (`early-rounds.ts`) */
  early: EarlyRound[];
  /** batches the body was stored in (0 when processing is deferred: not counted) */
  batches: number;
}

/**
 * Reads a job's body and stores its pings (with their pending marks). Unless the job defers
 * processing, traces the body has moved on past are processed while the rest is stored (early
 * rounds); the job's `traceIds` and `firstNewS` are then what is left to process.
 */
export async function storeJobBody(deps: IngestJobDeps, spec: IngestJobSpec, body: Readable): Promise<StoredJob> {
  const maxIssues = spec.maxIssues ?? 1000;
  const mapVersion = deps.region.meta.mapVersion;
  const issues: ParseIssue[] = [];
  const counted = { count: 0, list: issues };
  const onIssue = (i: ParseIssue): void => {
    counted.count++;
    if (issues.length < maxIssues) issues.push(i);
  };
  const seen = new Set<string>();
  const track = async function* (
    records: AsyncIterable<ProbeRecord> | Iterable<ProbeRecord>,
  ): AsyncGenerator<ProbeRecord> {
    for await (const r of records) {
      seen.add(r.traceId);
      yield r;
    }
  };
  const records = readProbes(body, spec.format, onIssue, {
    fcdStartS: spec.fcdStartS,
    tracePrefix: spec.tracePrefix,
    columns: spec.columns,
    header: spec.header,
  });
  const early = spec.defer ? undefined : new EarlyRounds(deps, deps.earlyMinTraces);
  let batches = 0;
  const onBatchStored = (seen: ReadonlySet<string>, firstNew: ReadonlyMap<string, number>): void => {
    batches++;
    early?.batchStored(seen, firstNew);
  };
  let ingest: IngestReport;
  try {
    ingest = await ingestRecords(
      deps.db,
      track(records),
      { mapVersion, batchSize: deps.batchSize, onBatchStored: spec.defer ? undefined : onBatchStored },
      counted,
    );
  } catch (err) {
    await early?.finish();
    // A body that cannot be read as asked (a CSV speed column without a unit, a JSON body of the
    // wrong shape): readers say so before their first record, so nothing of it was stored.
    if (err instanceof ProbeFormatError) throw new IngestJobError(400, err.code, err.message);
    throw err;
  }
  const traceIds = new Set(ingest.touchedTraceIds);
  let firstNewS = ingest.firstNewS;
  const left = await early?.finish();
  if (left !== undefined && left.rounds.length > 0) {
    for (const id of left.done) traceIds.delete(id);
    firstNewS = new Map(left.waiting);
  }
  if (!spec.defer)
    for (const m of await readPending(
      deps.db,
      [...seen].filter((id) => !traceIds.has(id) && !left?.done.has(id)),
    ))
      traceIds.add(m.traceId);
  return {
    spec,
    received: ingest.parsed + counted.count,
    inserted: ingest.inserted,
    duplicates: ingest.duplicates,
    malformed: counted.count,
    issues: issueList(issues),
    traceIds,
    firstNewS,
    early: left?.rounds ?? [],
    batches,
  };
}

/** The report of a deferred job: stored, nothing processed yet. */
export function deferredReport(j: StoredJob): IngestJobReport {
  return {
    received: j.received,
    inserted: j.inserted,
    duplicates: j.duplicates,
    malformed: j.malformed,
    issues: j.issues,
    matched: { traces: 0, trajectories: 0, traversals: 0, unmatchedPings: 0, edgesUpdated: 0, liveEdges: 0 },
    intersectionFacts: 0,
    changeSeq: 0,
  };
}

/**
 * Processes stored jobs together: one round over the union of their traces (a trace in several
 * jobs is matched once). Each job's report has its own counts and the round's processing figures.
 */
export async function processJobs(deps: IngestJobDeps, jobs: readonly StoredJob[]): Promise<IngestJobReport[]> {
  const traceIds = new Set<string>();
  const firstNewS = new Map<string, number>();
  for (const j of jobs) {
    for (const id of j.traceIds) traceIds.add(id);
    for (const [id, s] of j.firstNewS) firstNewS.set(id, Math.min(s, firstNewS.get(id) ?? Infinity));
  }
  // the helper thread only for large bodies (see `IngestJobDeps.matchHelper`)
  const matchHelper = jobs.some((j) => j.batches > 1) ? deps.matchHelper : undefined;
  const final = await processStored({ ...deps, matchHelper }, [...traceIds], firstNewS);
  const early = jobs.flatMap((j) => j.early);
  const done =
    early.length === 0 ? final : await mergeRounds(deps, [...early, { traceIds: [...traceIds], report: final }]);
  return jobs.map((j) => ({
    received: j.received,
    inserted: j.inserted,
    duplicates: j.duplicates,
    malformed: j.malformed,
    issues: j.issues,
    matched: done.process,
    intersectionFacts: done.facts.facts,
    changeSeq: done.changeSeq,
  }));
}

/** Issues as reported: by array index for JSON bodies, by line otherwise. */
function issueList(issues: readonly ParseIssue[]): IngestJobReport['issues'] {
  return issues.map((i) =>
    i.index !== undefined ? { index: i.index, message: i.message } : { line: i.line, message: i.message },
  );
}
