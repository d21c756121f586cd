/**
 * Building the CSR road graph (`Graph`, see graph.ts) from node and edge lists: nodes, edges sorted
 * stably by source, per-edge attributes and geometry, the reverse adjacency, restrictions.
 */
import { bearingDeg, haversineM } from '../geo/index.js';
import type { Graph, NodeId, RestrictionKind, RoadClassId } from './graph.js';

/** One directed edge as given to `buildGraph` (import and hand-built test graphs). */
export interface EdgeInput {
  source: NodeId;
  target: NodeId;
  /** metres; computed from geometry when omitted */
  lengthM?: number;
  speedKph: number;
  speedTagged?: boolean;
  roadClass: RoadClassId;
  flags?: number;
  name?: string;
  ref?: string;
  wayId?: number;
  lanes?: number;
  /** intermediate shape points [lat, lon] (excluding source and target), in travel direction */
  shape?: ReadonlyArray<readonly [number, number]>;
  /** index in the input array of the opposite-direction edge, if any */
  twin?: number;
}

/** One node as given to `buildGraph`. */
export interface NodeInput {
  lat: number;
  lon: number;
  flags?: number;
  osmId?: number;
}

/** One turn restriction as given to `buildGraph`. */
export interface RestrictionInput {
  /** index into the input edge array */
  fromEdge: number;
  via: NodeId;
  /** index into the input edge array */
  toEdge: number;
  kind: (typeof RestrictionKind)[keyof typeof RestrictionKind];
}

/** Input of `buildGraph`. */
export interface GraphInput {
  nodes: readonly NodeInput[];
  edges: readonly EdgeInput[];
  restrictions?: readonly RestrictionInput[];
}

const E7 = 1e7;

/**
 * Builds the CSR graph from node and edge lists. Edge ids in the result are the input edges
 * sorted stably by source node; `edgeIdOf[inputIndex]` maps input index → EdgeId.
 * Node ids are kept as given. Nothing is flagged `routable` here unless the input says so;
 * call `markLargestScc` afterwards.
 *
 * @example
 * // 0 --- 1   (two-way residential, 30 km/h)
 * const { graph } = buildGraph({
 *   nodes: [{ lat: 0, lon: 0 }, { lat: 0, lon: 0.001 }],
 *   edges: [
 *     { source: 0, target: 1, speedKph: 30, roadClass: RoadClass.residential, twin: 1 },
 *     { source: 1, target: 0, speedKph: 30, roadClass: RoadClass.residential, twin: 0 },
 *   ],
 * });
 */
export function buildGraph(input: GraphInput): { graph: Graph; edgeIdOf: Uint32Array } {
  const nodes = nodeArrays(input.nodes);
  const { firstOut, edgeIdOf } = sortBySource(input);
  const names = new NameTable();
  const edges = edgeArrays(input, edgeIdOf, names);
  const { firstIn, inEdges } = reverseCsr(input.nodes.length, edges.edgeTarget);
  const graph: Graph = {
    nodeCount: input.nodes.length,
    edgeCount: input.edges.length,
    ...nodes,
    firstOut,
    firstIn,
    inEdges,
    ...edges,
    ...restrictionArrays(input.restrictions ?? [], edgeIdOf),
    names: names.names,
  };
  return { graph, edgeIdOf };
}

/** Node coordinates (degrees × 1e7), flags and OSM ids (the index when none is given). */
function nodeArrays(input: readonly NodeInput[]) {
  const n = input.length;
  const nodeLatE7 = new Int32Array(n);
  const nodeLonE7 = new Int32Array(n);
  const nodeFlags = new Uint8Array(n);
  const nodeOsmId = new Float64Array(n);
  input.forEach((node, i) => {
    nodeLatE7[i] = Math.round(node.lat * E7);
    nodeLonE7[i] = Math.round(node.lon * E7);
    nodeFlags[i] = node.flags ?? 0;
    nodeOsmId[i] = node.osmId ?? i;
  });
  return { nodeLatE7, nodeLonE7, nodeFlags, nodeOsmId };
}

/** Stable counting sort of the edges by source node: the forward CSR offsets and input index → EdgeId. */
function sortBySource(input: GraphInput): { firstOut: Uint32Array; edgeIdOf: Uint32Array } {
  const nodeCount = input.nodes.length;
  const firstOut = new Uint32Array(nodeCount + 1);
  for (const e of input.edges) {
    if (e.source < 0 || e.source >= nodeCount || e.target < 0 || e.target >= nodeCount) {
      throw new Error(`edge ${e.source}->${e.target} refers to a node outside 0..${nodeCount - 1}`);
    }
    firstOut[e.source + 1]++;
  }
  for (let n = 0; n < nodeCount; n++) firstOut[n + 1] += firstOut[n];
  const cursor = firstOut.slice(0, nodeCount);
  const edgeIdOf = new Uint32Array(input.edges.length);
  for (let i = 0; i < input.edges.length; i++) edgeIdOf[i] = cursor[input.edges[i].source]++;
  return { firstOut, edgeIdOf };
}

/** Street names and refs, interned in order of first use; id 0 is ''. */
class NameTable {
  readonly names: string[] = [''];
  private readonly index = new Map<string, number>([['', 0]]);

  intern(s: string | undefined): number {
    if (!s) return 0;
    let id = this.index.get(s);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(s);
      this.index.set(s, id);
    }
    return id;
  }
}

/** Per-edge attributes and geometry, at each edge's sorted id. */
function edgeArrays(input: GraphInput, edgeIdOf: Uint32Array, names: NameTable) {
  const edgeCount = input.edges.length;
  const edgeGeomCount = new Uint32Array(edgeCount);
  input.edges.forEach((e, i) => {
    edgeGeomCount[edgeIdOf[i]] = 2 + (e.shape?.length ?? 0);
  });
  const edgeGeomStart = new Uint32Array(edgeCount + 1);
  for (let e = 0; e < edgeCount; e++) edgeGeomStart[e + 1] = edgeGeomStart[e] + edgeGeomCount[e];
  const a = {
    edgeSource: new Uint32Array(edgeCount),
    edgeTarget: new Uint32Array(edgeCount),
    edgeTwin: new Int32Array(edgeCount).fill(-1),
    edgeLengthM: new Float32Array(edgeCount),
    edgeSpeedKph: new Float32Array(edgeCount),
    edgeSpeedTagged: new Uint8Array(edgeCount),
    edgeRoadClass: new Uint8Array(edgeCount),
    edgeFlags: new Uint16Array(edgeCount),
    edgeNameId: new Uint32Array(edgeCount),
    edgeRefId: new Uint32Array(edgeCount),
    edgeWayId: new Float64Array(edgeCount),
    edgeBearingOut: new Float32Array(edgeCount),
    edgeBearingIn: new Float32Array(edgeCount),
    edgeLanes: new Uint8Array(edgeCount),
    edgeGeomStart,
    geomLatE7: new Int32Array(edgeGeomStart[edgeCount]),
    geomLonE7: new Int32Array(edgeGeomStart[edgeCount]),
  };
  input.edges.forEach((e, i) => {
    const id = edgeIdOf[i];
    a.edgeSource[id] = e.source;
    a.edgeTarget[id] = e.target;
    if (e.twin !== undefined && e.twin >= 0) a.edgeTwin[id] = edgeIdOf[e.twin];
    a.edgeSpeedKph[id] = e.speedKph;
    a.edgeSpeedTagged[id] = e.speedTagged ? 1 : 0;
    a.edgeRoadClass[id] = e.roadClass;
    a.edgeFlags[id] = e.flags ?? 0;
    a.edgeNameId[id] = names.intern(e.name);
    a.edgeRefId[id] = names.intern(e.ref);
    a.edgeWayId[id] = e.wayId ?? 0;
    a.edgeLanes[id] = e.lanes ?? 0;
    // geometry: source, shape…, target
    const pts: Array<readonly [number, number]> = [
      [input.nodes[e.source].lat, input.nodes[e.source].lon],
      ...(e.shape ?? []),
      [input.nodes[e.target].lat, input.nodes[e.target].lon],
    ];
    let g = edgeGeomStart[id];
    let len = 0;
    for (let k = 0; k < pts.length; k++) {
      a.geomLatE7[g] = Math.round(pts[k][0] * E7);
      a.geomLonE7[g] = Math.round(pts[k][1] * E7);
      if (k > 0) len += haversineM(pts[k - 1][0], pts[k - 1][1], pts[k][0], pts[k][1]);
      g++;
    }
    a.edgeLengthM[id] = e.lengthM ?? len;
    a.edgeBearingOut[id] = bearingDeg(pts[0][0], pts[0][1], pts[1][0], pts[1][1]);
    const m = pts.length;
    a.edgeBearingIn[id] = bearingDeg(pts[m - 2][0], pts[m - 2][1], pts[m - 1][0], pts[m - 1][1]);
  });
  return a;
}

/** The reverse CSR: incoming edges of node n are `inEdges[firstIn[n] .. firstIn[n+1]-1]`. */
function reverseCsr(nodeCount: number, edgeTarget: Uint32Array): { firstIn: Uint32Array; inEdges: Uint32Array } {
  const edgeCount = edgeTarget.length;
  const firstIn = new Uint32Array(nodeCount + 1);
  for (let e = 0; e < edgeCount; e++) firstIn[edgeTarget[e] + 1]++;
  for (let n = 0; n < nodeCount; n++) firstIn[n + 1] += firstIn[n];
  const inCursor = firstIn.slice(0, nodeCount);
  const inEdges = new Uint32Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) inEdges[inCursor[edgeTarget[e]]++] = e;
  return { firstIn, inEdges };
}

/** Restrictions with their edges mapped to sorted ids. */
function restrictionArrays(restrictions: readonly RestrictionInput[], edgeIdOf: Uint32Array) {
  const restrictionFrom = new Uint32Array(restrictions.length);
  const restrictionVia = new Uint32Array(restrictions.length);
  const restrictionTo = new Uint32Array(restrictions.length);
  const restrictionKind = new Uint8Array(restrictions.length);
  restrictions.forEach((r, i) => {
    restrictionFrom[i] = edgeIdOf[r.fromEdge];
    restrictionVia[i] = r.via;
    restrictionTo[i] = edgeIdOf[r.toEdge];
    restrictionKind[i] = r.kind;
  });
  return { restrictionFrom, restrictionVia, restrictionTo, restrictionKind };
}
