/**
 * Builds small road graphs from a plan in metres (x east, y north) around a fixed origin, so a
 * test can draw its map in a comment and name nodes and edges by letters.
 */
import {
  buildGraph,
  EdgeFlag,
  RoadClass,
  type Graph,
  type EdgeInput,
  type RoadClassId,
} from '../../src/network/graph.js';
import type { Ping } from '../../src/probes/trajectory.js';

/** Origin of every plan (near the equator, so metres map almost linearly to degrees). */
export const ORIGIN_LAT = 0.5;
export const ORIGIN_LON = 10;
const M_PER_DEG = 111_195.08;

/** A street in the plan: consecutive node names; two-way unless `oneway`. */
export interface PlanWay {
  path: string;
  oneway?: boolean;
  flags?: number;
  roadClass?: RoadClassId;
  speedKph?: number;
}

/** A built plan: the graph plus lookups by node letters. */
export interface Plan {
  graph: Graph;
  node(name: string): number;
  /** directed edge from node letter a to node letter b (throws if absent) */
  edge(ab: string): number;
  /** names of edges ("ab") for a list of edge ids */
  names(edges: number[]): string[];
}

/** Degrees of a plan position. */
export function toLatLon(x: number, y: number): [number, number] {
  return [ORIGIN_LAT + y / M_PER_DEG, ORIGIN_LON + x / (M_PER_DEG * Math.cos((ORIGIN_LAT * Math.PI) / 180))];
}

/** A ping at plan position (x, y) metres at time t seconds (offset from a fixed epoch). */
export function pingAt(x: number, y: number, t: number): Ping {
  const [lat, lon] = toLatLon(x, y);
  return { tS: 1_767_600_000 + t, lat, lon };
}

/** Builds a graph from named nodes (single letters), ways written as letter strings ("abc") and node flags. */
export function planGraph(
  nodes: Record<string, [number, number]>,
  ways: PlanWay[],
  nodeFlags: Record<string, number> = {},
): Plan {
  const names = Object.keys(nodes);
  const idOf = new Map(names.map((n, i) => [n, i]));
  const edges: EdgeInput[] = [];
  const keys: string[] = [];
  for (const w of ways) {
    for (let i = 0; i + 1 < w.path.length; i++) {
      const a = idOf.get(w.path[i]);
      const b = idOf.get(w.path[i + 1]);
      if (a === undefined || b === undefined) throw new Error(`unknown node in ${w.path}`);
      const base = {
        speedKph: w.speedKph ?? 50,
        roadClass: w.roadClass ?? RoadClass.residential,
        flags: (w.flags ?? 0) | EdgeFlag.routable,
      };
      const fwd = edges.length;
      edges.push({ ...base, source: a, target: b, twin: w.oneway ? undefined : fwd + 1 });
      keys.push(w.path[i] + w.path[i + 1]);
      if (!w.oneway) {
        edges.push({ ...base, source: b, target: a, twin: fwd });
        keys.push(w.path[i + 1] + w.path[i]);
      }
    }
  }
  const { graph, edgeIdOf } = buildGraph({
    nodes: names.map((n) => {
      const [lat, lon] = toLatLon(nodes[n][0], nodes[n][1]);
      return { lat, lon, flags: nodeFlags[n] ?? 0 };
    }),
    edges,
  });
  const byKey = new Map(keys.map((k, i) => [k, edgeIdOf[i]]));
  const nameOf = new Map(keys.map((k, i) => [edgeIdOf[i], k]));
  return {
    graph,
    node: (n) => idOf.get(n) as number,
    edge: (ab) => {
      const e = byKey.get(ab);
      if (e === undefined) throw new Error(`no edge ${ab}`);
      return e;
    },
    names: (ids) => ids.map((e) => nameOf.get(e) ?? `#${e}`),
  };
}
