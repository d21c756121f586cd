/**
 * A serving thread: answers HTTP requests on the listening socket it shares with the other serving
 * threads (the first thread woken for a new connection accepts it). The graph's typed arrays live in
 * shared memory, loaded once by the main thread; everything a request builds is this thread's own
 * (routing engine, caches, speeds in memory). The database is reached through its own port to the
 * embedded database's thread or its own PostgreSQL pool; probe bodies are stored from here and
 * processed by the region's ingestion workers; the change log keeps this thread's speeds,
 * incidents and parking inventory current.
 *
 * Ports: main → thread `{ t: 'listen', fd }` (the first thread listens itself and reports
 * `{ t: 'listening', fd, port }`), `{ t: 'close' }`; thread → main `{ t: 'ready' }`,
 * `{ t: 'listening' }`, `{ t: 'closed' }`.
 * A serving thread that dies takes the process down with it (the shared socket cannot be handed
 * back safely); the process supervisor restarts it.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Server } from 'node:net';
import type { Config } from '../../config/schema.js';
import { loadRegion } from '../../network/bundle.js';
import type { Db } from '../../store/db.js';
import { openPostgres } from '../../store/postgres-db.js';
import { remoteDb } from '../../store/remote-db.js';
import { latestChangeSeq } from '../../store/changes.js';
import { DbAuthService } from '../../auth/index.js';
import { SpeedFeeds } from '../../traffic/feeds.js';
import { loadSpeedFeeds } from '../../traffic/learned-speeds.js';
import { buildApp } from '../../http/app.js';
import type { AppContext } from '../context.js';
import { followChanges } from '../follow-changes.js';
import { workersOf } from '../ingestion/intake.js';

/** What a serving thread is given. */
export interface ServingWorkerData {
  index: number;
  config: Config;
  regionDir: string;
  /** graph.bin in a SharedArrayBuffer */
  graphBytes: Uint8Array;
  dbPort?: MessagePort;
  databaseUrl?: string;
}

const data = workerData as ServingWorkerData;
const port = parentPort!;
const { config } = data;

const region = loadRegion(data.regionDir, { graphBytes: data.graphBytes });
const db: Db = data.dbPort ? remoteDb(data.dbPort) : await openPostgres(data.databaseUrl!);
const speeds = new SpeedFeeds();
// the embedded database's one process runs the ingestion role; on PostgreSQL the workers are counted
const ingestion = {
  workers: workersOf({ db, region: region.meta.name, databaseUrl: data.databaseUrl }, 1),
};
const ctx: AppContext = { config, db, region, speeds, auth: new DbAuthService(db), now: Date.now, ingestion };
// follow the change log from before the speeds are read: nothing written meanwhile is missed
const fromSeq = await latestChangeSeq(db);
await loadSpeedFeeds(db, region.graph, speeds, { mapVersion: region.meta.mapVersion, nowS: Date.now() / 1000 });
ctx.changes = await followChanges(ctx, fromSeq, (err) =>
  console.error(`change log (serving thread ${data.index}): ${String(err)}`),
);
const app = await buildApp(ctx, { logger: true, defaultMetrics: data.index === 0 });
await app.ready();
// live speeds age out of their window
const expiry = setInterval(() => speeds.expireLive(Date.now() / 1000 - 3600), 60_000);
expiry.unref();

port.on('message', (m: { t: 'listen'; fd?: number } | { t: 'close' }) => {
  if (m.t === 'listen') void listen(m.fd);
  else void close();
});
port.postMessage({ t: 'ready' });

/**
 * Listens on the configured port (first thread) or on the socket another thread opened. The
 * server is started directly (not with `app.listen`): the process prints one banner for all
 * threads, not a log line per thread.
 */
async function listen(fd: number | undefined): Promise<void> {
  const server = app.server as unknown as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (fd === undefined) server.listen({ port: config.server.port, host: config.server.host }, () => resolve());
    else server.listen({ fd }, () => resolve());
  });
  if (fd === undefined) {
    const handle = (server as unknown as { _handle: { fd: number } })._handle;
    port.postMessage({ t: 'listening', fd: handle.fd, port: (server.address() as { port: number }).port });
  } else {
    port.postMessage({ t: 'listening' });
  }
}

/**
 * Leaves the thread ready for the process to end: routes still queued for their INSERT are
 * written, the change log and the ports are let go. The listening socket is not closed here: every
 * serving thread holds the same descriptor, and a close by one would leave the others on a number
 * the process may reuse; it closes when the process exits, after the database.
 */
async function close(): Promise<void> {
  clearInterval(expiry);
  await app.services.routing?.routes.flushed().catch(() => undefined);
  await ctx.changes?.stop();
  await db.close().catch(() => undefined);
  port.postMessage({ t: 'closed' });
}
