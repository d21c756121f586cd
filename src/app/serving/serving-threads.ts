/**
 * The serving threads of a server (`serving-worker.ts`): started by the main thread with the
 * region's graph, the routing engine's read-only structures (`shared-routing.ts`) and the parking
 * inventory's lots and blocks (`shared-parking.ts`) in shared memory (one copy however many
 * threads) and a database port or URL each. The first thread binds the
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
import { prepareSharedRouting } from './shared-routing.js';
import { prepareSharedParking } from './shared-parking.js';
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

type FromWorker = { t: 'ready' } | { t: 'listening'; port: number } | { t: 'closed' } | { t: 'window' };

/** Starts the threads and resolves once all of them listen. */
export async function startServingThreads(opts: {
  config: Config;
  regionDir: string;
  /** graph.bin in a SharedArrayBuffer (`readGraphShared`) */
  graphBytes: Uint8Array;
  embedded?: EmbeddedDb;
  databaseUrl?: string;
}): Promise<ServingThreads> {
  const plan = servingThreadPlan(servingThreadCount(opts.config), process.version, process.platform);
  if (plan.notice) console.warn(plan.notice);
  const count = plan.count;
  const graphBytes = opts.graphBytes;
  // the routing engine's read-only structures and the snapping index: built once, shared by every thread
  const routing = prepareSharedRouting(opts.config, graphBytes);
  const parking = prepareSharedParking(opts.config, opts.regionDir, graphBytes);
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
  for (let i = 0; i < count; i++) {
    const transfer: MessagePort[] = [];
    const data: ServingWorkerData = {
      index: i,
      config: opts.config,
      regionDir: opts.regionDir,
      graphBytes,
      routing,
      parking,
      databaseUrl: opts.databaseUrl,
    };
    if (opts.embedded) {
      data.dbPort = opts.embedded.connect();
      transfer.push(data.dbPort);
    }
    const w = startThread(siblingModule(import.meta.url, 'serving-worker'), data, transfer);
    w.on('error', (err) => fail(err));
    // a window table one thread built goes to every other thread (its arrays are in shared memory)
    w.on('message', (m: { t?: string }) => {
      if (m.t === 'window') for (const o of workers) if (o !== w) o.postMessage(m);
    });
    w.on('exit', (code) => fail(new Error(`serving thread ${i} exited with code ${code}`)));
    workers.push(w);
  }
  // every thread wraps the shared routing structures; the first then opens the socket
  await Promise.all(workers.map((w) => next(w, 'ready')));
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
        workers.map((w) => {
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
