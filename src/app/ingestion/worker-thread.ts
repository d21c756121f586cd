/**
 * The ingestion role of a `serve` process, in a thread of its own at a lower CPU priority (nice
 * `INGESTION_NICE`; Linux nice values are per thread): an `IngestionWorker` on the region, and,
 * when configured, the NATS JetStream feed stored into the database (the feed's messages are
 * shared with every other ingestion process of the same durable consumer). Nothing crosses the
 * thread boundary but `close` from the main thread and `closed` back: pings arrive through the
 * database, and what the worker writes reaches the serving threads through the change log.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { loadRegion } from '../../network/bundle.js';
import type { Db } from '../../store/db.js';
import { openPostgres } from '../../store/postgres-db.js';
import { remoteDb } from '../../store/remote-db.js';
import { ingestRecords } from '../../probes/ingest/ingest.js';
import { consumeNatsProbes, type NatsFeedOptions } from '../../probes/feeds/nats-feed.js';
import { leasesOf } from './intake.js';
import { INGESTION_NICE, IngestionWorker } from './worker.js';

/** What the ingestion thread is given. */
export interface IngestionThreadData {
  regionDir: string;
  /** graph.bin in a SharedArrayBuffer (one copy for every thread) */
  graphBytes: Uint8Array;
  /** PostgreSQL URL, or … */
  databaseUrl?: string;
  /** … a port to the embedded database's thread */
  dbPort?: MessagePort;
  /** the NATS feed to consume, if any */
  nats?: Omit<NatsFeedOptions, 'signal' | 'log'>;
}

/** Wait before the NATS feed is started again after it failed, ms. */
const NATS_RETRY_MS = 2000;

const data = workerData as IngestionThreadData;
const port = parentPort!;
const log = (line: string): void => {
  console.error(line);
};
try {
  setPriority(INGESTION_NICE);
} catch {
  /* not permitted here: normal priority */
}
const region = loadRegion(data.regionDir, { graphBytes: data.graphBytes });
const db: Db = data.dbPort
  ? remoteDb(data.dbPort)
  : await openPostgres(data.databaseUrl!, { max: 4, applicationName: 'streetwise ingestion' });
const name = region.meta.name;
const worker = new IngestionWorker({
  db,
  region,
  leases: leasesOf({ db, region: name, databaseUrl: data.databaseUrl }),
  log,
});
worker.start();

const stopFeed = new AbortController();
const feed = data.nats === undefined ? undefined : runFeed(data.nats);

/** Consumes the NATS feed until the thread closes, starting again after a failure. */
async function runFeed(opts: Omit<NatsFeedOptions, 'signal' | 'log'>): Promise<void> {
  const target = {
    store: (records: Parameters<typeof ingestRecords>[1]) => ingestRecords(db, records, { region: name }),
  };
  while (!stopFeed.signal.aborted) {
    try {
      await consumeNatsProbes(target, { ...opts, signal: stopFeed.signal, log: (l) => log(`nats: ${l}`) });
    } catch (err) {
      log(`nats: the feed failed (${err instanceof Error ? err.message : String(err)}); starting again`);
      await new Promise((r) => setTimeout(r, NATS_RETRY_MS));
    }
  }
}

port.on('message', (m: { t: 'close' }) => {
  if (m.t !== 'close') return;
  stopFeed.abort();
  void (async () => {
    await feed;
    await worker.stop();
    await db.close().catch(() => undefined);
    port.postMessage({ t: 'closed' });
    process.exit(0);
  })();
});
port.postMessage({ t: 'ready' });
