/**
 * The read-only structures of a routing engine, built once per graph and settings: the traffic
 * model's per-edge constants, usable edges and cheapest turns, ALT landmarks, the CCH (bound
 * graph, contraction, free-flow metric), the trip use of the time warps and the search's memory
 * layout. A server builds them once per process (`buildEnginePrep`), moves their typed arrays
 * into shared memory (`shareEnginePrep`) and hands them to its serving threads, which register
 * them for their graph (`registerEnginePrep`): every engine built on that graph with the same
 * settings then wraps them without copying. Nothing in them changes after the build; what a
 * thread changes per query (labels, target marks, potentials) stays its own.
 */
import { EdgeFlag, TurnRestrictions, type Graph } from '../network/graph.js';
import { SpeedFeeds } from '../traffic/feeds.js';
import {
  registerModelArrays,
  TrafficModel,
  type TrafficModelArrays,
  type TrafficModelConfig,
} from '../traffic/model.js';
import type { EngineConfig } from './engine.js';
import { computeLandmarks, type Landmarks } from './search/landmarks.js';
import type { CchBounds } from './search/td-astar.js';
import { buildBoundGraph } from './search/cch/bound-graph.js';
import { buildCchTopology } from './search/cch/topology.js';
import { customize } from './search/cch/customize.js';
import { tripUse, type TripUse } from './search/trip-use.js';
import { SearchLayout } from './search/layout.js';
import { DEFAULT_WINDOW_BOUNDS_CONFIG, type WindowExchange } from './search/window-bounds.js';
import { toSharedDeep } from './search/shared-arrays.js';

/** The read-only structures of the engines of one graph and settings. */
export interface EnginePrep {
  /** the settings they were built for (`prepKey`) */
  key: string;
  edgeCount: number;
  /** the traffic model settings `model` was computed with */
  traffic: Partial<TrafficModelConfig>;
  model: TrafficModelArrays;
  /** 1 when the search may use an edge at all */
  usable: Uint8Array;
  /** cheapest turn delay into each edge, seconds (0 when none) */
  minTurnIn: Float32Array;
  landmarks: Landmarks;
  /** CCH contraction and free-flow metric, or null (landmark potentials) */
  cch: CchBounds | null;
  /** trip use of edges and turns for time-warped window metrics, or null when none are built */
  tripUse: TripUse | null;
  layout: SearchLayout;
  /** CCH rank of the bound node at the head of each internal edge, or null */
  headRank: Int32Array | null;
}

/** True when the engine's window tables are time-warped CCH metrics (which need the trip use). */
function warpedWindows(cfg: EngineConfig): boolean {
  return (
    cfg.potentials === 'cch' &&
    cfg.windowBounds !== false &&
    (cfg.windowBounds.warp ?? DEFAULT_WINDOW_BOUNDS_CONFIG.warp)
  );
}

/** The settings the prepared structures depend on, as a string. */
export function prepKey(cfg: EngineConfig): string {
  return JSON.stringify([cfg.landmarkCount, cfg.potentials, cfg.cchExpandOverS, cfg.traffic, warpedWindows(cfg)]);
}

/** Builds the read-only structures of the engines of `g` with settings `cfg` (ordinary memory). */
export function buildEnginePrep(g: Graph, cfg: EngineConfig): EnginePrep {
  // the per-edge constants depend on the graph and settings only: no feeds, incidents or time zone
  const model = new TrafficModel(g, new SpeedFeeds(), null, 'UTC', cfg.traffic);
  const restrictions = new TurnRestrictions(g);
  let anyRoutable = false;
  for (let e = 0; e < g.edgeCount && !anyRoutable; e++) if (g.edgeFlags[e] & EdgeFlag.routable) anyRoutable = true;
  const usable = new Uint8Array(g.edgeCount);
  const weight = new Float32Array(g.edgeCount);
  const edgeTimeS = new Float32Array(g.edgeCount);
  for (let e = 0; e < g.edgeCount; e++) {
    const f = g.edgeFlags[e];
    usable[e] = f & EdgeFlag.reversible || (anyRoutable && !(f & EdgeFlag.routable)) ? 0 : 1;
    weight[e] = model.minTravelTimeS(e);
    edgeTimeS[e] = weight[e];
  }
  // Every edge after the first is entered through a turn: add the cheapest turn into it, so
  // signal and stop delays count in the lower bounds (they are time independent).
  const minTurnIn = new Float32Array(g.edgeCount);
  for (let e = 0; e < g.edgeCount; e++) {
    const u = g.edgeSource[e];
    let minTurn = Infinity;
    for (let i = g.firstIn[u]; i < g.firstIn[u + 1]; i++) {
      const p = g.inEdges[i];
      if (!restrictions.isTurnAllowed(p, e)) continue;
      const c = model.turns.costS(p, e);
      if (c < minTurn) minTurn = c;
    }
    if (minTurn !== Infinity) {
      weight[e] += minTurn;
      minTurnIn[e] = minTurn;
    }
  }
  const landmarks = computeLandmarks(g, weight, usable, cfg.landmarkCount);
  let cch: CchBounds | null = null;
  if (cfg.potentials === 'cch') {
    const turnS = (p: number, f: number): number => (restrictions.isTurnAllowed(p, f) ? model.turns.costS(p, f) : -1);
    const bound = buildBoundGraph(g, usable, turnS, minTurnIn, cfg.cchExpandOverS);
    const topo = buildCchTopology(bound);
    cch = { topo, freeFlow: customize(topo, edgeTimeS) };
  }
  const layout = new SearchLayout(model, restrictions, usable);
  let headRank: Int32Array | null = null;
  if (cch !== null) {
    const { bound, rankOf } = cch.topo;
    headRank = new Int32Array(g.edgeCount);
    for (let f = 0; f < headRank.length; f++) headRank[f] = rankOf[bound.headNode[layout.extEdge[f]]];
  }
  return {
    key: prepKey(cfg),
    edgeCount: g.edgeCount,
    traffic: cfg.traffic,
    model: { freeFlowKph: model.freeFlowKph, upperKph: model.upperKph, profileGroup: model.profileGroup },
    usable,
    minTurnIn,
    landmarks,
    cch,
    tripUse: warpedWindows(cfg) && cch !== null ? tripUse(model, usable, minTurnIn) : null,
    layout,
    headRank,
  };
}

/** `prep` with every typed array in shared memory (posted to threads without copying). */
export function shareEnginePrep(prep: EnginePrep): EnginePrep {
  return toSharedDeep(prep);
}

/** What a thread registered for a graph. */
interface Registered {
  prep: EnginePrep;
  exchange: WindowExchange | null;
}

const registry = new WeakMap<Graph, Registered>();

/**
 * Makes engines built on `g` (with the settings `prep` was built for) wrap `prep` instead of
 * building their own, and share window tables with the process's other threads through `exchange`.
 */
export function registerEnginePrep(g: Graph, prep: EnginePrep, exchange: WindowExchange | null = null): void {
  if (prep.edgeCount !== g.edgeCount) throw new Error('engine structures of another graph');
  registry.set(g, { prep, exchange });
  // the thread's other models of the graph (e.g. the learned speeds' prior) share the per-edge constants
  registerModelArrays(g, prep.traffic, prep.model);
}

/** The structures registered for `g`, when they were built with the settings of `cfg`. */
export function registeredEnginePrep(g: Graph, cfg: EngineConfig): Registered | undefined {
  const r = registry.get(g);
  return r !== undefined && r.prep.key === prepKey(cfg) ? r : undefined;
}
