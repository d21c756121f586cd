/**
 * The road graph: a struct of typed arrays in CSR form (forward and reverse adjacency).
 *
 * Edges are *directed*. A two-way street between nodes a and b is two edges (a→b and b→a), each
 * pointing at the other through `edgeTwin`. Edge ids are sorted by source node, so the outgoing
 * edges of node n are exactly the ids `firstOut[n] .. firstOut[n+1]-1` (no indirection).
 * Incoming edges of n are `inEdges[firstIn[n] .. firstIn[n+1]-1]`.
 *
 * Coordinates are Int32 degrees × 1e7. Edge geometry (including both end nodes) is the slice
 * `geomLatE7/geomLonE7[edgeGeomStart[e] .. edgeGeomStart[e+1]-1]`, in the direction of travel.
 *
 * This module is the shared contract between import (`osm/`, `network/`), `traffic/`, `probes/`
 * and the three services. It is pure: no I/O.
 */
import { bearingDeg, haversineM } from '../geo/index.js';

/** Dense node id (0 .. nodeCount-1). */
export type NodeId = number;
/** Dense directed-edge id (0 .. edgeCount-1). */
export type EdgeId = number;

/** Road classes, ordered from most to least important. Stored in `edgeRoadClass` (Uint8). */
export const RoadClass = {
  motorway: 0,
  trunk: 1,
  primary: 2,
  secondary: 3,
  tertiary: 4,
  unclassified: 5,
  residential: 6,
  living_street: 7,
  service: 8,
  ferry: 9,
} as const;
export type RoadClassId = (typeof RoadClass)[keyof typeof RoadClass];
/** Names of the road classes indexed by id. */
export const ROAD_CLASS_NAMES = [
  'motorway',
  'trunk',
  'primary',
  'secondary',
  'tertiary',
  'unclassified',
  'residential',
  'living_street',
  'service',
  'ferry',
] as const;

/** Bit flags of an edge, stored in `edgeFlags` (Uint16). */
export const EdgeFlag = {
  /** toll=yes on the way */
  toll: 1 << 0,
  /** motorway, trunk and their links (for AvoidHighways) */
  highway: 1 << 1,
  /** route=ferry */
  ferry: 1 << 2,
  tunnel: 1 << 3,
  bridge: 1 << 4,
  /** HOV / car-pool lane or hov=designated road */
  hov: 1 << 5,
  /** express lanes (toll:hov, express=yes, …) */
  express: 1 << 6,
  /** junction=roundabout / circular */
  roundabout: 1 << 7,
  /** *_link highway class */
  link: 1 << 8,
  /** the edge belongs to the largest strongly connected component: routable */
  routable: 1 << 9,
  /** the way is one-way (this edge has no twin) */
  oneway: 1 << 10,
  /** vignette required (vignette / toll:vignette tags) */
  vignette: 1 << 11,
  /** oneway=reversible (direction changes by time of day; treated as closed for routing) */
  reversible: 1 << 12,
  /** access restricted to destination traffic (access=destination / private driveways…) */
  destinationOnly: 1 << 13,
} as const;

/** Bit flags of a node, stored in `nodeFlags` (Uint8). */
export const NodeFlag = {
  trafficSignals: 1 << 0,
  stop: 1 << 1,
  giveWay: 1 << 2,
  /** degree ≥ 3 or signalized: an intersection of the analytics catalog */
  intersection: 1 << 3,
  /** node of a barrier / gate */
  barrier: 1 << 4,
} as const;

/** Kinds of turn restriction, stored in `restrictionKind` (Uint8). */
export const RestrictionKind = { no: 0, only: 1 } as const;

/** The immutable road graph. Build with `buildGraph`, load with the bundle reader. */
export interface Graph {
  readonly nodeCount: number;
  readonly edgeCount: number;

  // ---- nodes -------------------------------------------------------------------------------
  /** latitude, degrees × 1e7 */
  readonly nodeLatE7: Int32Array;
  /** longitude, degrees × 1e7 */
  readonly nodeLonE7: Int32Array;
  /** NodeFlag bits */
  readonly nodeFlags: Uint8Array;
  /** OSM node id (side table; float64 holds ids up to 2^53 exactly) */
  readonly nodeOsmId: Float64Array;

  // ---- edges (sorted by source node) --------------------------------------------------------
  /** CSR: outgoing edges of node n are firstOut[n] .. firstOut[n+1]-1; length nodeCount+1 */
  readonly firstOut: Uint32Array;
  /** CSR reverse: incoming edge ids of node n are inEdges[firstIn[n] .. firstIn[n+1]-1] */
  readonly firstIn: Uint32Array;
  readonly inEdges: Uint32Array;
  /** source node of each edge */
  readonly edgeSource: Uint32Array;
  /** target node of each edge */
  readonly edgeTarget: Uint32Array;
  /** the opposite-direction edge of the same street segment, or -1 */
  readonly edgeTwin: Int32Array;
  /** length along the geometry, metres */
  readonly edgeLengthM: Float32Array;
  /** posted (or defaulted) speed limit, km/h */
  readonly edgeSpeedKph: Float32Array;
  /** 1 when edgeSpeedKph came from a maxspeed tag, 0 when it is a class/country default */
  readonly edgeSpeedTagged: Uint8Array;
  /** RoadClassId */
  readonly edgeRoadClass: Uint8Array;
  /** EdgeFlag bits */
  readonly edgeFlags: Uint16Array;
  /** index into `names` of the street name ('' when none) */
  readonly edgeNameId: Uint32Array;
  /** index into `names` of the ref (e.g. 'I 95') ('' when none) */
  readonly edgeRefId: Uint32Array;
  /** OSM way id the edge came from */
  readonly edgeWayId: Float64Array;
  /** bearing leaving the source node, degrees clockwise from north [0, 360) */
  readonly edgeBearingOut: Float32Array;
  /** bearing arriving at the target node, degrees [0, 360) */
  readonly edgeBearingIn: Float32Array;
  /** number of lanes in this direction (0 when unknown) */
  readonly edgeLanes: Uint8Array;

  // ---- geometry -----------------------------------------------------------------------------
  /** start of each edge's geometry in geomLatE7/geomLonE7; length edgeCount+1 */
  readonly edgeGeomStart: Uint32Array;
  readonly geomLatE7: Int32Array;
  readonly geomLonE7: Int32Array;

  // ---- turn restrictions (via node) ---------------------------------------------------------
  /** inbound edge of each restriction */
  readonly restrictionFrom: Uint32Array;
  /** via node */
  readonly restrictionVia: Uint32Array;
  /** outbound edge */
  readonly restrictionTo: Uint32Array;
  /** RestrictionKind */
  readonly restrictionKind: Uint8Array;

  /** names table; names[0] === '' */
  readonly names: readonly string[];
}

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

export interface NodeInput {
  lat: number;
  lon: number;
  flags?: number;
  osmId?: number;
}

export interface RestrictionInput {
  /** index into the input edge array */
  fromEdge: number;
  via: NodeId;
  /** index into the input edge array */
  toEdge: number;
  kind: (typeof RestrictionKind)[keyof typeof RestrictionKind];
}

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
  const nodeCount = input.nodes.length;
  const edgeCount = input.edges.length;

  const nodeLatE7 = new Int32Array(nodeCount);
  const nodeLonE7 = new Int32Array(nodeCount);
  const nodeFlags = new Uint8Array(nodeCount);
  const nodeOsmId = new Float64Array(nodeCount);
  input.nodes.forEach((n, i) => {
    nodeLatE7[i] = Math.round(n.lat * E7);
    nodeLonE7[i] = Math.round(n.lon * E7);
    nodeFlags[i] = n.flags ?? 0;
    nodeOsmId[i] = n.osmId ?? i;
  });

  // Stable counting sort of edges by source node.
  const firstOut = new Uint32Array(nodeCount + 1);
  for (const e of input.edges) {
    if (e.source < 0 || e.source >= nodeCount || e.target < 0 || e.target >= nodeCount) {
      throw new Error(`edge ${e.source}->${e.target} refers to a node outside 0..${nodeCount - 1}`);
    }
    firstOut[e.source + 1]++;
  }
  for (let n = 0; n < nodeCount; n++) firstOut[n + 1] += firstOut[n];
  const cursor = firstOut.slice(0, nodeCount);
  const edgeIdOf = new Uint32Array(edgeCount);
  for (let i = 0; i < edgeCount; i++) edgeIdOf[i] = cursor[input.edges[i].source]++;

  const names: string[] = [''];
  const nameIndex = new Map<string, number>([['', 0]]);
  const intern = (s: string | undefined): number => {
    if (!s) return 0;
    let id = nameIndex.get(s);
    if (id === undefined) {
      id = names.length;
      names.push(s);
      nameIndex.set(s, id);
    }
    return id;
  };

  const edgeSource = new Uint32Array(edgeCount);
  const edgeTarget = new Uint32Array(edgeCount);
  const edgeTwin = new Int32Array(edgeCount).fill(-1);
  const edgeLengthM = new Float32Array(edgeCount);
  const edgeSpeedKph = new Float32Array(edgeCount);
  const edgeSpeedTagged = new Uint8Array(edgeCount);
  const edgeRoadClass = new Uint8Array(edgeCount);
  const edgeFlags = new Uint16Array(edgeCount);
  const edgeNameId = new Uint32Array(edgeCount);
  const edgeRefId = new Uint32Array(edgeCount);
  const edgeWayId = new Float64Array(edgeCount);
  const edgeBearingOut = new Float32Array(edgeCount);
  const edgeBearingIn = new Float32Array(edgeCount);
  const edgeLanes = new Uint8Array(edgeCount);
  const edgeGeomCount = new Uint32Array(edgeCount);
  input.edges.forEach((e, i) => {
    edgeGeomCount[edgeIdOf[i]] = 2 + (e.shape?.length ?? 0);
  });
  const edgeGeomStart = new Uint32Array(edgeCount + 1);
  for (let e = 0; e < edgeCount; e++) edgeGeomStart[e + 1] = edgeGeomStart[e] + edgeGeomCount[e];
  const geomLatE7 = new Int32Array(edgeGeomStart[edgeCount]);
  const geomLonE7 = new Int32Array(edgeGeomStart[edgeCount]);

  input.edges.forEach((e, i) => {
    const id = edgeIdOf[i];
    edgeSource[id] = e.source;
    edgeTarget[id] = e.target;
    if (e.twin !== undefined && e.twin >= 0) edgeTwin[id] = edgeIdOf[e.twin];
    edgeSpeedKph[id] = e.speedKph;
    edgeSpeedTagged[id] = e.speedTagged ? 1 : 0;
    edgeRoadClass[id] = e.roadClass;
    edgeFlags[id] = e.flags ?? 0;
    edgeNameId[id] = intern(e.name);
    edgeRefId[id] = intern(e.ref);
    edgeWayId[id] = e.wayId ?? 0;
    edgeLanes[id] = e.lanes ?? 0;
    // geometry: source, shape…, target
    const pts: Array<readonly [number, number]> = [
      [input.nodes[e.source].lat, input.nodes[e.source].lon],
      ...(e.shape ?? []),
      [input.nodes[e.target].lat, input.nodes[e.target].lon],
    ];
    let g = edgeGeomStart[id];
    let len = 0;
    for (let k = 0; k < pts.length; k++) {
      geomLatE7[g] = Math.round(pts[k][0] * E7);
      geomLonE7[g] = Math.round(pts[k][1] * E7);
      if (k > 0) len += haversineM(pts[k - 1][0], pts[k - 1][1], pts[k][0], pts[k][1]);
      g++;
    }
    edgeLengthM[id] = e.lengthM ?? len;
    edgeBearingOut[id] = bearingDeg(pts[0][0], pts[0][1], pts[1][0], pts[1][1]);
    const m = pts.length;
    edgeBearingIn[id] = bearingDeg(pts[m - 2][0], pts[m - 2][1], pts[m - 1][0], pts[m - 1][1]);
  });

  // Reverse CSR.
  const firstIn = new Uint32Array(nodeCount + 1);
  for (let e = 0; e < edgeCount; e++) firstIn[edgeTarget[e] + 1]++;
  for (let n = 0; n < nodeCount; n++) firstIn[n + 1] += firstIn[n];
  const inCursor = firstIn.slice(0, nodeCount);
  const inEdges = new Uint32Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) inEdges[inCursor[edgeTarget[e]]++] = e;

  const restrictions = input.restrictions ?? [];
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

  const graph: Graph = {
    nodeCount,
    edgeCount,
    nodeLatE7,
    nodeLonE7,
    nodeFlags,
    nodeOsmId,
    firstOut,
    firstIn,
    inEdges,
    edgeSource,
    edgeTarget,
    edgeTwin,
    edgeLengthM,
    edgeSpeedKph,
    edgeSpeedTagged,
    edgeRoadClass,
    edgeFlags,
    edgeNameId,
    edgeRefId,
    edgeWayId,
    edgeBearingOut,
    edgeBearingIn,
    edgeLanes,
    edgeGeomStart,
    geomLatE7,
    geomLonE7,
    restrictionFrom,
    restrictionVia,
    restrictionTo,
    restrictionKind,
    names,
  };
  return { graph, edgeIdOf };
}

/** Latitude of node n in degrees. */
export function nodeLat(g: Graph, n: NodeId): number {
  return g.nodeLatE7[n] / E7;
}

/** Longitude of node n in degrees. */
export function nodeLon(g: Graph, n: NodeId): number {
  return g.nodeLonE7[n] / E7;
}

/** Street name of edge e ('' when unnamed). */
export function edgeName(g: Graph, e: EdgeId): string {
  return g.names[g.edgeNameId[e]];
}

/** Geometry of edge e as [lat, lon] pairs in degrees (allocates: not for hot loops). */
export function edgeGeometry(g: Graph, e: EdgeId): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = g.edgeGeomStart[e]; i < g.edgeGeomStart[e + 1]; i++) {
    out.push([g.geomLatE7[i] / E7, g.geomLonE7[i] / E7]);
  }
  return out;
}

/**
 * Turn-restriction lookup built once per graph: `isTurnAllowed(from, to)` answers in O(1) average.
 * `only_*` restrictions forbid every other outbound edge at the via node for that inbound edge.
 */
export class TurnRestrictions {
  private readonly banned = new Set<number>();
  private readonly onlyTo = new Map<number, Set<number>>();
  private readonly edgeCount: number;
  /** 1 for edges some restriction starts from: every other turn is answered without a lookup */
  private readonly restrictedFrom: Uint8Array;

  constructor(g: Graph) {
    this.edgeCount = g.edgeCount;
    this.restrictedFrom = new Uint8Array(g.edgeCount);
    for (let i = 0; i < g.restrictionFrom.length; i++) {
      const from = g.restrictionFrom[i];
      const to = g.restrictionTo[i];
      this.restrictedFrom[from] = 1;
      if (g.restrictionKind[i] === RestrictionKind.no) {
        this.banned.add(from * g.edgeCount + to);
      } else {
        let s = this.onlyTo.get(from);
        if (!s) this.onlyTo.set(from, (s = new Set()));
        s.add(to);
      }
    }
  }

  /** true when a vehicle on edge `from` may continue onto edge `to` (which leaves from's target). */
  isTurnAllowed(from: EdgeId, to: EdgeId): boolean {
    if (this.restrictedFrom[from] === 0) return true;
    if (this.banned.size > 0 && this.banned.has(from * this.edgeCount + to)) return false;
    if (this.onlyTo.size > 0) {
      const only = this.onlyTo.get(from);
      if (only && !only.has(to)) return false;
    }
    return true;
  }

  /** true when the graph has any restriction on turns out of edge `from`. */
  get size(): number {
    return this.banned.size + this.onlyTo.size;
  }
}
