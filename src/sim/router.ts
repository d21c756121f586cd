/**
 * The simulator's own route choice (services never import `routing/`): an edge-based Dijkstra on
 * the travel times links have *now* (congestion at departure) plus an expected signal wait,
 * respecting one-ways and turn restrictions. Not reentrant; reuses its arrays.
 */
import FlatQueue from 'flatqueue';
import { EdgeFlag, RoadClass, TurnRestrictions, type Graph } from '../network/graph.js';

/** Returns the current travel time of an edge, seconds. */
export type EdgeTimeFn = (edge: number) => number;

/** Reusable time-dependent shortest-path search for simulated trips. */
export class SimRouter {
  private readonly cost: Float64Array;
  private readonly pred: Int32Array;
  private readonly seen: Uint32Array;
  private generation = 0;
  private readonly queue = new FlatQueue<number>();
  private readonly turns: TurnRestrictions;
  private readonly drivable: Uint8Array;

  constructor(private readonly graph: Graph) {
    this.cost = new Float64Array(graph.edgeCount);
    this.pred = new Int32Array(graph.edgeCount);
    this.seen = new Uint32Array(graph.edgeCount);
    this.turns = new TurnRestrictions(graph);
    this.drivable = new Uint8Array(graph.edgeCount);
    for (let e = 0; e < graph.edgeCount; e++) {
      const f = graph.edgeFlags[e];
      this.drivable[e] =
        (f & EdgeFlag.routable) !== 0 && (f & EdgeFlag.reversible) === 0 && graph.edgeRoadClass[e] !== RoadClass.ferry
          ? 1
          : 0;
    }
  }

  /**
   * Fastest path from the start of edge `from` to the end of edge `to` (both included) under the
   * edge times `timeOf` plus `nodeDelayS` per crossed node; undefined when unreachable.
   */
  route(from: number, to: number, timeOf: EdgeTimeFn, nodeDelayS: (inEdge: number) => number): number[] | undefined {
    const g = this.graph;
    const gen = ++this.generation;
    const q = this.queue;
    q.clear();
    this.seen[from] = gen;
    this.cost[from] = timeOf(from);
    this.pred[from] = -1;
    q.push(from, this.cost[from]);
    const checkTurns = this.turns.size > 0;
    while (q.length > 0) {
      const c = q.peekValue() as number;
      const e = q.pop() as number;
      if (c > this.cost[e]) continue;
      if (e === to) {
        const path: number[] = [];
        for (let p = e; p >= 0; p = this.pred[p]) path.push(p);
        return path.reverse();
      }
      const node = g.edgeTarget[e];
      const base = c + nodeDelayS(e);
      // No U-turns, except at a dead end where turning is the only way on.
      const deadEnd = g.firstOut[node + 1] - g.firstOut[node] <= 1;
      for (let f = g.firstOut[node]; f < g.firstOut[node + 1]; f++) {
        if (this.drivable[f] === 0 || (f === g.edgeTwin[e] && !deadEnd)) continue;
        if (checkTurns && !this.turns.isTurnAllowed(e, f)) continue;
        const nc = base + timeOf(f);
        if (this.seen[f] !== gen || nc < this.cost[f]) {
          this.seen[f] = gen;
          this.cost[f] = nc;
          this.pred[f] = e;
          q.push(f, nc);
        }
      }
    }
    return undefined;
  }
}
