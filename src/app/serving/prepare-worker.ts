/**
 * A short-lived thread that builds what a process's serving threads share (`shared-routing.ts`,
 * `shared-parking.ts`) and exits. The structures are built as ordinary arrays and then copied into
 * shared memory; building them in a thread of their own means everything but the shared copies
 * is released when the thread exits, instead of lingering in the main thread's heap until it
 * happens to collect garbage. The process's resident memory once serving is then what its
 * threads hold, however long the main thread stays idle.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../../config/schema.js';
import { prepareSharedRouting } from './shared-routing.js';
import { prepareSharedParking } from './shared-parking.js';

/** What the thread is started with. */
export interface PrepareData {
  config: Config;
  regionDir: string;
  /** graph.bin in a SharedArrayBuffer */
  graphBytes: Uint8Array;
}

const data = workerData as PrepareData;
const routing = prepareSharedRouting(data.config, data.graphBytes);
const parking = prepareSharedParking(data.config, data.regionDir, data.graphBytes);
parentPort!.postMessage({ t: 'prepared', routing, parking });
