/**
 * The routing structures the threads of a process share: the engine's read-only structures and
 * the snapping index, built once by the preparing thread (`prepare-worker.ts`) into shared memory
 * before the threads start
 * (`prepareSharedRouting`), and the window tables, built by the process's window builder thread
 * (`window-builder.ts`) when a serving thread asks, and handed to every serving thread
 * (`threadWindowExchange`, relayed by the main thread).
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
  type EngineConfig,
  type RoutingServiceConfig,
  type WindowExchange,
  type WindowTable,
} from '../../routing/index.js';

/** What the main thread hands every serving thread (typed arrays in shared memory). */
export interface SharedRouting {
  engine: EnginePrep;
  locator: LocatorParts;
}

/** A window table the builder finished (builder → main thread → every serving thread). */
export interface WindowMessage {
  t: 'window';
  key: string;
  table: WindowTable;
}

/** A serving thread's request for a window table (serving thread → main thread → builder). */
export interface WindowBuildMessage {
  t: 'window-build';
  bin: number;
  horizonS: number;
}

/** The routing engine settings of `config` (the shared structures are built for them). */
export function engineConfigOf(config: Config): EngineConfig {
  const routing = (config as unknown as { routing?: Partial<RoutingServiceConfig> }).routing ?? {};
  return { ...DEFAULT_ENGINE_CONFIG, ...(routing.engine ?? DEFAULT_ROUTING_CONFIG.engine) };
}

/** Builds the shared routing structures of the graph in `graphBytes`, or undefined when `config` serves no routing. */
export function prepareSharedRouting(config: Config, graphBytes: Uint8Array): SharedRouting | undefined {
  if (!config.server.services.includes('routing')) return undefined;
  const graph = decodeGraph(graphBytes);
  return {
    engine: shareEnginePrep(buildEnginePrep(graph, engineConfigOf(config))),
    locator: locatorOf(graph).parts(),
  };
}

/**
 * Makes the engines a thread builds on `graph` wrap the shared structures and trade window tables
 * through `port`: a serving thread asks for them, the builder builds and publishes them.
 */
export function useSharedRouting(
  graph: Graph,
  shared: SharedRouting,
  port: MessagePort,
  role: 'serving' | 'builder',
): void {
  shareLocator(graph, shared.locator);
  registerEnginePrep(graph, shared.engine, threadWindowExchange(port, role));
}

/**
 * A thread's side of the window exchange. A serving thread's requests and the builder's finished
 * tables go to the main thread, which passes requests to the builder and tables to every serving
 * thread; a serving thread searches on other bounds until the table arrives.
 */
export function threadWindowExchange(port: MessagePort, role: 'serving' | 'builder'): WindowExchange {
  const receivers: Array<(key: string, table: WindowTable) => void> = [];
  port.on('message', (m: { t?: string }) => {
    if (m.t !== 'window') return;
    const w = m as WindowMessage;
    for (const fn of receivers) fn(w.key, w.table);
  });
  const exchange: WindowExchange = {
    publish(key, table) {
      const m: WindowMessage = { t: 'window', key, table };
      port.postMessage(m);
    },
    onTable(fn) {
      receivers.push(fn);
    },
  };
  if (role === 'serving')
    exchange.request = (bin, horizonS) => {
      const m: WindowBuildMessage = { t: 'window-build', bin, horizonS };
      port.postMessage(m);
    };
  return exchange;
}
