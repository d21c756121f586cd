/**
 * The window builder: one thread per serving process that builds the routing engine's time-window
 * tables (`docs/routing.md`), so that no serving thread spends its event loop or its heap on them.
 * A serving thread that needs a table it lacks asks for it (`{ t: 'window-build', bin, horizonS }`,
 * relayed by the main thread) and meanwhile searches on an earlier bin's table or on free-flow
 * bounds; the builder builds it in its own event-loop turns (so it keeps reading the change log)
 * and publishes it (`{ t: 'window', key, table }`, its arrays in shared memory), and the main thread
 * hands it to every serving thread. Its bounds are checked against this thread's speeds, which
 * follow the change log as a serving thread's do, and again by each serving thread before use.
 *
 * It runs at a lower priority (nice `WINDOW_BUILDER_NICE`): requests come first on a busy machine,
 * and the tables follow on idle cores.
 *
 * Ports: main → builder `{ t: 'window-build', bin, horizonS }`, `{ t: 'close' }`; builder → main
 * `{ t: 'ready' }`, `{ t: 'window', key, table }`, `{ t: 'closed' }`.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Config } from '../../config/schema.js';
import { loadRegion } from '../../network/bundle.js';
import type { Db } from '../../store/db.js';
import { openPostgres } from '../../store/postgres-db.js';
import { remoteDb } from '../../store/remote-db.js';
import { latestChangeSeq } from '../../store/changes.js';
import { SpeedFeeds } from '../../traffic/feeds.js';
import { loadSpeedFeeds } from '../../traffic/learned-speeds.js';
import { RoutingEngine } from '../../routing/index.js';
import { followChanges } from '../follow-changes.js';
import { engineConfigOf, useSharedRouting, type SharedRouting, type WindowBuildMessage } from './shared-routing.js';

/** Nice value of the window builder thread (serving threads run at the process's own). */
export const WINDOW_BUILDER_NICE = 10;

/** What the window builder is given. */
export interface WindowBuilderData {
  config: Config;
  regionDir: string;
  /** graph.bin in a SharedArrayBuffer */
  graphBytes: Uint8Array;
  routing: SharedRouting;
  dbPort?: MessagePort;
  databaseUrl?: string;
}

const data = workerData as WindowBuilderData;
const port = parentPort!;
try {
  setPriority(WINDOW_BUILDER_NICE);
} catch {
  // a platform that refuses leaves the builder at the process's priority
}

const region = loadRegion(data.regionDir, { graphBytes: data.graphBytes });
useSharedRouting(region.graph, data.routing, port, 'builder');
const db: Db = data.dbPort
  ? remoteDb(data.dbPort)
  : await openPostgres(data.databaseUrl!, { applicationName: 'streetwise serving' });
const speeds = new SpeedFeeds();
const fromSeq = await latestChangeSeq(db);
await loadSpeedFeeds(db, region.graph, speeds, { mapVersion: region.meta.mapVersion, nowS: Date.now() / 1000 });
const changes = await followChanges({ db, region, speeds, now: Date.now }, fromSeq, (err) =>
  console.error(`change log (window builder): ${String(err)}`),
);
// incidents never lower a bound: the builder's engine has none
const engine = new RoutingEngine(region.graph, speeds, null, region.meta.timeZone, engineConfigOf(data.config));
const expiry = setInterval(() => speeds.expireLive(Date.now() / 1000 - 3600), 60_000);
expiry.unref();

port.on('message', (m: WindowBuildMessage | { t: 'close' }) => {
  if (m.t === 'window-build') engine.windows?.requested(m.bin, m.horizonS);
  else if (m.t === 'close') void close();
});
port.postMessage({ t: 'ready' });

async function close(): Promise<void> {
  clearInterval(expiry);
  await changes.stop();
  await db.close().catch(() => undefined);
  port.postMessage({ t: 'closed' });
}
