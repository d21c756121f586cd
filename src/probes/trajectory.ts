/**
 * Output of map matching: a vehicle's trip as timed edge traversals, with the raw pings they came
 * from. Shared contract between `probes/` (producer), `traffic/` (learned and live speeds) and
 * `analytics/` (intersection traversal facts).
 */
import type { EdgeId } from '../network/graph.js';

/** One GPS ping as ingested. */
export interface Ping {
  /** unix seconds (fractional allowed) */
  tS: number;
  lat: number;
  lon: number;
  /** reported speed, km/h, when the feed has it */
  speedKph?: number;
  /** reported heading, degrees clockwise from north, when the feed has it */
  headingDeg?: number;
}

/** A ping placed on the matched edge. */
export interface MatchedPing extends Ping {
  /** index of the ping in the trace */
  index: number;
  edge: EdgeId;
  /** distance from the start of the edge along its geometry, metres */
  offsetM: number;
}

/** One traversal of one edge, with interpolated entry and exit times. */
export interface EdgeTraversal {
  edge: EdgeId;
  /** unix seconds when the vehicle entered the edge (interpolated; for the first edge: first ping on it) */
  enterS: number;
  /** unix seconds when it left the edge (for the last edge: last ping on it) */
  exitS: number;
  /** fraction of the edge covered, 0..1 (1 for edges fully traversed) */
  coveredFraction: number;
  /** matched pings on this edge, in time order (may be empty for edges crossed between pings) */
  pings: MatchedPing[];
}

/** A matched piece of one trace (traces are split at large gaps and impossible jumps). */
export interface Trajectory {
  traceId: string;
  /** 0, 1, … when a trace was split */
  part: number;
  traversals: EdgeTraversal[];
}
