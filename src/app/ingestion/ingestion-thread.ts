/**
 * Starts the ingestion role of a `serve` process in its own thread (`worker-thread.ts`) and
 * starts it again when it dies (its partitions are free meanwhile; on PostgreSQL other workers
 * take them over).
 */
import type { MessagePort, Worker } from 'node:worker_threads';
import type { EmbeddedDb } from '../../store/remote-db.js';
import { siblingModule, startThread } from '../../store/thread.js';
import { nextMessage } from '../../store/rpc.js';
import type { IngestionThreadData } from './worker-thread.js';

/** How to start the ingestion thread. */
export interface IngestionThreadOptions {
  regionDir: string;
  graphBytes: Uint8Array;
  databaseUrl?: string;
  embedded?: EmbeddedDb;
  nats?: IngestionThreadData['nats'];
  log: (line: string) => void;
}

/** The running ingestion thread. */
export interface IngestionThread {
  /** Lets the worker finish its chunk and give up its partitions, then ends the thread. */
  close(): Promise<void>;
}

/** Wait before a dead ingestion thread is started again, ms. */
const RESTART_DELAY_MS = 1000;

/** Starts the thread; resolves once it runs. */
export async function startIngestionThread(opts: IngestionThreadOptions): Promise<IngestionThread> {
  let closing = false;
  let current: Worker;
  const start = async (): Promise<void> => {
    const data: IngestionThreadData = {
      regionDir: opts.regionDir,
      graphBytes: opts.graphBytes,
      databaseUrl: opts.databaseUrl,
      nats: opts.nats,
    };
    const transfer: MessagePort[] = [];
    if (opts.embedded) transfer.push((data.dbPort = opts.embedded.connect()));
    const w = startThread(siblingModule(import.meta.url, 'worker-thread'), data, transfer);
    current = w;
    w.on('error', (err) => opts.log(`ingestion thread failed: ${err.message}`));
    w.on('exit', (code) => {
      if (closing) return;
      opts.log(`ingestion thread exited with code ${code}; starting it again`);
      setTimeout(
        () => void start().catch((err: Error) => opts.log(`ingestion thread: ${err.message}`)),
        RESTART_DELAY_MS,
      );
    });
    await nextMessage<{ t: 'ready' }, 'ready'>(w, 'ready');
  };
  await start();
  return {
    async close() {
      closing = true;
      const w = current;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage({ t: 'close' });
      await exited;
    },
  };
}
