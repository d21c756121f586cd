/**
 * The metro while it is generated: nodes at plan positions (metres) in growable typed arrays,
 * ways as runs of node indexes with shared tag objects, and a few relations. `finish()` keeps the
 * largest connected road network (pieces cut off by the river or a motorway corridor are dropped,
 * as an importer would leave them unroutable) and counts the directed edges an importer builds;
 * `write()` streams the result to an OSM file in id order.
 */
import type { OsmMember, OsmSink, Tags } from '../../osm/index.js';
import type { Xy } from './geometry.js';

const NO_TAGS: Tags = Object.freeze({}) as Tags;
/** Node tags that make a node a graph node on import (`network/build-network.ts`). */
const GRAPH_NODE_HIGHWAY = new Set(['traffic_signals', 'stop', 'give_way']);

/** A relation member referring to a node or way index of the store. */
export interface PlanMember {
  type: 'node' | 'way';
  index: number;
  role: string;
}

/** Counts of the finished plan. */
export interface PlanCounts {
  /** nodes written (referenced by a kept way or relation) */
  nodes: number;
  ways: number;
  roadWays: number;
  relations: number;
  /** directed edges an importer builds from the kept roads */
  directedEdges: number;
  /** graph nodes of the kept roads (intersections, ends, signals) */
  graphNodes: number;
  /** [minX, minY, maxX, maxY] of the written nodes, metres */
  extent: [number, number, number, number];
  /** what the kept data contains, for the summary and tests */
  features: PlanFeatures;
}

/** Counts of tagged features among what `write` writes. */
export interface PlanFeatures {
  trafficSignals: number;
  stopSigns: number;
  /** road ways by highway value */
  roadWaysByClass: Record<string, number>;
  onewayWays: number;
  /** road ways without a maxspeed tag */
  waysWithoutMaxspeed: number;
  bridgeWays: number;
  parkingLots: number;
  /** road ways with a parking:* curb tag */
  curbWays: number;
  streetNames: number;
  /** turn restriction relations by restriction value */
  restrictions: Record<string, number>;
}

class Growable {
  data: Float64Array;
  length = 0;
  constructor(capacity = 1 << 16) {
    this.data = new Float64Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/** Builder of the metro's OSM data; indexes are dense from 0, OSM ids are index + 1. */
export class PlanStore {
  private readonly xs = new Growable();
  private readonly ys = new Growable();
  private readonly nodeTags = new Map<number, Tags>();
  private readonly refs = new Growable(1 << 18);
  private readonly wayStart: number[] = [0];
  private readonly wayTags: Tags[] = [];
  private readonly relations: Array<{ members: PlanMember[]; tags: Tags }> = [];
  private keptWay: Uint8Array | null = null;

  /** Number of nodes added. */
  get nodeCount(): number {
    return this.xs.length;
  }

  /** Number of ways added. */
  get wayCount(): number {
    return this.wayTags.length;
  }

  /** Adds a node at plan position p; returns its index. */
  addNode(p: Xy, tags?: Tags): number {
    this.xs.push(p.x);
    this.ys.push(p.y);
    if (tags) this.nodeTags.set(this.xs.length - 1, { ...tags });
    return this.xs.length - 1;
  }

  /** Plan position of node i. */
  position(i: number): Xy {
    return { x: this.xs.data[i], y: this.ys.data[i] };
  }

  /** Merges tags into node i (an existing value of a key is kept). */
  tagNode(i: number, tags: Tags): void {
    const t = this.nodeTags.get(i);
    this.nodeTags.set(i, t ? { ...tags, ...t } : { ...tags });
  }

  /** Tags of node i (empty when untagged). */
  tagsOfNode(i: number): Tags {
    return this.nodeTags.get(i) ?? NO_TAGS;
  }

  /** Adds a way over node indexes with `tags` (the object is kept, not copied: share it freely). */
  addWay(nodes: readonly number[], tags: Tags): number {
    if (nodes.length < 2) throw new Error('a way needs two nodes');
    for (const n of nodes) this.refs.push(n);
    this.wayStart.push(this.refs.length);
    this.wayTags.push(tags);
    return this.wayTags.length - 1;
  }

  /** Adds a relation over node and way indexes. */
  addRelation(members: PlanMember[], tags: Tags): void {
    this.relations.push({ members, tags });
  }

  /** Node indexes of way w. */
  wayNodes(w: number): number[] {
    return Array.from(this.refs.data.subarray(this.wayStart[w], this.wayStart[w + 1]));
  }

  /** Tags of way w. */
  tagsOfWay(w: number): Tags {
    return this.wayTags[w];
  }

  /** Keeps the largest connected road network and returns the counts of what `write` writes. */
  finish(): PlanCounts {
    const { uses, find } = this.roadComponents();
    const refs = this.refs.data;
    const isGraphNode = (i: number): boolean =>
      uses[i] >= 2 || GRAPH_NODE_HIGHWAY.has(this.nodeTags.get(i)?.highway ?? '');
    const { bestRoot, bestEdges } = this.largestComponent(find, isGraphNode);
    this.keptWay = new Uint8Array(this.wayTags.length);
    const graphNode = new Uint8Array(this.xs.length);
    let roadWays = 0;
    for (let w = 0; w < this.wayTags.length; w++) {
      const road = this.wayTags[w].highway !== undefined;
      if (road && find(refs[this.wayStart[w]]) !== bestRoot) continue;
      this.keptWay[w] = 1;
      if (!road) continue;
      roadWays++;
      for (let k = this.wayStart[w]; k < this.wayStart[w + 1]; k++) {
        const last = k === this.wayStart[w] || k === this.wayStart[w + 1] - 1;
        if (last || isGraphNode(refs[k])) graphNode[refs[k]] = 1;
      }
    }
    const written = this.referencedNodes();
    let graphNodes = 0;
    for (let i = 0; i < graphNode.length; i++) graphNodes += graphNode[i];
    const { nodes, extent } = this.writtenExtent(written);
    return {
      nodes,
      ways: this.keptWay.reduce((a, b) => a + b, 0),
      roadWays,
      relations: this.relations.filter((r) => this.relationKept(r.members)).length,
      directedEdges: bestEdges < 0 ? 0 : bestEdges,
      graphNodes,
      extent,
      features: this.features(written),
    };
  }

  /**
   * Connected road networks (union-find over consecutive nodes of road ways; a set's root is its
   * smallest node) and how many road-way node slots use each node (capped at 255).
   */
  private roadComponents(): { uses: Uint8Array; find: (a: number) => number } {
    const n = this.xs.length;
    const uses = new Uint8Array(n);
    const parent = new Int32Array(n).map((_, i) => i);
    const find = (a: number): number => {
      while (parent[a] !== a) {
        parent[a] = parent[parent[a]];
        a = parent[a];
      }
      return a;
    };
    const refs = this.refs.data;
    for (let w = 0; w < this.wayTags.length; w++) {
      if (this.wayTags[w].highway === undefined) continue;
      for (let k = this.wayStart[w]; k < this.wayStart[w + 1]; k++) {
        if (uses[refs[k]] < 255) uses[refs[k]]++;
        if (k > this.wayStart[w]) {
          const a = find(refs[k - 1]);
          const b = find(refs[k]);
          if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
        }
      }
    }
    return { uses, find };
  }

  /** The road network with the most directed edges (ties: the smaller root), and that count. */
  private largestComponent(
    find: (a: number) => number,
    isGraphNode: (i: number) => boolean,
  ): { bestRoot: number; bestEdges: number } {
    const refs = this.refs.data;
    const edgesOf = new Map<number, number>();
    for (let w = 0; w < this.wayTags.length; w++) {
      const t = this.wayTags[w];
      if (t.highway === undefined) continue;
      let pieces = 1;
      for (let k = this.wayStart[w] + 1; k < this.wayStart[w + 1] - 1; k++) if (isGraphNode(refs[k])) pieces++;
      const oneway = t.oneway === 'yes' || t.highway === 'motorway' || t.highway === 'motorway_link';
      const root = find(refs[this.wayStart[w]]);
      edgesOf.set(root, (edgesOf.get(root) ?? 0) + (oneway ? pieces : 2 * pieces));
    }
    let bestRoot = -1;
    let bestEdges = -1;
    for (const [root, e] of edgesOf)
      if (e > bestEdges || (e === bestEdges && root < bestRoot)) [bestRoot, bestEdges] = [root, e];
    return { bestRoot, bestEdges };
  }

  /** Number of written nodes and their extent in plan metres [minX, minY, maxX, maxY]. */
  private writtenExtent(written: Uint8Array): { nodes: number; extent: [number, number, number, number] } {
    let nodes = 0;
    const extent: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let i = 0; i < this.xs.length; i++) {
      if (!written[i]) continue;
      nodes++;
      const x = this.xs.data[i];
      const y = this.ys.data[i];
      if (x < extent[0]) extent[0] = x;
      if (y < extent[1]) extent[1] = y;
      if (x > extent[2]) extent[2] = x;
      if (y > extent[3]) extent[3] = y;
    }
    return { nodes, extent };
  }

  private features(written: Uint8Array): PlanFeatures {
    const f: PlanFeatures = {
      trafficSignals: 0,
      stopSigns: 0,
      roadWaysByClass: {},
      onewayWays: 0,
      waysWithoutMaxspeed: 0,
      bridgeWays: 0,
      parkingLots: 0,
      curbWays: 0,
      streetNames: 0,
      restrictions: {},
    };
    for (const [i, t] of this.nodeTags) {
      if (!written[i]) continue;
      if (t.highway === 'traffic_signals') f.trafficSignals++;
      if (t.highway === 'stop') f.stopSigns++;
    }
    const names = new Set<string>();
    for (let w = 0; w < this.wayTags.length; w++) {
      if (!this.keptWay?.[w]) continue;
      const t = this.wayTags[w];
      if (t.amenity === 'parking') f.parkingLots++;
      if (t.highway === undefined) continue;
      f.roadWaysByClass[t.highway] = (f.roadWaysByClass[t.highway] ?? 0) + 1;
      if (t.oneway === 'yes') f.onewayWays++;
      if (t.maxspeed === undefined) f.waysWithoutMaxspeed++;
      if (t.bridge === 'yes') f.bridgeWays++;
      if (Object.keys(t).some((k) => k.startsWith('parking:'))) f.curbWays++;
      if (t.name) names.add(t.name);
    }
    f.streetNames = names.size;
    for (const r of this.relations)
      if (this.relationKept(r.members) && r.tags.type === 'restriction')
        f.restrictions[r.tags.restriction] = (f.restrictions[r.tags.restriction] ?? 0) + 1;
    return f;
  }

  /** Streams the kept data to `sink` in id order (call `finish()` first); closes the sink. */
  write(sink: OsmSink, toLatLon: (p: Xy) => [number, number]): void {
    const kept = this.keptWay;
    if (!kept) throw new Error('PlanStore.write before finish()');
    const written = this.referencedNodes();
    try {
      for (let i = 0; i < this.xs.length; i++) {
        if (!written[i]) continue;
        const [lat, lon] = toLatLon({ x: this.xs.data[i], y: this.ys.data[i] });
        sink.node(i + 1, lat, lon, this.nodeTags.get(i) ?? NO_TAGS);
      }
      const ids: number[] = [];
      for (let w = 0; w < this.wayTags.length; w++) {
        if (!kept[w]) continue;
        ids.length = 0;
        for (let k = this.wayStart[w]; k < this.wayStart[w + 1]; k++) ids.push(this.refs.data[k] + 1);
        sink.way(w + 1, ids, this.wayTags[w]);
      }
      let rel = 0;
      for (const r of this.relations) {
        rel++;
        if (!this.relationKept(r.members)) continue;
        const members: OsmMember[] = r.members.map((m) => ({ type: m.type, ref: m.index + 1, role: m.role }));
        sink.relation(rel, members, r.tags);
      }
    } finally {
      sink.close();
    }
  }

  private relationKept(members: readonly PlanMember[]): boolean {
    return members.every((m) => m.type === 'node' || this.keptWay?.[m.index] === 1);
  }

  private referencedNodes(): Uint8Array {
    const out = new Uint8Array(this.xs.length);
    const kept = this.keptWay!;
    for (let w = 0; w < this.wayTags.length; w++) {
      if (!kept[w]) continue;
      for (let k = this.wayStart[w]; k < this.wayStart[w + 1]; k++) out[this.refs.data[k]] = 1;
    }
    for (const r of this.relations) {
      if (!this.relationKept(r.members)) continue;
      for (const m of r.members) if (m.type === 'node') out[m.index] = 1;
    }
    return out;
  }
}
