/**
 * The graph the CCH lower bounds are computed on: the road graph with node-based arcs, except at
 * intersections where turn costs differ a lot (signals: right 10 s, through 15 s, left 25 s) or
 * turns are forbidden. Such a node is *expanded*: one bound node per incoming edge, and an arc per
 * allowed movement carrying its exact turn cost. Elsewhere an arc carries the cheapest turn into
 * its edge. Without the expansion every signal on a route would be under-estimated by 5 s or more,
 * and on a signalized grid that slack lets A* settle a wide band around the route.
 *
 * An arc's weight for a metric = (edge travel-time bound) + (turn part), so one bound graph serves
 * every metric (free flow, time windows). A label of the edge-based A* (arrival at the head of
 * edge e) maps to bound node `headNode[e]`.
 */
import type { Graph } from '../../../network/graph.js';

/** Node-based lower-bound graph with partial turn expansion. */
export interface BoundGraph {
  nodeCount: number;
  /** coordinates of each bound node (an expanded node's copies share the node's position) */
  latE7: Int32Array;
  lonE7: Int32Array;
  /** bound node reached at the head of each usable graph edge; -1 for unusable edges */
  headNode: Int32Array;
  /** arcs: tail, head (bound nodes), graph edge travelled and turn delay into it (seconds) */
  arcTail: Int32Array;
  arcHead: Int32Array;
  arcEdge: Int32Array;
  arcTurnS: Float32Array;
  /** graph nodes expanded into one bound node per incoming edge */
  expandedCount: number;
}

/**
 * Builds the bound graph. `turnS(p, f)` = delay of the movement p → f in seconds, or −1 when
 * forbidden; `minTurnInS[f]` = cheapest delay into f; a node is expanded when a movement other
 * than a U-turn costs more than `expandOverS` above its edge's cheapest, or is forbidden.
 */
export function buildBoundGraph(
  g: Graph,
  usable: Uint8Array,
  turnS: (p: number, f: number) => number,
  minTurnInS: Float32Array,
  expandOverS: number,
): BoundGraph {
  const n = g.nodeCount;
  const { expanded, expandedCount } = expandedNodes(g, usable, turnS, minTurnInS, expandOverS);
  // bound nodes: one per plain graph node, one per usable in-edge of an expanded node
  const nodeOf = new Int32Array(n).fill(-1);
  const headNode = new Int32Array(g.edgeCount).fill(-1);
  let count = 0;
  for (let v = 0; v < n; v++) if (!expanded[v]) nodeOf[v] = count++;
  for (let e = 0; e < g.edgeCount; e++) {
    if (!usable[e]) continue;
    const w = g.edgeTarget[e];
    headNode[e] = expanded[w] ? count++ : nodeOf[w];
  }
  const latE7 = new Int32Array(count);
  const lonE7 = new Int32Array(count);
  for (let v = 0; v < n; v++) {
    if (nodeOf[v] < 0) continue;
    latE7[nodeOf[v]] = g.nodeLatE7[v];
    lonE7[nodeOf[v]] = g.nodeLonE7[v];
  }
  for (let e = 0; e < g.edgeCount; e++) {
    if (headNode[e] < 0 || !expanded[g.edgeTarget[e]]) continue;
    latE7[headNode[e]] = g.nodeLatE7[g.edgeTarget[e]];
    lonE7[headNode[e]] = g.nodeLonE7[g.edgeTarget[e]];
  }
  const tail: number[] = [],
    head: number[] = [],
    edge: number[] = [],
    turn: number[] = [];
  for (let f = 0; f < g.edgeCount; f++) {
    if (!usable[f]) continue;
    const u = g.edgeSource[f];
    const h = headNode[f];
    if (!expanded[u]) {
      tail.push(nodeOf[u]);
      head.push(h);
      edge.push(f);
      turn.push(minTurnInS[f]);
      continue;
    }
    for (let i = g.firstIn[u]; i < g.firstIn[u + 1]; i++) {
      const p = g.inEdges[i];
      if (!usable[p]) continue;
      const c = turnS(p, f);
      if (c < 0) continue;
      tail.push(headNode[p]);
      head.push(h);
      edge.push(f);
      turn.push(c);
    }
  }
  return {
    nodeCount: count,
    latE7,
    lonE7,
    headNode,
    arcTail: Int32Array.from(tail),
    arcHead: Int32Array.from(head),
    arcEdge: Int32Array.from(edge),
    arcTurnS: Float32Array.from(turn),
    expandedCount,
  };
}

/** Appends the bound nodes a search reaching graph node `u` may arrive at (its in-edges' heads). */
export function boundNodesAt(g: Graph, bg: BoundGraph, u: number, out: number[]): void {
  for (let i = g.firstIn[u]; i < g.firstIn[u + 1]; i++) {
    const h = bg.headNode[g.inEdges[i]];
    if (h >= 0) out.push(h);
  }
}

/**
 * The nodes expanded into one bound node per usable in-edge: those with a forbidden turn or a turn
 * costing more than `expandOverS` above the cheapest turn into its out-edge (U-turns aside).
 */
function expandedNodes(
  g: Graph,
  usable: Uint8Array,
  turnS: (p: number, f: number) => number,
  minTurnInS: Float32Array,
  expandOverS: number,
): { expanded: Uint8Array; expandedCount: number } {
  const n = g.nodeCount;
  const expanded = new Uint8Array(n);
  let expandedCount = 0;
  for (let v = 0; v < n; v++) {
    let expand = false;
    for (let i = g.firstIn[v]; i < g.firstIn[v + 1] && !expand; i++) {
      const p = g.inEdges[i];
      if (!usable[p]) continue;
      for (let f = g.firstOut[v]; f < g.firstOut[v + 1]; f++) {
        if (!usable[f] || g.edgeTwin[p] === f || g.edgeSource[p] === g.edgeTarget[f]) continue;
        const c = turnS(p, f);
        if (c < 0 || c > minTurnInS[f] + expandOverS) {
          expand = true;
          break;
        }
      }
    }
    if (expand) {
      expanded[v] = 1;
      expandedCount++;
    }
  }
  return { expanded, expandedCount };
}
