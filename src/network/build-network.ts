/**
 * Stage 2 of import: the car road graph from an OsmExtract. Ways are split at nodes shared with
 * another drivable way, at way ends and at traffic-signal / stop / give-way / barrier nodes; every other
 * node becomes edge geometry. Node ids follow ascending OSM node id and edges follow ascending
 * OSM way id, so the same file always gives the same ids.
 */
import { bearingDeg, haversineM, turnAngleDeg } from '../geo/index.js';
import { countryAt, interpretWay, parseDurationS, parseRestriction } from '../osm/index.js';
import type { OsmExtract, WayProfile } from '../osm/index.js';
import { buildGraph, EdgeFlag, NodeFlag, RestrictionKind, RoadClass } from './graph.js';
import type { EdgeInput, Graph, NodeInput, RestrictionInput } from './graph.js';
import { markLargestScc } from './scc.js';
import { turnTypeOf } from './intersections.js';
import type { TurnType } from './region.js';

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
  const nodes = ex.nodes;
  const inside = (i: number): boolean => {
    if (!clip) return true;
    const lat = nodes.latE7At(i) / 1e7,
      lon = nodes.lonE7At(i) / 1e7;
    return lat >= clip[0] && lat <= clip[2] && lon >= clip[1] && lon <= clip[3];
  };

  // 1. drivable ways → runs of known, inside nodes (a way leaving the extract is cut there)
  const ways = ex.roadWays.slice().sort((a, b) => a.id - b.id);
  const runs: RoadRun[] = [];
  const wayLengthM = new Map<number, number>();
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
  for (const r of runs) {
    let len = 0;
    for (let k = 1; k < r.idx.length; k++) len += segLen(ex, r.idx[k - 1], r.idx[k]);
    wayLengthM.set(r.wayId, (wayLengthM.get(r.wayId) ?? 0) + len);
  }

  // 2. which nodes are graph nodes: run ends, nodes used twice or more, signal/stop/give-way nodes
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
  // a segment that would start and end at the same node (closed way) gets its middle node too
  for (const r of runs) {
    let start = 0;
    for (let k = 1; k < r.ids.length; k++) {
      if (!isGraphNode.has(r.ids[k])) continue;
      if (r.ids[k] === r.ids[start] && k - start >= 2) isGraphNode.add(r.ids[(start + k) >> 1]);
      start = k;
    }
  }

  // 3. dense node ids in ascending OSM id order
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

  // 4. edges: each run split at graph nodes, one edge per allowed direction, twins paired
  const edges: EdgeInput[] = [];
  const along: number[] = [];
  const edgesOfWay = new Map<number, number[]>();
  for (const r of runs) {
    const p = r.profile;
    const flags = edgeFlagsOf(p);
    const rc = RoadClass[p.roadClass];
    let speedF = p.speedForwardKph,
      speedB = p.speedBackwardKph;
    if (p.ferry) {
      const durS = parseDurationS(r.durationTag);
      const len = wayLengthM.get(r.wayId) ?? 0;
      if (durS && len > 0)
        speedF = speedB = Math.min(FERRY_MAX_SPEED_KPH, Math.max(FERRY_MIN_SPEED_KPH, (len / durS) * 3.6));
    }
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
        edges.push({
          source: a,
          target: b,
          speedKph: speedF,
          lanes: p.lanesForward,
          shape,
          twin: -1,
          roadClass: rc,
          flags,
          name: p.name,
          ref: p.ref,
          wayId: r.wayId,
          speedTagged: p.speedTagged,
        });
        along.push(1);
        list.push(fi);
      }
      if (p.backward) {
        const bi = edges.length;
        edges.push({
          source: b,
          target: a,
          speedKph: speedB,
          lanes: p.lanesBackward,
          shape: shape.slice().reverse(),
          twin: fi,
          roadClass: rc,
          flags,
          name: p.name,
          ref: p.ref,
          wayId: r.wayId,
          speedTagged: p.speedTagged,
        });
        along.push(0);
        list.push(bi);
        if (fi >= 0) edges[fi].twin = bi;
      }
      start = k;
    }
  }

  // 5. turn restrictions (via node) → edge pairs
  const restrictions: RestrictionInput[] = [];
  let mapped = 0,
    skipped = 0;
  const rels = ex.restrictions.slice().sort((a, b) => a.id - b.id);
  for (const rel of rels) {
    const r = parseRestriction(rel);
    if (!r) continue;
    const via = r.viaNode === null ? undefined : nodeIdOf.get(r.viaNode);
    if (via === undefined) {
      skipped++;
      continue;
    }
    const before = restrictions.length;
    const pairs: Array<[number, number]> = [];
    for (const fw of r.fromWays) {
      for (const fe of edgesOfWay.get(fw) ?? []) {
        if (edges[fe].target !== via) continue;
        for (const tw of r.toWays) {
          for (const te of edgesOfWay.get(tw) ?? []) if (edges[te].source === via) pairs.push([fe, te]);
        }
      }
    }
    // A from/to way passing through the via node yields several edge pairs; keep those whose
    // geometry matches the restriction's turn (e.g. the pair that really is a left turn).
    const want = expectedTurn(r.restriction);
    let chosen = pairs;
    if (want && pairs.length > 1) {
      const matching = pairs.filter(
        ([fe, te]) =>
          turnTypeOf(
            turnAngleDeg(arrivalBearing(nodeInputs, edges[fe]), departureBearing(nodeInputs, edges[te])),
            edges[fe].twin === te,
          ) === want,
      );
      if (matching.length > 0) chosen = matching;
    }
    for (const [fe, te] of chosen)
      restrictions.push({
        fromEdge: fe,
        via,
        toEdge: te,
        kind: r.kind === 'no' ? RestrictionKind.no : RestrictionKind.only,
      });
    if (restrictions.length > before) mapped++;
    else skipped++;
  }

  const { graph, edgeIdOf } = buildGraph({ nodes: nodeInputs, edges, restrictions });
  const edgeAlongWay = new Uint8Array(graph.edgeCount);
  for (let i = 0; i < edges.length; i++) edgeAlongWay[edgeIdOf[i]] = along[i];
  markLargestScc(graph);
  markIntersections(graph);
  propagateControlFlags(graph);
  return { graph, edgeAlongWay, bounds, country, wayCount, restrictionsMapped: mapped, restrictionsSkipped: skipped };
}

/** Turn type named by a restriction value (no_left_turn → left), or undefined (no_entry, no_exit…). */
function expectedTurn(restriction: string): TurnType | undefined {
  if (restriction.endsWith('left_turn')) return 'left';
  if (restriction.endsWith('right_turn')) return 'right';
  if (restriction.endsWith('straight_on')) return 'through';
  if (restriction.endsWith('u_turn')) return 'uturn';
  return undefined;
}

/** Bearing of an input edge arriving at its target, degrees. */
function arrivalBearing(nodes: readonly NodeInput[], e: EdgeInput): number {
  const t = nodes[e.target];
  const prev = e.shape && e.shape.length > 0 ? e.shape[e.shape.length - 1] : [nodes[e.source].lat, nodes[e.source].lon];
  return bearingDeg(prev[0], prev[1], t.lat, t.lon);
}

/** Bearing of an input edge leaving its source, degrees. */
function departureBearing(nodes: readonly NodeInput[], e: EdgeInput): number {
  const s = nodes[e.source];
  const next = e.shape && e.shape.length > 0 ? e.shape[0] : [nodes[e.target].lat, nodes[e.target].lon];
  return bearingDeg(s.lat, s.lon, next[0], next[1]);
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
