/**
 * The ingestion thread (see `ingestion-thread.ts` for the port protocol): loads the region,
 * connects to the database, and works through its queue: jobs waiting together share one
 * processing round (each body is stored, then every trace they touched is matched once), tasks
 * run in turn, and a periodic sweep processes traces that an interrupted or failed batch left
 * pending. Matching states of growing traces are kept between rounds. It runs at a lower CPU priority than the serving
 * threads (Linux nice values are per thread), so a feed never takes the cores from requests.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { BACKGROUND_NICE } from '../helper-threads.js';
import { Readable } from 'node:stream';
import { loadRegion, readGraphShared } from '../../network/bundle.js';
import type { Region } from '../../network/region.js';
import type { Db } from '../../store/db.js';
import { openPostgres } from '../../store/postgres-db.js';
import { remoteDb } from '../../store/remote-db.js';
import { listStalePending, pendingBacklog } from '../../probes/ingest/pending.js';
import {
  IngestJobError,
  deferredReport,
  processJobs,
  storeJobBody,
  type IngestJobSpec,
  type StoredJob,
} from './ingest-job.js';
import { processStored } from './process-stored.js';
import { MatchStateCache } from '../../probes/pipeline.js';
import { runTask, type IngestionTask } from './tasks.js';
import { StepAside, steppingAside } from './step-aside.js';
import { MatchThread } from './match-thread.js';
import type { IngestionWorkerData } from './ingestion-thread.js';

/** Pending marks older than this belong to no running batch, seconds. */
const STALE_PENDING_S = 30;
/** Traces processed per sweep. */
const SWEEP_TRACES = 1000;
/** How often the backlog is reported, ms. */
const STATUS_MS = 2000;

const data = workerData as IngestionWorkerData;
const port = parentPort!;
try {
  setPriority(BACKGROUND_NICE);
} catch {
  /* not permitted here: run at normal priority */
}

/** steps aside while the serving threads answer a request: before each statement and each trace */
const aside = new StepAside(data.requestGauge);
const pace = (): Promise<void> | undefined => (aside.busy() ? aside.pause() : undefined);
let region: Region;
let db: Db;
/** matches the traces of large bodies beside this thread (started on first use) */
let matchHelper: MatchThread;
try {
  // the graph in shared memory: the matching helper thread uses the same bytes
  const graphBytes = readGraphShared(data.regionDir);
  region = loadRegion(data.regionDir, { graphBytes });
  matchHelper = new MatchThread({ graphBytes, requestGauge: data.requestGauge });
  db = steppingAside(data.dbPort ? remoteDb(data.dbPort) : await openPostgres(data.databaseUrl!, { max: 4 }), aside);
} catch (err) {
  throw new Error(`ingestion thread could not start: ${(err as Error).message}`);
}

/** matching states of recently processed traces: a growing trace is matched only over its new pings */
const matchStates = new MatchStateCache();
let closing = false;
let sweepError: string | undefined;

/** Work waiting for this thread, in arrival order. */
/** Where a job's or task's answer goes: the main thread, or a serving thread's port. */
type Client = Pick<MessagePort, 'postMessage'>;
type Work =
  | { kind: 'job'; id: number; spec: IngestJobSpec; port: MessagePort; client: Client }
  | { kind: 'task'; id: number; task: IngestionTask; client: Client }
  | { kind: 'sweep' };
/** Every endpoint that hears status reports. */
const clients = new Set<Client>([port]);
const queue: Work[] = [];
let draining: Promise<void> | null = null;

/** Queues work; jobs never overlap with each other, tasks or sweeps. */
function push(w: Work): void {
  queue.push(w);
  draining ??= drain();
}

async function drain(): Promise<void> {
  try {
    await drainQueue();
  } finally {
    draining = null;
    if (queue.length > 0) draining = drain();
  }
}

async function drainQueue(): Promise<void> {
  while (queue.length > 0) {
    const w = queue.shift()!;
    if (w.kind === 'job') {
      // jobs queued right behind it share its processing round (each trace is matched once)
      const round = [w];
      while (queue.length > 0 && queue[0].kind === 'job' && round.length < MAX_ROUND_JOBS)
        round.push(queue.shift() as typeof w);
      await runRound(round);
    } else if (w.kind === 'task') {
      try {
        w.client.postMessage({ t: 'done', id: w.id, report: await runTask(deps(), w.task) });
      } catch (err) {
        w.client.postMessage({ t: 'error', id: w.id, error: errorOf(err) });
      }
    } else {
      await sweep();
    }
  }
}

/** A Readable fed by a body port, asking the other side for more as it is read. */
function bodyFrom(bodyPort: MessagePort): Readable {
  const body = new Readable({
    read() {
      bodyPort.postMessage({ t: 'more' });
    },
  });
  bodyPort.on(
    'message',
    (
      m:
        | { t: 'data'; chunk: Uint8Array }
        | { t: 'end' }
        | { t: 'abort'; message: string; status?: number; code?: string },
    ) => {
      if (m.t === 'data') body.push(Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength));
      else if (m.t === 'end') body.push(null);
      else
        body.destroy(
          m.status !== undefined
            ? new IngestJobError(m.status, m.code ?? 'PROBES_BAD_REQUEST', m.message)
            : new Error(`the request body was cut off: ${m.message}`),
        );
    },
  );
  return body;
}

/** Jobs processed in one round at most. */
const MAX_ROUND_JOBS = 32;

function deps(): {
  db: Db;
  region: Region;
  nowS: number;
  matchStates: MatchStateCache;
  pace: typeof pace;
  matchHelper: MatchThread;
} {
  return { db, region, nowS: Date.now() / 1000, matchStates, pace, matchHelper };
}

function errorOf(err: unknown): { name: string; message: string; status?: number; code?: string } {
  const e = err as Error & { status?: number; code?: string };
  return { name: e.name, message: e.message, status: e.status, code: e.code };
}

/** Stores each job's body, then processes all of them in one round and answers each. */
async function runRound(
  round: Array<{ id: number; spec: IngestJobSpec; port: MessagePort; client: Client }>,
): Promise<void> {
  const stored: Array<{ id: number; client: Client; job: StoredJob }> = [];
  for (const j of round) {
    try {
      const job = await storeJobBody(deps(), j.spec, bodyFrom(j.port));
      if (job.spec.defer) j.client.postMessage({ t: 'done', id: j.id, report: deferredReport(job) });
      else stored.push({ id: j.id, client: j.client, job });
    } catch (err) {
      j.client.postMessage({ t: 'error', id: j.id, error: errorOf(err) });
    } finally {
      j.port.close();
    }
  }
  if (stored.length === 0) return;
  const startedMs = performance.now();
  const pausedBeforeMs = aside.pausedMs;
  try {
    const reports = await processJobs(
      deps(),
      stored.map((x) => x.job),
    );
    stored.forEach((x, i) => {
      x.client.postMessage({ t: 'done', id: x.id, report: reports[i] });
    });
  } catch (err) {
    for (const x of stored) x.client.postMessage({ t: 'error', id: x.id, error: errorOf(err) });
  }
  // serving first: while requests are answered, rest as long as the round took before the next
  // (not when the thread is closing: the process waits for the queue to drain)
  if (!closing) await aside.rest(pausedBeforeMs, performance.now() - startedMs);
}

/** Processes traces whose pending marks are older than any running batch. */
async function sweep(): Promise<void> {
  try {
    for (;;) {
      const ids = await listStalePending(db, STALE_PENDING_S, SWEEP_TRACES, region.meta.mapVersion);
      if (ids.length === 0 || closing) break;
      await processStored(deps(), ids, new Map());
      if (ids.length < SWEEP_TRACES) break;
    }
    sweepError = undefined;
  } catch (err) {
    sweepError = (err as Error).message;
  }
}

async function reportStatus(): Promise<void> {
  try {
    const b = await pendingBacklog(db);
    for (const c of clients)
      c.postMessage({
        t: 'status',
        pendingTraces: b.traces,
        oldestPendingS: b.oldestS,
        sweepError,
        steppedAsideMs: Math.round(aside.pausedMs),
      });
  } catch (err) {
    for (const c of clients)
      c.postMessage({ t: 'status', pendingTraces: -1, oldestPendingS: 0, sweepError: (err as Error).message });
  }
}

type ClientMessage =
  | { t: 'job'; id: number; spec: IngestJobSpec; port: MessagePort }
  | { t: 'task'; id: number; task: IngestionTask };

/** Serves jobs and tasks arriving on `endpoint`, answering there. */
function serve(endpoint: MessagePort, m: ClientMessage): void {
  if (m.t === 'job') push({ kind: 'job', id: m.id, spec: m.spec, port: m.port, client: endpoint });
  else if (m.t === 'task') push({ kind: 'task', id: m.id, task: m.task, client: endpoint });
}

port.on('message', (m: ClientMessage | { t: 'connect'; port: MessagePort } | { t: 'close' }) => {
  if (m.t === 'connect') {
    // another thread of this process (a serving thread) talks to this one through its own port
    const other = m.port;
    clients.add(other);
    other.on('message', (x: ClientMessage) => serve(other, x));
    other.on('close', () => clients.delete(other));
    return;
  }
  if (m.t !== 'close') return serve(port as unknown as MessagePort, m);
  closing = true;
  void (draining ?? Promise.resolve()).finally(async () => {
    await db.close().catch(() => undefined);
    process.exit(0);
  });
});

const timers: NodeJS.Timeout[] = [setInterval(() => void reportStatus(), STATUS_MS)];
if (data.sweepIntervalMs > 0) {
  timers.push(
    setInterval(() => {
      if (!queue.some((w) => w.kind === 'sweep')) push({ kind: 'sweep' });
    }, data.sweepIntervalMs),
  );
  push({ kind: 'sweep' });
}
for (const t of timers) t.unref();
port.postMessage({ t: 'ready' });
