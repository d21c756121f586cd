/**
 * OSM entities as the readers emit them. Coordinates are degrees; ids are OSM ids (float64 holds
 * them exactly). Tags are plain objects; untagged entities get the shared frozen `NO_TAGS`.
 */

/** OSM tags of one entity. */
export type Tags = Record<string, string>;

/** Shared empty tag object for untagged entities (never mutate). */
export const NO_TAGS: Tags = Object.freeze({}) as Tags;

/** An OSM node. */
export interface OsmNode {
  id: number;
  lat: number;
  lon: number;
  tags: Tags;
}

/** An OSM way: ordered node references. */
export interface OsmWay {
  id: number;
  refs: number[];
  tags: Tags;
}

/** A member of an OSM relation. */
export interface OsmMember {
  type: 'node' | 'way' | 'relation';
  ref: number;
  role: string;
}

/** An OSM relation. */
export interface OsmRelation {
  id: number;
  members: OsmMember[];
  tags: Tags;
}

/** File-level information (PBF HeaderBlock or XML `<bounds>`). */
export interface OsmHeader {
  /** [minLat, minLon, maxLat, maxLon] when the file declares bounds */
  bounds: [number, number, number, number] | null;
  /** unix seconds of the replication timestamp when present */
  timestampS: number | null;
  writingProgram: string;
}

/**
 * Receives entities in file order (nodes, then ways, then relations in well-formed extracts).
 * Entities are only valid during the call: keep what you need.
 */
export interface OsmHandler {
  header?(h: OsmHeader): void;
  node(n: OsmNode): void;
  way(w: OsmWay): void;
  relation(r: OsmRelation): void;
}

/** Progress of a reader: bytes consumed so far out of total bytes. */
export type ReadProgress = (bytesDone: number, bytesTotal: number) => void;
