/**
 * Stage 2 of import: the car road graph from an OsmExtract. Ways are split at nodes shared with
 * another drivable way, at way ends and at traffic-signal / stop / give-way / barrier nodes; every other
 * node becomes edge geometry. Node ids follow ascending OSM node id and edges follow ascending
 * OSM way id, so the same file always gives the same ids.
 */
import { haversineM } from '../geo/index.js';
import { countryAt, interpretWay, parseDurationS } from '../osm/index.js';
import type { OsmExtract, WayProfile } from '../osm/index.js';
import { buildGraph, EdgeFlag, NodeFlag, RoadClass } from './graph.js';
import type { EdgeInput, Graph, NodeInput } from './graph.js';
import { markLargestScc } from './scc.js';
import { mapRestrictions } from './way-restrictions.js';

/** Options of `buildNetwork`. */
export interface BuildNetworkOptions {
  /** drop nodes outside these bounds [minLat, minLon, maxLat, maxLon] (default: the file's declared bounds) */
  clipBounds?: [number, number, number, number] | null;
}

/** The graph plus import-side tables the later stages need. */
export interface BuiltNetwork {
  graph: Graph;
  /** per edge: 1 when the edge runs in the OSM way's node order */
  edgeAlongWay: Uint8Array;
  /** region bounds used for clipping and meta */
  bounds: [number, number, number, number];
  country: string;
  /** drivable ways used */
  wayCount: number;
  /** restriction relations mapped to edge pairs / skipped (via way, unknown members) */
  restrictionsMapped: number;
  restrictionsSkipped: number;
}

interface RoadRun {
  wayId: number;
  profile: WayProfile;
  /** the ferry `duration` tag, if any */
  durationTag: string | undefined;
  /** node-store indices of the run's nodes (consecutive, no duplicates) */
  idx: number[];
  /** OSM ids of the same nodes */
  ids: number[];
}

const FERRY_MIN_SPEED_KPH = 2;
const FERRY_MAX_SPEED_KPH = 80;

function edgeFlagsOf(p: WayProfile): number {
  let f = 0;
  if (p.toll) f |= EdgeFlag.toll;
  if (p.highwayFlag) f |= EdgeFlag.highway;
  if (p.ferry) f |= EdgeFlag.ferry;
  if (p.tunnel) f |= EdgeFlag.tunnel;
  if (p.bridge) f |= EdgeFlag.bridge;
  if (p.hov) f |= EdgeFlag.hov;
  if (p.express) f |= EdgeFlag.express;
  if (p.roundabout) f |= EdgeFlag.roundabout;
  if (p.link) f |= EdgeFlag.link;
  if (p.forward !== p.backward) f |= EdgeFlag.oneway;
  if (p.vignette) f |= EdgeFlag.vignette;
  if (p.reversible) f |= EdgeFlag.reversible;
  if (p.destinationOnly) f |= EdgeFlag.destinationOnly;
  return f;
}

/** Builds the routable road graph from an extract (see module doc for the splitting rules). */
export function buildNetwork(ex: OsmExtract, opts: BuildNetworkOptions = {}): BuiltNetwork {
  const clip = opts.clipBounds === undefined ? ex.header.bounds : opts.clipBounds;
  const bounds = ex.header.bounds ?? ex.dataBounds;
  const country = countryAt((bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2);
  const { runs, wayCount } = roadRuns(ex, country, clip);
  const isGraphNode = graphNodesOf(ex, runs);
  const { nodeInputs, nodeIdOf } = nodeInputsOf(ex, isGraphNode);
  const { edges, along, edgesOfWay } = edgesOf(ex, runs, isGraphNode, nodeIdOf);
  const { restrictions, mapped, skipped } = mapRestrictions(ex.restrictions, nodeInputs, edges, edgesOfWay, nodeIdOf);
  const { graph, edgeIdOf } = buildGraph({ nodes: nodeInputs, edges, restrictions });
  const edgeAlongWay = new Uint8Array(graph.edgeCount);
  for (let i = 0; i < edges.length; i++) edgeAlongWay[edgeIdOf[i]] = along[i];
  markLargestScc(graph);
  markIntersections(graph);
  propagateControlFlags(graph);
  return { graph, edgeAlongWay, bounds, country, wayCount, restrictionsMapped: mapped, restrictionsSkipped: skipped };
}

/**
 * Step 1: drivable ways, in ascending way id, as runs of known nodes inside `clip` (a way leaving
 * the extract is cut there).
 */
function roadRuns(
  ex: OsmExtract,
  country: string,
  clip: [number, number, number, number] | null | undefined,
): { runs: RoadRun[]; wayCount: number } {
  const nodes = ex.nodes;
  const inside = (i: number): boolean => {
    if (!clip) return true;
    const lat = nodes.latE7At(i) / 1e7,
      lon = nodes.lonE7At(i) / 1e7;
    return lat >= clip[0] && lat <= clip[2] && lon >= clip[1] && lon <= clip[3];
  };
  const ways = ex.roadWays.slice().sort((a, b) => a.id - b.id);
  const runs: RoadRun[] = [];
  let wayCount = 0;
  for (const w of ways) {
    const profile = interpretWay(w.tags, country);
    if (!profile) continue;
    wayCount++;
    let idx: number[] = [],
      ids: number[] = [];
    const flush = (): void => {
      if (idx.length >= 2) runs.push({ wayId: w.id, profile, durationTag: w.tags.duration, idx, ids });
      idx = [];
      ids = [];
    };
    for (const ref of w.refs) {
      const i = nodes.indexOf(ref);
      if (i < 0 || !inside(i)) {
        flush();
        continue;
      }
      if (ids.length > 0 && ids[ids.length - 1] === ref) continue;
      idx.push(i);
      ids.push(ref);
    }
    flush();
  }
  return { runs, wayCount };
}

/**
 * Step 2: the OSM ids of the graph's nodes: run ends, nodes used twice or more, signal / stop /
 * give-way / barrier nodes, and the middle node of a segment that would start and end at the same
 * node (closed way).
 */
function graphNodesOf(ex: OsmExtract, runs: readonly RoadRun[]): Set<number> {
  const uses = new Map<number, number>();
  for (const r of runs) {
    for (let k = 0; k < r.ids.length; k++) {
      const extra = k === 0 || k === r.ids.length - 1 ? 2 : 1;
      uses.set(r.ids[k], (uses.get(r.ids[k]) ?? 0) + extra);
    }
  }
  const isGraphNode = new Set<number>();
  for (const [id, n] of uses) {
    if (n >= 2) isGraphNode.add(id);
    else {
      const t = ex.nodeTags.get(id);
      const hw = t?.highway;
      if (hw === 'traffic_signals' || hw === 'stop' || hw === 'give_way') isGraphNode.add(id);
      else if (t?.barrier !== undefined && t.barrier !== 'no') isGraphNode.add(id); // keeps the barrier flag on the graph
    }
  }
  for (const r of runs) {
    let start = 0;
    for (let k = 1; k < r.ids.length; k++) {
      if (!isGraphNode.has(r.ids[k])) continue;
      if (r.ids[k] === r.ids[start] && k - start >= 2) isGraphNode.add(r.ids[(start + k) >> 1]);
      start = k;
    }
  }
  return isGraphNode;
}

/** Step 3: dense node ids in ascending OSM id order, with their control flags. */
function nodeInputsOf(
  ex: OsmExtract,
  isGraphNode: ReadonlySet<number>,
): { nodeInputs: NodeInput[]; nodeIdOf: Map<number, number> } {
  const nodes = ex.nodes;
  const graphOsmIds = Array.from(isGraphNode).sort((a, b) => a - b);
  const nodeIdOf = new Map<number, number>();
  const nodeInputs: NodeInput[] = graphOsmIds.map((osmId, n) => {
    nodeIdOf.set(osmId, n);
    const i = nodes.indexOf(osmId);
    const t = ex.nodeTags.get(osmId);
    let flags = 0;
    if (t) {
      if (t.highway === 'traffic_signals') flags |= NodeFlag.trafficSignals;
      if (t.highway === 'stop') flags |= NodeFlag.stop;
      if (t.highway === 'give_way') flags |= NodeFlag.giveWay;
      if (t.barrier !== undefined && t.barrier !== 'no') flags |= NodeFlag.barrier;
    }
    return { lat: nodes.latE7At(i) / 1e7, lon: nodes.lonE7At(i) / 1e7, flags, osmId };
  });
  return { nodeInputs, nodeIdOf };
}

/** Summed length of every way's runs, metres. */
function wayLengthsM(ex: OsmExtract, runs: readonly RoadRun[]): Map<number, number> {
  const wayLengthM = new Map<number, number>();
  for (const r of runs) {
    let len = 0;
    for (let k = 1; k < r.idx.length; k++) len += segLen(ex, r.idx[k - 1], r.idx[k]);
    wayLengthM.set(r.wayId, (wayLengthM.get(r.wayId) ?? 0) + len);
  }
  return wayLengthM;
}

/** Forward and backward speeds of a run, km/h (a ferry's from its way's length and `duration`). */
function runSpeedsKph(r: RoadRun, wayLengthM: ReadonlyMap<number, number>): [number, number] {
  const p = r.profile;
  let speedF = p.speedForwardKph,
    speedB = p.speedBackwardKph;
  if (p.ferry) {
    const durS = parseDurationS(r.durationTag);
    const len = wayLengthM.get(r.wayId) ?? 0;
    if (durS && len > 0)
      speedF = speedB = Math.min(FERRY_MAX_SPEED_KPH, Math.max(FERRY_MIN_SPEED_KPH, (len / durS) * 3.6));
  }
  return [speedF, speedB];
}

/**
 * Step 4: edges: each run split at graph nodes, one edge per allowed direction, twins paired.
 * `along[i]` is 1 when edge input i runs in its way's node order; `edgesOfWay` lists each way's edges.
 */
function edgesOf(
  ex: OsmExtract,
  runs: readonly RoadRun[],
  isGraphNode: ReadonlySet<number>,
  nodeIdOf: ReadonlyMap<number, number>,
): { edges: EdgeInput[]; along: number[]; edgesOfWay: Map<number, number[]> } {
  const nodes = ex.nodes;
  const wayLengthM = wayLengthsM(ex, runs);
  const edges: EdgeInput[] = [];
  const along: number[] = [];
  const edgesOfWay = new Map<number, number[]>();
  for (const r of runs) {
    const p = r.profile;
    const [speedF, speedB] = runSpeedsKph(r, wayLengthM);
    const rest = {
      roadClass: RoadClass[p.roadClass],
      flags: edgeFlagsOf(p),
      name: p.name,
      ref: p.ref,
      wayId: r.wayId,
      speedTagged: p.speedTagged,
    };
    let list = edgesOfWay.get(r.wayId);
    if (!list) edgesOfWay.set(r.wayId, (list = []));
    let start = 0;
    for (let k = 1; k < r.ids.length; k++) {
      if (!isGraphNode.has(r.ids[k])) continue;
      const a = nodeIdOf.get(r.ids[start])!,
        b = nodeIdOf.get(r.ids[k])!;
      const shape: Array<[number, number]> = [];
      for (let s = start + 1; s < k; s++) shape.push([nodes.latE7At(r.idx[s]) / 1e7, nodes.lonE7At(r.idx[s]) / 1e7]);
      let fi = -1;
      if (p.forward) {
        fi = edges.length;
        edges.push({ source: a, target: b, speedKph: speedF, lanes: p.lanesForward, shape, twin: -1, ...rest });
        along.push(1);
        list.push(fi);
      }
      if (p.backward) {
        const bi = edges.length;
        const back = shape.slice().reverse();
        edges.push({ source: b, target: a, speedKph: speedB, lanes: p.lanesBackward, shape: back, twin: fi, ...rest });
        along.push(0);
        list.push(bi);
        if (fi >= 0) edges[fi].twin = bi;
      }
      start = k;
    }
  }
  return { edges, along, edgesOfWay };
}

function segLen(ex: OsmExtract, i: number, j: number): number {
  const n = ex.nodes;
  return haversineM(n.latE7At(i) / 1e7, n.lonE7At(i) / 1e7, n.latE7At(j) / 1e7, n.lonE7At(j) / 1e7);
}

/** Number of distinct neighbour nodes of n over incoming and outgoing edges. */
export function distinctNeighbourCount(g: Graph, n: number): number {
  const seen: number[] = [];
  for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) {
    const t = g.edgeTarget[e];
    if (t !== n && !seen.includes(t)) seen.push(t);
  }
  for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) {
    const s = g.edgeSource[g.inEdges[k]];
    if (s !== n && !seen.includes(s)) seen.push(s);
  }
  return seen.length;
}

/** Sets NodeFlag.intersection on nodes with ≥ 3 distinct road neighbours or a traffic signal. */
export function markIntersections(g: Graph): void {
  const flags = g.nodeFlags as Uint8Array;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((flags[n] & NodeFlag.trafficSignals) !== 0 || distinctNeighbourCount(g, n) >= 3)
      flags[n] |= NodeFlag.intersection;
  }
}

/** Stop / give-way signs mapped on a node this close to an intersection (metres) also control it. */
export const CONTROL_SNAP_M = 30;

/**
 * Copies stop / give-way flags from a non-intersection node onto the nearest adjacent intersection
 * node within `maxDistanceM` (signs are usually mapped on the approach, a few metres before the
 * junction). The sign's own node keeps its flag.
 */
export function propagateControlFlags(g: Graph, maxDistanceM = CONTROL_SNAP_M): void {
  const flags = g.nodeFlags as Uint8Array;
  const control = NodeFlag.stop | NodeFlag.giveWay;
  for (let n = 0; n < g.nodeCount; n++) {
    const f = flags[n] & control;
    if (f === 0 || (flags[n] & NodeFlag.intersection) !== 0) continue;
    let best = -1,
      bestLen = Infinity;
    const consider = (other: number, lengthM: number): void => {
      if (other !== n && (flags[other] & NodeFlag.intersection) !== 0 && lengthM < bestLen) {
        best = other;
        bestLen = lengthM;
      }
    };
    for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) consider(g.edgeTarget[e], g.edgeLengthM[e]);
    for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++)
      consider(g.edgeSource[g.inEdges[k]], g.edgeLengthM[g.inEdges[k]]);
    if (best >= 0 && bestLen <= maxDistanceM) flags[best] |= f;
  }
}
