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

const E7 = 1e7;

export { buildGraph } from './build-graph.js';
export type { EdgeInput, GraphInput, NodeInput, RestrictionInput } from './build-graph.js';

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
