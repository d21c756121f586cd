/**
 * The serving threads of a server (`serving-worker.ts`): started by the main thread with the
 * region's graph, the routing engine's read-only structures (`shared-routing.ts`) and the parking
 * inventory's lots and blocks (`shared-parking.ts`) in shared memory (one copy however many
 * threads; built by a preparing thread that exits before they start, `prepare-worker.ts`) and a
 * database port or URL each, beside one window builder thread
 * (`window-builder.ts`) that builds the window tables they ask for and hands them to all. The first thread binds the
 * configured port; the others bind the same port, each on its own socket with `reusePort` (Node
 * 22.12+ on Linux or FreeBSD), and the kernel spreads connections evenly over them. Where Node
 * lacks `reusePort` (Node 20) one serving thread runs, whatever was asked, and a one-line notice
 * says so (`socket-sharing.ts`).
 */
import { availableParallelism } from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import type { Config } from '../../config/schema.js';
import type { EmbeddedDb } from '../../store/remote-db.js';
import { siblingModule, startThread } from '../../store/thread.js';
import { nextMessage } from '../../store/rpc.js';
import type { ServingWorkerData } from './serving-worker.js';
import { engineConfigOf, type SharedRouting } from './shared-routing.js';
import type { WindowBuilderData } from './window-builder.js';
import type { PrepareData } from './prepare-worker.js';
import type { SharedParkingBase } from '../../parking/index.js';
import { servingThreadPlan } from './socket-sharing.js';

/** The running serving threads. */
export interface ServingThreads {
  /** the TCP port they answer on */
  port: number;
  count: number;
  /** Lets every thread finish its queued writes; the socket closes when the process exits. */
  close(): Promise<void>;
  /** Called once when a serving thread dies unexpectedly (the server must then stop). */
  onFailure(fn: (err: Error) => void): void;
}

/** How many serving threads `config` asks for (0 = one per CPU core). */
export function servingThreadCount(config: Config): number {
  return config.server.threads > 0 ? config.server.threads : availableParallelism();
}

type FromWorker =
  | { t: 'ready' }
  | { t: 'listening'; port: number }
  | { t: 'closed' }
  | { t: 'window' }
  | { t: 'window-build' };

/** What the serving threads of a process are started with. */
interface ThreadsOptions {
  config: Config;
  regionDir: string;
  /** graph.bin in a SharedArrayBuffer (`readGraphShared`) */
  graphBytes: Uint8Array;
  embedded?: EmbeddedDb;
  databaseUrl?: string;
}

/** Starts the threads and resolves once all of them listen. */
export async function startServingThreads(opts: ThreadsOptions): Promise<ServingThreads> {
  const plan = servingThreadPlan(servingThreadCount(opts.config), process.version, process.platform);
  if (plan.notice) console.warn(plan.notice);
  const count = plan.count;
  // the routing engine's read-only structures, the snapping index and the parking inventory's
  // base: built once, shared by every thread
  const { routing, parking } = await prepareShared(opts);
  const workers: Worker[] = [];
  const failures: Array<(err: Error) => void> = [];
  let closing = false;
  let failed = false;
  const fail = (err: Error): void => {
    if (closing || failed) return;
    failed = true;
    for (const fn of failures) fn(err);
  };
  const next = <T extends FromWorker['t']>(w: Worker, t: T) => nextMessage<FromWorker, T>(w, t);
  const builder = routing ? startWindowBuilder(opts, routing) : null;
  if (builder) {
    builder.on('error', (err) => fail(err));
    builder.on('exit', (code) => fail(new Error(`window builder thread exited with code ${code}`)));
    // a finished window table goes to every serving thread (its arrays are in shared memory)
    builder.on('message', (m: { t?: string }) => {
      if (m.t === 'window') for (const w of workers) w.postMessage(m);
    });
  }
  for (let i = 0; i < count; i++) {
    const w = startServingWorker(opts, i, routing, parking);
    w.on('error', (err) => fail(err));
    // a window table a serving thread needs is asked of the builder
    w.on('message', (m: { t?: string }) => {
      if (m.t === 'window-build') builder?.postMessage(m);
    });
    w.on('exit', (code) => fail(new Error(`serving thread ${i} exited with code ${code}`)));
    workers.push(w);
  }
  // every thread wraps the shared routing structures; the first then opens the socket
  await Promise.all([...workers, ...(builder ? [builder] : [])].map((w) => next(w, 'ready')));
  const first = next(workers[0], 'listening');
  workers[0].postMessage({ t: 'listen' });
  const opened = await first;
  // the others bind the port the first one bound, each on its own `reusePort` socket (socket-sharing.ts)
  await Promise.all(
    workers.slice(1).map((w) => {
      const p = next(w, 'listening');
      w.postMessage({ t: 'listen', port: opened.port });
      return p;
    }),
  );
  return {
    port: opened.port,
    count,
    async close() {
      closing = true;
      await Promise.all(
        [...workers, ...(builder ? [builder] : [])].map((w) => {
          const p = next(w, 'closed').catch(() => undefined);
          w.postMessage({ t: 'close' });
          return p;
        }),
      );
    },
    onFailure(fn) {
      failures.push(fn);
    },
  };
}

/** Builds the shared structures in a thread of their own (`prepare-worker.ts`), which then exits; rejects with its error. */
export async function prepareShared(
  opts: ThreadsOptions,
): Promise<{ routing: SharedRouting | undefined; parking: SharedParkingBase | undefined }> {
  const data: PrepareData = { config: opts.config, regionDir: opts.regionDir, graphBytes: opts.graphBytes };
  const w = startThread(siblingModule(import.meta.url, 'prepare-worker'), data);
  let error: Error | undefined;
  w.once('error', (err) => {
    error = err;
  });
  const exited = new Promise((resolve) => w.once('exit', resolve));
  let prepared: PreparedMessage;
  try {
    prepared = await nextMessage<PreparedMessage, 'prepared'>(w, 'prepared');
  } catch (err) {
    throw error ?? err; // the thread's own error, when it threw one
  }
  // its memory is released when it has exited
  await exited;
  return { routing: prepared.routing, parking: prepared.parking };
}

interface PreparedMessage {
  t: 'prepared';
  routing: SharedRouting | undefined;
  parking: SharedParkingBase | undefined;
}

/** Starts serving thread `index`, with its own port to the embedded database (or the PostgreSQL URL). */
function startServingWorker(
  opts: ThreadsOptions,
  index: number,
  routing: SharedRouting | undefined,
  parking: SharedParkingBase | undefined,
): Worker {
  const data: ServingWorkerData = {
    index,
    config: opts.config,
    regionDir: opts.regionDir,
    graphBytes: opts.graphBytes,
    routing,
    parking,
    databaseUrl: opts.databaseUrl,
  };
  return startThread(
    siblingModule(import.meta.url, 'serving-worker'),
    data,
    dbPortOf(opts, data),
    SERVING_THREAD_LIMITS,
  );
}

/**
 * A serving thread's JavaScript heap: its young generation (where a request's short-lived objects
 * are made) is held to 8 MB instead of V8's default of about 32 MB on 64-bit machines. A request
 * makes little garbage (a search's labels are typed arrays made once per thread), so scavenges
 * stay short; FindRoute latency and throughput on the metro measured the same with 8 and 16 MB,
 * while every added thread costs about 25 MB less (decision 046).
 */
const SERVING_THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 };

/** Starts the window builder, or returns null when the engine builds no window tables. */
function startWindowBuilder(opts: ThreadsOptions, routing: SharedRouting): Worker | null {
  if (engineConfigOf(opts.config).windowBounds === false) return null;
  const data: WindowBuilderData = {
    config: opts.config,
    regionDir: opts.regionDir,
    graphBytes: opts.graphBytes,
    routing,
    databaseUrl: opts.databaseUrl,
  };
  return startThread(siblingModule(import.meta.url, 'window-builder'), data, dbPortOf(opts, data));
}

/** Gives a thread its own port to the embedded database (none on PostgreSQL); the ports to transfer. */
function dbPortOf(opts: ThreadsOptions, data: { dbPort?: MessagePort }): MessagePort[] {
  if (!opts.embedded) return [];
  data.dbPort = opts.embedded.connect();
  return [data.dbPort];
}
