/**
 * The ingestion thread (see `ingestion-thread.ts` for the port protocol): loads the region,
 * connects to the database, runs jobs one after another, and between jobs processes traces that
 * an interrupted or failed batch left pending. It runs at a lower CPU priority than the serving
 * threads (Linux nice values are per thread), so a feed never takes the cores from requests.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { Readable } from 'node:stream';
import { loadRegion } from '../../network/bundle.js';
import type { Region } from '../../network/region.js';
import type { Db } from '../../store/db.js';
import { openPostgres } from '../../store/postgres-db.js';
import { remoteDb } from '../../store/remote-db.js';
import { listStalePending, pendingBacklog } from '../../probes/ingest/pending.js';
import { IngestJobError, runIngestJob, type IngestJobSpec } from './ingest-job.js';
import { processStored } from './process-stored.js';
import { runTask, type IngestionTask } from './tasks.js';
import type { IngestionWorkerData } from './ingestion-thread.js';

/** Niceness of this thread (0 = normal, 19 = lowest). */
const INGESTION_NICE = 10;
/** Pending marks older than this belong to no running batch, seconds. */
const STALE_PENDING_S = 30;
/** Traces processed per sweep. */
const SWEEP_TRACES = 1000;
/** How often the backlog is reported, ms. */
const STATUS_MS = 2000;

const data = workerData as IngestionWorkerData;
const port = parentPort!;
try { setPriority(INGESTION_NICE); } catch { /* not permitted here: run at normal priority */ }

let region: Region;
let db: Db;
try {
  region = loadRegion(data.regionDir);
  db = data.dbPort ? remoteDb(data.dbPort) : await openPostgres(data.databaseUrl!, { max: 4 });
} catch (err) {
  throw new Error(`ingestion thread could not start: ${(err as Error).message}`);
}

let tail: Promise<unknown> = Promise.resolve();
let closing = false;
let sweepError: string | undefined;

/** Queues work so jobs and sweeps never overlap. */
function enqueue<T>(fn: () => Promise<T>): Promise<T> {
  const p = tail.then(fn);
  tail = p.catch(() => undefined);
  return p;
}

/** A Readable fed by a body port, asking the other side for more as it is read. */
function bodyFrom(bodyPort: MessagePort): Readable {
  const body = new Readable({
    read() {
      bodyPort.postMessage({ t: 'more' });
    },
  });
  bodyPort.on('message', (m: { t: 'data'; chunk: Uint8Array } | { t: 'end' } | { t: 'abort'; message: string; status?: number; code?: string }) => {
    if (m.t === 'data') body.push(Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength));
    else if (m.t === 'end') body.push(null);
    else body.destroy(m.status !== undefined ? new IngestJobError(m.status, m.code ?? 'PROBES_BAD_REQUEST', m.message) : new Error(`the request body was cut off: ${m.message}`));
  });
  return body;
}

async function runJob(id: number, spec: IngestJobSpec, bodyPort: MessagePort): Promise<void> {
  const body = bodyFrom(bodyPort);
  try {
    const report = await runIngestJob({ db, region, nowS: Date.now() / 1000 }, spec, body);
    port.postMessage({ t: 'done', id, report });
  } catch (err) {
    const e = err as Error & { status?: number; code?: string };
    port.postMessage({ t: 'error', id, error: { name: e.name, message: e.message, status: e.status, code: e.code } });
  } finally {
    bodyPort.close();
  }
}

/** Processes traces whose pending marks are older than any running batch. */
async function sweep(): Promise<void> {
  try {
    for (;;) {
      const ids = await listStalePending(db, STALE_PENDING_S, SWEEP_TRACES, region.meta.mapVersion);
      if (ids.length === 0 || closing) break;
      await processStored({ db, region, nowS: Date.now() / 1000 }, ids, new Map());
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
    port.postMessage({ t: 'status', pendingTraces: b.traces, oldestPendingS: b.oldestS, sweepError });
  } catch (err) {
    port.postMessage({ t: 'status', pendingTraces: -1, oldestPendingS: 0, sweepError: (err as Error).message });
  }
}

port.on('message', (m: { t: 'job'; id: number; spec: IngestJobSpec; port: MessagePort } | { t: 'task'; id: number; task: IngestionTask } | { t: 'close' }) => {
  if (m.t === 'job') {
    void enqueue(() => runJob(m.id, m.spec, m.port));
    return;
  }
  if (m.t === 'task') {
    void enqueue(async () => {
      try {
        port.postMessage({ t: 'done', id: m.id, report: await runTask({ db, region, nowS: Date.now() / 1000 }, m.task) });
      } catch (err) {
        port.postMessage({ t: 'error', id: m.id, error: { name: (err as Error).name, message: (err as Error).message } });
      }
    });
    return;
  }
  closing = true;
  void tail.finally(async () => {
    await db.close().catch(() => undefined);
    process.exit(0);
  });
});

const timers: NodeJS.Timeout[] = [setInterval(() => void reportStatus(), STATUS_MS)];
if (data.sweepIntervalMs > 0) {
  timers.push(setInterval(() => void enqueue(sweep), data.sweepIntervalMs));
  void enqueue(sweep);
}
for (const t of timers) t.unref();
port.postMessage({ t: 'ready' });
