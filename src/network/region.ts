/**
 * A region bundle: everything `streetwise import` derives from one OSM extract, loaded by
 * `serve` without re-reading OSM. The graph is binary (typed arrays); the rest is plain data.
 *
 * Shared contract for the services: routing uses `graph`; parking uses `lots` and `blocks`;
 * analytics uses `intersections`. All ids here are stable across re-imports of the same file.
 */
import type { EdgeId, Graph, NodeId } from './graph.js';
import type { RegionWater } from './water.js';

/** Turn type of a movement, from the angle between inbound and outbound directions. */
export type TurnType = 'through' | 'left' | 'right' | 'uturn';

/** One movement through an intersection: inbound edge → outbound edge. */
export interface Movement {
  /** stable id, unique within the region (dense int, assigned in intersection-id then angle order) */
  id: number;
  inEdge: EdgeId;
  outEdge: EdgeId;
  turnType: TurnType;
  /** bearing arriving at the intersection on the inbound edge, degrees [0,360) */
  inHeadingDeg: number;
  /** bearing leaving the intersection on the outbound edge, degrees [0,360) */
  outHeadingDeg: number;
  /** signed turn angle, degrees (-180, 180]: negative = left, positive = right */
  turnAngleDeg: number;
  inName: string;
  outName: string;
  /** false when a turn restriction forbids it (kept so analytics can show it) */
  allowed: boolean;
}

/** A node where three or more road edges meet, or that carries a traffic signal. */
export interface Intersection {
  /** stable id: the OSM node id */
  id: number;
  node: NodeId;
  lat: number;
  lon: number;
  /** e.g. "N Charles St & E Pratt St" */
  name: string;
  /** distinct street names meeting here */
  streetNames: string[];
  signalized: boolean;
  stop: boolean;
  giveWay: boolean;
  movements: Movement[];
}

/** One side of a block's curb with parking rules from OSM tags. */
export interface CurbSegment {
  side: 'left' | 'right';
  /** offsets along the block from its start, metres */
  startM: number;
  endM: number;
  /** parking:lane orientation / type: parallel, diagonal, perpendicular, no_parking, no_stopping, … */
  kind: string;
  /** parking:condition value: free, ticket, disc, residents, no_parking, … ('' when untagged) */
  condition: string;
  /** maxstay, e.g. "2 hours" ('' when untagged) */
  maxStay: string;
  /** estimated spaces (from length and orientation when not tagged) */
  spaces: number;
  /** raw parking tags on that side, for the parking service */
  tags: Record<string, string>;
}

/** The street between two consecutive intersections (for parking). */
export interface Block {
  /** stable id (derived from the OSM way and node ids) */
  id: number;
  name: string;
  fromNode: NodeId;
  toNode: NodeId;
  /** directed edges covering this block, in order from fromNode to toNode */
  edges: EdgeId[];
  /** [lat, lon] geometry from fromNode to toNode */
  geometry: Array<[number, number]>;
  lengthM: number;
  curb: CurbSegment[];
}

/** A parking lot from amenity=parking (node, way or multipolygon). */
export interface OsmLot {
  /** stable id: 'n123' / 'w123' / 'r123' mapped to a number: node ids as is, ways ×10+1, relations ×10+2 */
  id: number;
  osmType: 'node' | 'way' | 'relation';
  osmId: number;
  name: string;
  operator: string;
  capacity: number | null;
  capacityDisabled: number | null;
  /** fee=yes/no/unknown */
  fee: 'yes' | 'no' | null;
  access: string;
  /** surface | multi-storey | underground | street_side | … */
  parking: string;
  openingHours: string;
  /** payment:* tags that are yes */
  payment: string[];
  lat: number;
  lon: number;
  /** outer ring [lat, lon] when the lot is an area */
  outline: Array<[number, number]> | null;
  /** every OSM tag (for fields the parking service derives, e.g. charge, maxstay, website) */
  tags: Record<string, string>;
}

export interface RegionMeta {
  name: string;
  /** e.g. "baltimore-20261121" — changes when the source changes */
  mapVersion: string;
  /** source file name */
  source: string;
  importedAt: string;
  /** [minLat, minLon, maxLat, maxLon] of the extract (bounds header or data) */
  bounds: [number, number, number, number];
  /** ISO country code guessed from position ('' when unknown) */
  country: string;
  /** IANA time zone at the region centre */
  timeZone: string;
}

/** Everything the services read from an imported region. */
export interface Region {
  meta: RegionMeta;
  graph: Graph;
  intersections: Intersection[];
  blocks: Block[];
  lots: OsmLot[];
  /** water areas and lines for the basemap (absent in hand-built regions and older bundles) */
  water?: RegionWater;
  /**
   * street names of each intersection by its node, read without the movements (absent in
   * hand-built regions: use `intersections`)
   */
  intersectionStreetNames?: Map<NodeId, string[]>;
}
