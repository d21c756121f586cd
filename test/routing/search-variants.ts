/**
 * Test-only variants of the route search and an engine that runs one: the production search
 * with dead-end labels kept (`KeepDeadEnds`), kept and audited (`DeadEndAudit`), relaxing through
 * the kernel's generic loop instead of the inlined one (`KernelModel`), and the plain reference
 * Dijkstra (`referenceEngine`).
 */
import type { Graph } from '../../src/network/graph.js';
import type { SpeedFeeds } from '../../src/traffic/feeds.js';
import type { IncidentCache } from '../../src/traffic/incidents.js';
import { RoutingEngine, type EngineConfig } from '../../src/routing/engine.js';
import { TdAstar } from '../../src/routing/search/td-astar.js';
import type { RouteSearch } from '../../src/routing/search/search-types.js';
import { ReferenceSearch } from './reference-search.js';

/** The production search building its labels exactly as the engine's would. */
export function tdAstarOf<S extends TdAstar>(
  e: RoutingEngine,
  Kind: new (...a: ConstructorParameters<typeof TdAstar>) => S,
): S {
  return new Kind(e.model, e.landmarks, e.restrictions, e.usable, e.cfg.activeLandmarks, e.windows, e.cch);
}

/**
 * The route search relaxing through the shared kernel's loop (`EdgeSearch.relaxFrom` with
 * `LabelSearch`'s hooks) instead of `InlinedLabelSearch`'s specialised copy: the model the
 * production loop must agree with.
 */
export class KernelModel extends TdAstar {
  protected override relax(e: number): void {
    this.relaxFrom(e, this.cost[e], e);
  }
}

/** The search with dead-end labels kept: what the rule saves, and the same answers. */
export class KeepDeadEnds extends TdAstar {
  protected override dropDeadEnd(): boolean {
    return false;
  }
}

/**
 * The search with dead-end labels marked instead of dropped: every label the rule would drop
 * that, once settled, pushes a label or improves the best target counts in `violations`
 * (0 = the rule only drops labels that change nothing).
 */
export class DeadEndAudit extends TdAstar {
  /** labels marked as dead ends, over every search */
  marked = 0;
  violations = 0;
  private claimed: Uint32Array | null = null;

  protected override dropDeadEnd(f: number, nc: number): boolean {
    this.claimed ??= new Uint32Array(this.layout.edgeCount);
    const dead = this.isDeadEnd(f, nc);
    this.claimed[f] = dead ? this.generation : 0;
    if (dead) this.marked++;
    return false;
  }

  protected override relax(e: number): void {
    const claimed = this.claimed !== null && this.claimed[e] === this.generation;
    const pushed = this.queue.length;
    const best = this.best;
    super.relax(e);
    if (claimed && (this.queue.length !== pushed || this.best !== best)) this.violations++;
  }
}

/** A routing engine whose searches run on the search `make` builds for it. */
export class EngineWithSearch<S extends RouteSearch> extends RoutingEngine {
  readonly search: S;

  constructor(
    graph: Graph,
    feeds: SpeedFeeds,
    incidents: IncidentCache | null,
    timeZone: string,
    cfg: Partial<EngineConfig>,
    make: (e: RoutingEngine) => S,
  ) {
    super(graph, feeds, incidents, timeZone, cfg);
    this.search = make(this);
    this.astar = this.search;
  }
}

/** An engine on the plain reference Dijkstra (no landmarks, no CCH, no window tables). */
export function referenceEngine(graph: Graph, feeds: SpeedFeeds, timeZone: string): EngineWithSearch<ReferenceSearch> {
  return new EngineWithSearch(
    graph,
    feeds,
    null,
    timeZone,
    { landmarkCount: 0, potentials: 'landmarks', windowBounds: false },
    (e) => new ReferenceSearch(e.model, e.restrictions, e.usable),
  );
}
