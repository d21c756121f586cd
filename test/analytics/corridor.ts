/**
 * Hand-built street layouts for the control-delay tests: nodes placed in metres east / north of
 * an origin in Baltimore, straight roads between them, intersections found by the importer's own
 * rules (`markIntersections`, `buildIntersections`). Lengths are exact (axis-aligned roads).
 */
import {
  buildGraph,
  markIntersections,
  NodeFlag,
  RoadClass,
  type EdgeId,
  type EdgeInput,
  type RoadClassId,
} from '../../src/network/index.js';
import { buildIntersections } from '../../src/network/intersections.js';
import type { Region } from '../../src/network/region.js';
import type { Fixture } from './fixture.js';

const LAT = 39.29;
const LON = -76.61;
const M_PER_DEG_LAT = 111_195;
const M_PER_DEG_LON = M_PER_DEG_LAT * Math.cos((LAT * Math.PI) / 180);

/** A node: position in metres east (x) and north (y) of the origin; `signals` = highway=traffic_signals. */
export interface NodeSpec {
  x: number;
  y: number;
  signals?: boolean;
}
/** A straight road between two nodes, two-way unless `oneway` (then only from → to). */
export interface RoadSpec {
  from: string;
  to: string;
  name: string;
  oneway?: boolean;
  lanes?: number;
  roadClass?: RoadClassId;
}

/** A fixture with node ids by name. */
export interface Corridor extends Fixture {
  node: Record<string, number>;
}

/** Speed limit of every road, km/h (10 m/s). */
export const CORRIDOR_SPEED_KPH = 36;

/** Builds the layout (time zone America/New_York). Node ids follow the order of `nodes`. */
export function buildCorridor(nodes: Record<string, NodeSpec>, roads: RoadSpec[]): Corridor {
  const names = Object.keys(nodes);
  const node: Record<string, number> = {};
  names.forEach((n, i) => {
    node[n] = i;
  });
  const nodeInputs = names.map((n, i) => ({
    lat: LAT + nodes[n].y / M_PER_DEG_LAT,
    lon: LON + nodes[n].x / M_PER_DEG_LON,
    flags: nodes[n].signals ? NodeFlag.trafficSignals : 0,
    osmId: 1000 + i,
  }));
  const edges: EdgeInput[] = [];
  for (const r of roads) {
    const a = node[r.from];
    const b = node[r.to];
    const lengthM = Math.hypot(nodes[r.to].x - nodes[r.from].x, nodes[r.to].y - nodes[r.from].y);
    const base = {
      speedKph: CORRIDOR_SPEED_KPH,
      roadClass: r.roadClass ?? RoadClass.secondary,
      name: r.name,
      lengthM,
      lanes: r.lanes,
    };
    const i = edges.length;
    edges.push({ ...base, source: a, target: b, twin: r.oneway ? -1 : i + 1 });
    if (!r.oneway) edges.push({ ...base, source: b, target: a, twin: i });
  }
  const { graph } = buildGraph({ nodes: nodeInputs, edges });
  markIntersections(graph);
  const edge = (a: number, b: number): EdgeId => {
    for (let e = graph.firstOut[a]; e < graph.firstOut[a + 1]; e++) if (graph.edgeTarget[e] === b) return e;
    throw new Error(`no edge ${names[a]}->${names[b]}`);
  };
  const region: Region = {
    meta: {
      name: 'corridor',
      mapVersion: 'corridor-20261101',
      source: 'hand-built',
      importedAt: '2026-11-01T00:00:00Z',
      bounds: [LAT - 0.01, LON - 0.01, LAT + 0.01, LON + 0.01],
      country: 'US',
      timeZone: 'America/New_York',
    },
    graph,
    intersections: buildIntersections(graph),
    blocks: [],
    lots: [],
  };
  return { region, graph, edge, node };
}
