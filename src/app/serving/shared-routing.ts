/**
 * The routing structures the serving threads of a process share: the engine's read-only
 * structures and the snapping index, built once by the main thread into shared memory before the
 * threads start (`prepareSharedRouting`), and the window tables, each built by the first thread
 * that needs it and handed to the others (`threadWindowExchange`, relayed by the main thread).
 */
import type { MessagePort } from 'node:worker_threads';
import type { Config } from '../../config/schema.js';
import { decodeGraph, locatorOf, shareLocator, type Graph, type LocatorParts } from '../../network/index.js';
import {
  DEFAULT_ENGINE_CONFIG,
  DEFAULT_ROUTING_CONFIG,
  buildEnginePrep,
  registerEnginePrep,
  shareEnginePrep,
  type EnginePrep,
  type RoutingServiceConfig,
  type WindowExchange,
  type WindowTable,
} from '../../routing/index.js';
import { BINS_PER_WEEK } from '../../traffic/feeds.js';

/** Horizon classes a claim slot exists for (more are built without coordination). */
const CLAIM_HORIZONS = 16;

/** What the main thread hands every serving thread (typed arrays in shared memory). */
export interface SharedRouting {
  engine: EnginePrep;
  locator: LocatorParts;
  /** per (departure bin, horizon class): 0, or 1 + the index of the thread building that window table */
  claims: Int32Array;
}

/** A window table message between a serving thread and the main thread. */
export interface WindowMessage {
  t: 'window';
  key: string;
  table: WindowTable;
}

/** Builds the shared routing structures of the graph in `graphBytes`, or undefined when `config` serves no routing. */
export function prepareSharedRouting(config: Config, graphBytes: Uint8Array): SharedRouting | undefined {
  if (!config.server.services.includes('routing')) return undefined;
  const graph = decodeGraph(graphBytes);
  const routing = (config as unknown as { routing?: Partial<RoutingServiceConfig> }).routing ?? {};
  const engineCfg = { ...DEFAULT_ENGINE_CONFIG, ...(routing.engine ?? DEFAULT_ROUTING_CONFIG.engine) };
  return {
    engine: shareEnginePrep(buildEnginePrep(graph, engineCfg)),
    locator: locatorOf(graph).parts(),
    claims: new Int32Array(new SharedArrayBuffer(BINS_PER_WEEK * CLAIM_HORIZONS * 4)),
  };
}

/** Makes the engines a serving thread builds on `graph` wrap the shared structures and trade window tables through `port`. */
export function useSharedRouting(graph: Graph, shared: SharedRouting, port: MessagePort, index: number): void {
  shareLocator(graph, shared.locator);
  registerEnginePrep(graph, shared.engine, threadWindowExchange(port, shared.claims, index));
}

/**
 * A serving thread's side of the window exchange: claims are compare-and-swap on the shared slots
 * (a thread that finds a slot taken waits for the table, with free-flow bounds meanwhile);
 * finished tables go to the main thread, which passes them to every other serving thread.
 */
export function threadWindowExchange(port: MessagePort, claims: Int32Array, index: number): WindowExchange {
  const receivers: Array<(key: string, table: WindowTable) => void> = [];
  port.on('message', (m: { t?: string }) => {
    if (m.t !== 'window') return;
    const w = m as WindowMessage;
    for (const fn of receivers) fn(w.key, w.table);
  });
  const slot = (bin: number, h: number): number =>
    h >= 0 && h < CLAIM_HORIZONS && bin >= 0 && bin < BINS_PER_WEEK ? bin * CLAIM_HORIZONS + h : -1;
  return {
    claim(bin, h) {
      const s = slot(bin, h);
      return s < 0 || Atomics.compareExchange(claims, s, 0, index + 1) === 0;
    },
    release(bin, h) {
      const s = slot(bin, h);
      if (s >= 0) Atomics.compareExchange(claims, s, index + 1, 0);
    },
    publish(key, table) {
      const m: WindowMessage = { t: 'window', key, table };
      port.postMessage(m);
    },
    onTable(fn) {
      receivers.push(fn);
    },
  };
}
