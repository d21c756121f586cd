/**
 * The ingestion role in its own thread (`ingestion-worker.ts`), so that parsing, map matching,
 * fact building, speed learning and their database writes never run on an event loop that serves
 * requests. This side hands each job's body over a MessagePort with flow control (the worker asks
 * for more as it reads), keeps at most `maxQueuedJobs` waiting, restarts the thread if it dies and
 * reports `degraded` while ingestion fails.
 *
 * Ports: main → worker `{ t: 'job', id, spec, port }`, `{ t: 'task', id, task }`, `{ t: 'close' }`; worker → main
 * `{ t: 'ready' }`, `{ t: 'done', id, report }`, `{ t: 'error', id, error }`, `{ t: 'status', … }`.
 * Body port: main → worker `{ t: 'data', chunk }`, `{ t: 'end' }`, `{ t: 'abort', message }`;
 * worker → main `{ t: 'more' }`.
 */
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { Readable } from 'node:stream';
import type { EmbeddedDb } from '../../store/remote-db.js';
import { siblingModule, startThread } from '../../store/thread.js';
import { IngestJobError, type IngestJobReport, type IngestJobSpec } from './ingest-job.js';
import type { Ingestion, IngestionStatus, TaskReport } from './ingestion.js';
import type { IngestionTask } from './tasks.js';
import { createRequestGauge } from './step-aside.js';

/** How to start the ingestion thread. */
export interface IngestionThreadOptions {
  /** the region bundle to load (`DATA_DIR/regions/NAME`) */
  regionDir: string;
  /** PostgreSQL URL, or … */
  databaseUrl?: string;
  /** … the embedded database to connect to */
  embedded?: EmbeddedDb;
  /** jobs waiting beyond the one running (more → PROBES_BUSY); default 64 */
  maxQueuedJobs?: number;
  /** how often stale pending traces are looked for, ms (default 10 000; 0 = never) */
  sweepIntervalMs?: number;
  /** lines for the server log */
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

/** What the worker thread receives. */
export interface IngestionWorkerData {
  regionDir: string;
  databaseUrl?: string;
  dbPort?: MessagePort;
  sweepIntervalMs: number;
  /** requests under way in the serving threads (`step-aside.ts`) */
  requestGauge: SharedArrayBuffer;
}

/** Chunks sent ahead of the worker's requests for more. */
const BODY_WINDOW = 8;
/** Wait before a dead ingestion thread is started again, ms. */
const RESTART_DELAY_MS = 1000;

interface Job {
  id: number;
  resolve: (r: never) => void;
  reject: (e: Error) => void;
}

/** A message endpoint: the Worker itself, or a MessagePort connected to the ingestion thread. */
interface Endpoint {
  postMessage(message: unknown, transfer?: readonly Transferable[]): void;
  on(event: 'message', listener: (m: WorkerMessage) => void): unknown;
}
type Transferable = MessagePort;

/**
 * The client side of the ingestion thread's protocol over one endpoint: submits jobs (pumping
 * their bodies), runs tasks, follows the status the thread reports. Used by the main thread (over
 * the Worker) and by serving threads (over a port from `connect`).
 */
export class IngestionClient implements Ingestion {
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;
  private endpoint!: Endpoint;
  private failure: string | undefined;
  private backlog: { pendingTraces?: number; oldestPendingS?: number; sweepError?: string; steppedAsideMs?: number } =
    {};
  closing = false;

  constructor(
    endpoint: Endpoint,
    private readonly maxQueued: number,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.bind(endpoint);
  }

  /** Talks to the thread through `endpoint` from now on (after the thread was restarted). */
  bind(endpoint: Endpoint): void {
    this.endpoint = endpoint;
    endpoint.on('message', (m) => this.onMessage(m));
  }

  /** The thread went away: jobs under way fail; `reason` shows in the status until a job succeeds. */
  lost(reason: string): void {
    for (const j of this.jobs.values()) j.reject(new Error('the ingestion thread stopped'));
    this.jobs.clear();
    this.failure ??= reason;
  }

  private onMessage(m: WorkerMessage): void {
    switch (m.t) {
      case 'done': {
        const j = this.jobs.get(m.id);
        this.jobs.delete(m.id);
        this.failure = undefined;
        j?.resolve(m.report as never);
        return;
      }
      case 'error': {
        const j = this.jobs.get(m.id);
        this.jobs.delete(m.id);
        if (m.error.name === 'IngestJobError')
          j?.reject(new IngestJobError(m.error.status ?? 400, m.error.code ?? 'PROBES_BAD_REQUEST', m.error.message));
        else {
          this.failure = `the last ingestion failed: ${m.error.message}`;
          j?.reject(new Error(m.error.message));
        }
        return;
      }
      case 'status':
        this.backlog = {
          pendingTraces: m.pendingTraces,
          oldestPendingS: m.oldestPendingS,
          sweepError: m.sweepError,
          steppedAsideMs: m.steppedAsideMs,
        };
        return;
      default:
    }
  }

  submit(spec: IngestJobSpec, body: Readable): Promise<IngestJobReport> {
    if (this.closing) return Promise.reject(new IngestJobError(503, 'PROBES_BUSY', 'the server is shutting down'));
    if (this.jobs.size > this.maxQueued)
      return Promise.reject(
        new IngestJobError(503, 'PROBES_BUSY', `ingestion is busy (${this.jobs.size} jobs waiting): retry later`),
      );
    const id = this.nextId++;
    return new Promise<IngestJobReport>((resolve, reject) => {
      const { port1, port2 } = new MessageChannel();
      this.jobs.set(id, { id, resolve: resolve as Job['resolve'], reject });
      this.endpoint.postMessage({ t: 'job', id, spec, port: port2 }, [port2]);
      pump(body, port1);
    });
  }

  run<T extends IngestionTask>(task: T): Promise<TaskReport<T>> {
    if (this.closing) return Promise.reject(new IngestJobError(503, 'PROBES_BUSY', 'the server is shutting down'));
    const id = this.nextId++;
    return new Promise<TaskReport<T>>((resolve, reject) => {
      this.jobs.set(id, { id, resolve: resolve as Job['resolve'], reject });
      this.endpoint.postMessage({ t: 'task', id, task });
    });
  }

  status(): IngestionStatus {
    const running = Math.min(1, this.jobs.size);
    const s: IngestionStatus = {
      state: 'ok',
      queued: this.jobs.size - running,
      running,
      ...('pendingTraces' in this.backlog
        ? { pendingTraces: this.backlog.pendingTraces, oldestPendingS: this.backlog.oldestPendingS }
        : {}),
      ...(this.backlog.steppedAsideMs !== undefined ? { steppedAsideMs: this.backlog.steppedAsideMs } : {}),
    };
    const reason =
      this.failure ??
      (this.backlog.sweepError ? `processing stored pings failed: ${this.backlog.sweepError}` : undefined);
    return reason ? { ...s, state: 'degraded', reason } : s;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.onClose();
  }
}

/** The ingestion thread as its owner (the main thread) holds it. */
export interface IngestionThread extends Ingestion {
  /** A port for another thread of this process; open it there with `remoteIngestion`. */
  connect(): MessagePort;
  /** Called with a fresh port for each connected thread after the ingestion thread restarted. */
  onRestart(fn: () => void): void;
  /** Where serving threads count the requests they answer (`countRequests`): ingestion steps aside while any is under way. */
  readonly requestGauge: SharedArrayBuffer;
}

/** Ingestion through a port from `IngestionThread.connect` (a serving thread's view). */
export function remoteIngestion(port: MessagePort, maxQueuedJobs = 64): IngestionClient {
  port.unref();
  return new IngestionClient(port as unknown as Endpoint, maxQueuedJobs, async () => {
    port.close();
  });
}

/** Starts the ingestion thread; resolves once it has loaded the region and connected to the database. */
export async function startIngestionThread(opts: IngestionThreadOptions): Promise<IngestionThread> {
  const maxQueued = opts.maxQueuedJobs ?? 64;
  const log = opts.log ?? (() => undefined);
  let worker: Worker;
  const restartListeners: Array<() => void> = [];
  let client: IngestionClient;
  const requestGauge = createRequestGauge();

  const spawn = (): Promise<void> => {
    const data: IngestionWorkerData = {
      regionDir: opts.regionDir,
      databaseUrl: opts.databaseUrl,
      sweepIntervalMs: opts.sweepIntervalMs ?? 10_000,
      requestGauge,
    };
    const transfer: MessagePort[] = [];
    if (opts.embedded) {
      data.dbPort = opts.embedded.connect();
      transfer.push(data.dbPort);
    }
    const w = startThread(siblingModule(import.meta.url, 'ingestion-worker'), data, transfer);
    worker = w;
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      w.on('message', (m: WorkerMessage) => {
        if (m.t === 'ready') {
          ready = true;
          resolve();
        }
      });
      w.on('error', (err) => {
        log('error', `ingestion thread failed: ${err.message}`);
        client?.lost(`the ingestion thread failed: ${err.message}`);
        if (!ready) reject(err);
      });
      w.on('exit', (code) => {
        if (!ready) reject(new Error(`the ingestion thread exited with code ${code} before it was ready`));
        if (client.closing) return;
        client.lost(`the ingestion thread stopped (exit code ${code})`);
        setTimeout(() => {
          if (client.closing) return;
          spawn().then(
            () => {
              client.bind(worker as unknown as Endpoint);
              for (const fn of restartListeners) fn();
              log('info', 'ingestion thread restarted');
            },
            (err: Error) => log('error', `ingestion thread restart failed: ${err.message}`),
          );
        }, RESTART_DELAY_MS).unref();
      });
    });
  };
  client = new IngestionClient({ postMessage: () => undefined, on: () => undefined }, maxQueued, async () => {
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ t: 'close' });
    await exited;
  });
  await spawn();
  client.bind(worker! as unknown as Endpoint);
  return Object.assign(client, {
    requestGauge,
    connect(): MessagePort {
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ t: 'connect', port: port1 }, [port1]);
      return port2;
    },
    onRestart(fn: () => void): void {
      restartListeners.push(fn);
    },
  });
}

type WorkerMessage =
  | { t: 'ready' }
  | { t: 'connect' }
  | { t: 'done'; id: number; report: unknown }
  | { t: 'error'; id: number; error: { name: string; message: string; status?: number; code?: string } }
  | { t: 'status'; pendingTraces: number; oldestPendingS: number; sweepError?: string; steppedAsideMs?: number };

/** Sends `body` over `port` in chunks, at most BODY_WINDOW ahead of what the worker asked for. */
function pump(body: Readable, port: MessagePort): void {
  let credits = BODY_WINDOW;
  let ended = false;
  const onData = (chunk: Buffer | string): void => {
    // copy: a request chunk may share a pooled buffer that must not be transferred away
    const copy = typeof chunk === 'string' ? new Uint8Array(Buffer.from(chunk)) : new Uint8Array(chunk);
    port.postMessage({ t: 'data', chunk: copy }, [copy.buffer]);
    if (--credits <= 0) body.pause();
  };
  port.on('message', (m: { t: 'more' }) => {
    if (m.t !== 'more') return;
    credits = Math.min(BODY_WINDOW, credits + 1);
    if (credits > 0 && !ended) body.resume();
  });
  body.on('data', onData);
  body.once('end', () => {
    ended = true;
    port.postMessage({ t: 'end' });
  });
  body.once('error', (err: Error & { status?: number; code?: string }) => {
    ended = true;
    port.postMessage({
      t: 'abort',
      message: err.message,
      ...(err instanceof IngestJobError ? { status: err.status, code: err.code } : {}),
    });
  });
  port.once('close', () => {
    body.off('data', onData);
    if (!ended) body.resume(); // drain what the worker no longer reads
  });
}
