/**
 * A serving thread: answers HTTP requests on the port it shares with the other serving threads
 * (each on its own socket with `reusePort`; where Node lacks it, one serving thread runs;
 * `socket-sharing.ts`). The graph's typed arrays live in
 * shared memory, loaded once by the main thread, and so are the routing engine's read-only
 * structures (search hierarchy, landmarks, layout, snapping index) and its window tables, which the
 * process's window builder makes (`shared-routing.ts`, `window-builder.ts`); what a request changes
 * is this thread's own (search labels, caches,
 * speeds in memory). The database is reached through its own port to the
 * embedded database's thread or its own PostgreSQL pool; probe bodies are stored from here and
 * processed by the region's ingestion workers; the change log keeps this thread's speeds,
 * incidents and parking inventory current.
 *
 * Ports: main → thread `{ t: 'listen', port? }` (the first thread listens on the configured port
 * and reports `{ t: 'listening', port }`), `{ t: 'close' }`; thread → main `{ t: 'ready' }`,
 * `{ t: 'listening' }`, `{ t: 'closed' }`, `{ t: 'window-build', bin, horizonS }` (a window table
 * this thread needs, relayed to the builder); main → thread `{ t: 'window', key, table }` (a table
 * the builder finished).
 * A serving thread that dies takes the process down with it; the process supervisor restarts it.
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
import { useSharedRouting, type SharedRouting } from './shared-routing.js';
import type { SharedParkingBase } from '../../parking/index.js';
import { listenOptions, socketSharing } from './socket-sharing.js';

/** What a serving thread is given. */
export interface ServingWorkerData {
  index: number;
  config: Config;
  regionDir: string;
  /** graph.bin in a SharedArrayBuffer */
  graphBytes: Uint8Array;
  /** the routing structures every serving thread shares, or undefined when routing is not served */
  routing?: SharedRouting;
  /** the parking inventory's lots and blocks, or undefined when parking is not served */
  parking?: SharedParkingBase;
  dbPort?: MessagePort;
  databaseUrl?: string;
}

const data = workerData as ServingWorkerData;
const port = parentPort!;
const { config } = data;

const region = loadRegion(data.regionDir, { graphBytes: data.graphBytes });
if (data.routing) useSharedRouting(region.graph, data.routing, port, 'serving');
const db: Db = data.dbPort
  ? remoteDb(data.dbPort)
  : await openPostgres(data.databaseUrl!, { applicationName: 'streetwise serving' });
const speeds = new SpeedFeeds();
// the embedded database's one process runs the ingestion role; on PostgreSQL the workers are counted
const ingestion = {
  workers: workersOf({ db, region: region.meta.name, databaseUrl: data.databaseUrl }, 1),
};
const ctx: AppContext = {
  config,
  db,
  region,
  speeds,
  auth: new DbAuthService(db),
  now: Date.now,
  ingestion,
  parkingBase: data.parking,
};
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

port.on('message', (m: ({ t: 'listen' } & ListenOn) | { t: 'close' } | { t: 'window' }) => {
  if (m.t === 'listen') void listen(m);
  else if (m.t === 'close') void close();
});
port.postMessage({ t: 'ready' });

/** Where a later thread listens: the port the first thread bound (each thread with its own `reusePort` socket). */
interface ListenOn {
  port?: number;
}

/**
 * Listens on the configured port (first thread, which reports the port it bound: the configured
 * one may be 0) or on the first thread's port (`socket-sharing.ts`). The server is started
 * directly (not with `app.listen`): the process prints one banner for all threads, not a log
 * line per thread.
 */
async function listen(on: ListenOn): Promise<void> {
  const server = app.server as unknown as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenOptions(on.port ?? config.server.port, config.server.host, socketSharing()), () => resolve());
  });
  port.postMessage({ t: 'listening', port: (server.address() as { port: number }).port });
}

/**
 * Leaves the thread ready for the process to end: routes still queued for their INSERT are
 * written, the change log and the ports are let go. The listening socket is left open: the process
 * exits once every thread has closed (`cli/serve.ts`), and the socket closes with it, after the
 * database.
 */
async function close(): Promise<void> {
  clearInterval(expiry);
  await app.services.routing?.routes.flushed().catch(() => undefined);
  await ctx.changes?.stop();
  await db.close().catch(() => undefined);
  port.postMessage({ t: 'closed' });
}
