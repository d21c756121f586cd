/**
 * The edge-based search kernel under routing, map matching and the simulator: one label per
 * directed edge (the cost of having driven it, or of reaching its start: the service's unit and
 * meaning), so a turn restriction is a transition that is simply never relaxed and turn costs
 * are exact. The kernel owns the labels (cost, arrival time, parent) in typed arrays reused
 * across searches with a generation counter (not reentrant: one search at a time), the lazy
 * queue discipline (an entry counts only when its key is its label's latest), the settle loop
 * and the relaxation loop. A service parameterises it by subclassing:
 *
 * - `leave(e, c)`: the cost at the head of edge e before any turn (node delays, distance to the
 *   end of the edge), or Infinity to expand nothing from there (pruning);
 * - `enter(e, f, c)`: the cost of label f reached through e, static or time-dependent (setting
 *   `arrivalS`), or Infinity when f may not be entered that way (one-way, excluded, banned turn);
 * - `potential(f)`: the lower bound added to the label's cost for its queue key (0: Dijkstra);
 * - `keep(f, c)`: whether a new label is worth queueing (dead ends: routing's);
 * - `SearchTraits`: which of the optional hooks (times, potential, keep) are used at all;
 * - `stopBefore(minKey)` and `settledLabel(e)`: the stop rule (one target proven best; several
 *   targets within a bound);
 * - the queue: an exact binary heap (`HeapQueue`) or routing's bucket queue (`BucketQueue`).
 *
 * Relaxation checks the kernel's turn restrictions (in the search's edge ids) when a service
 * passes them; a service that folds them into its own turn table passes null.
 * Users: `src/routing/search/label-search.ts`, `src/probes/match/route-search.ts`,
 * `src/sim/router.ts` (docs/architecture.md, "One search kernel").
 */
import type { LabelQueue } from './label-queue.js';

/** The forward star the kernel relaxes over, in the search's own edge and node ids. */
export interface EdgeStar {
  /** out edges of node v are firstOut[v] … firstOut[v+1]-1 */
  readonly firstOut: Uint32Array;
  /** head node of each edge */
  readonly edgeTarget: Uint32Array;
}

/** Turn restrictions in the search's edge ids. */
export interface TurnCheck {
  /** true when a vehicle on edge `from` may continue onto edge `to` */
  isTurnAllowed(from: number, to: number): boolean;
  /** number of restrictions (0: no check is made) */
  readonly size: number;
}

/** Which optional hooks a parameterisation uses (the loops skip the others: matching's are the leanest). */
export interface SearchTraits {
  /** labels carry times (`enter` sets `arrivalS`): time-dependent costs */
  timed: boolean;
  /** queue keys add `potential` (goal direction); else the key is the cost (Dijkstra) */
  directed: boolean;
  /** `keep` may drop new labels */
  drops: boolean;
}

/** Labels, queue discipline, settle loop and relaxation of one edge-based search at a time. */
export abstract class EdgeSearch {
  /** cost of each edge's label (the service's unit), valid where gen = generation */
  protected readonly cost: Float64Array;
  /** time the label's edge is left (time-dependent costs), unix seconds */
  protected readonly time: Float64Array;
  /** edge through which the label was reached, −1 for a source */
  protected readonly parent: Int32Array;
  /**
   * key of a label's latest queue entry, to single precision (−1 once settled or dropped): older
   * entries are stale. An older entry within single precision of the latest settles the label at
   * its current cost a hair early, which the queue's reopening already allows for (its buckets are
   * coarser); half the bytes of a double per directed edge and thread.
   */
  protected readonly pushedKey: Float32Array;
  /**
   * generation stamp per edge: the label belongs to the running search (16 bits: cleared once
   * every 65 535 searches, half the bytes per directed edge and thread of a 32-bit stamp)
   */
  protected readonly gen: Uint16Array;
  protected generation = 0;
  /** time at which the edge `enter` just costed is left (set by `enter` when costs depend on time) */
  protected arrivalS = 0;
  /** the graph has turn restrictions to check (they are fixed with the graph) */
  private readonly checkTurns: boolean;
  /** true when the last `settle` stopped at its label limit */
  exhausted = false;
  /**
   * A settled label is not reopened when its cost improves: set for weighted searches (inflated
   * bounds), whose answer stays within the weight of the optimum without reopening while
   * reopening can cascade through every label downstream of an improved one.
   */
  protected noReopen = false;

  constructor(
    edgeCount: number,
    /** the graph (or the search's layout of it) relaxed over */
    protected readonly star: EdgeStar,
    /** turn restrictions checked on every relaxation, or null (none, or folded into `enter`) */
    private readonly turns: TurnCheck | null,
    /** the label queue */
    protected queue: LabelQueue,
    /** the optional hooks used */
    private readonly traits: SearchTraits,
  ) {
    this.cost = new Float64Array(edgeCount);
    this.time = new Float64Array(edgeCount);
    this.parent = new Int32Array(edgeCount);
    this.pushedKey = new Float32Array(edgeCount);
    this.gen = new Uint16Array(edgeCount);
    this.checkTurns = turns !== null && turns.size > 0;
  }

  /** Cost at the head of edge e whose label costs c, before any turn; Infinity: nothing is relaxed from there. */
  protected abstract leave(e: number, c: number): number;

  /** Cost of a label on f reached from e's head at cost c (`leave`'s), or Infinity; sets `arrivalS` if times matter. */
  protected abstract enter(e: number, f: number, c: number): number;

  /** Lower bound of the cost from label e to a target (the queue key adds it to the label's cost). */
  protected abstract potential(e: number): number;

  /** Whether the label just set on f (cost c) is queued; false drops it. Default: always. */
  protected keep(_f: number, _c: number): boolean {
    return true;
  }

  /** Whether to stop before settling a label of key `minKey` (the least in the queue). Default: never. */
  protected stopBefore(_minKey: number): boolean {
    return false;
  }

  /** Called once per settled label before it is relaxed; true stops the search there. Default: go on. */
  protected settledLabel(_e: number): boolean {
    return false;
  }

  /** Stamps of a subclass keyed by generation, cleared when the counter wraps. */
  protected clearStamps(): void {}

  /** Starts a new search: a new label generation and an empty queue. */
  protected startSearch(): void {
    if (++this.generation === 0xffff) {
      this.gen.fill(0);
      this.clearStamps();
      this.generation = 1;
    }
    this.queue.clear();
  }

  /** Labels source edge e with cost c left at time tS, unless it has a label at least as good; true when labelled. */
  protected seed(e: number, c: number, tS: number): boolean {
    if (this.gen[e] === this.generation && !(c < this.cost[e])) return false;
    this.gen[e] = this.generation;
    this.cost[e] = c;
    this.time[e] = tS;
    this.parent[e] = -1;
    this.push(e, c);
    return true;
  }

  /** Queues label e (cost c) keyed by its cost plus its potential. */
  protected push(e: number, c: number): void {
    const k = this.traits.directed ? c + this.potential(e) : c;
    this.pushedKey[e] = k;
    this.queue.push(e, k);
  }

  /**
   * Settles labels in key order until `stopBefore` or `settledLabel` says so, the queue is empty
   * or `maxSettled` labels were settled (then `exhausted`); returns the labels settled. A settled
   * label whose cost later improves is queued again (reopened), so inexact queues stay exact
   * (not in a weighted search: `noReopen`).
   */
  protected settle(maxSettled: number): number {
    const queue = this.queue;
    const pushedKey = this.pushedKey;
    let settled = 0;
    this.exhausted = false;
    while (queue.length > 0) {
      if (this.stopBefore(queue.peekKey())) break;
      const e = queue.pop();
      if (Math.fround(queue.lastKey) !== pushedKey[e]) continue; // stale entry (a better label was pushed, or already settled)
      pushedKey[e] = -1;
      if (++settled > maxSettled) {
        this.exhausted = true;
        break;
      }
      if (this.settledLabel(e)) break;
      this.relax(e);
    }
    return settled;
  }

  /** Relaxes every allowed turn out of settled label e. */
  protected relax(e: number): void {
    this.relaxFrom(e, this.cost[e], e);
  }

  /**
   * Relaxes every allowed turn out of edge e, driven at cost c, into labels whose parent is
   * `parentEdge` (−1: e is where the search starts, not a label). Hot loop: no allocation.
   */
  protected relaxFrom(e: number, c: number, parentEdge: number): void {
    const { firstOut, edgeTarget } = this.star;
    const { cost, gen } = this;
    const { timed, drops } = this.traits;
    const noReopen = this.noReopen;
    const pushedKey = this.pushedKey;
    const turns = this.turns;
    const checkTurns = this.checkTurns;
    const cur = this.generation;
    const atHead = this.leave(e, c);
    if (atHead === Infinity) return;
    const v = edgeTarget[e];
    for (let f = firstOut[v], end = firstOut[v + 1]; f < end; f++) {
      if (checkTurns && !turns!.isTurnAllowed(e, f)) continue; // turn restriction
      const nc = this.enter(e, f, atHead);
      if (nc === Infinity) continue;
      if (gen[f] === cur && (!(nc < cost[f]) || (noReopen && pushedKey[f] === -1))) continue;
      gen[f] = cur;
      cost[f] = nc;
      if (timed) this.time[f] = this.arrivalS;
      this.parent[f] = parentEdge;
      if (drops && !this.keep(f, nc)) {
        pushedKey[f] = -1; // an older queue entry of f is stale now
        continue;
      }
      this.push(f, nc);
    }
  }

  /** Edges from the search's source to label e (both included), in driving order. */
  protected edgesTo(e: number): number[] {
    const path: number[] = [];
    for (let p = e; p >= 0; p = this.parent[p]) path.push(p);
    return path.reverse();
  }
}
