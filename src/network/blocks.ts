/**
 * Blocks for parking: the street between two consecutive intersections (or a dead end), with
 * curb segments per side from the ways' on-street parking tags. A node that is not an
 * intersection also ends a block where the street changes: the name changes, or the curb rules
 * (per side, in the direction of travel) change from one way to the next.
 */
import { interpretCurb, NO_PARKING_KINDS } from '../osm/index.js';
import type { CurbSideTags, Tags } from '../osm/index.js';
import { EdgeFlag, NodeFlag, RoadClass } from './graph.js';
import type { EdgeId, Graph } from './graph.js';
import type { Block, CurbSegment } from './region.js';
import { distinctNeighbourCount } from './build-network.js';

/** Metres of curb per car by orientation (parallel includes manoeuvring room). */
export const SPACING_M: Readonly<Record<string, number>> = { parallel: 6, diagonal: 3.5, perpendicular: 2.7 };

/** Road classes that get blocks: streets with a curb (no motorways, links, service roads or ferries). */
const BLOCK_CLASSES = new Set<number>([
  RoadClass.trunk,
  RoadClass.primary,
  RoadClass.secondary,
  RoadClass.tertiary,
  RoadClass.unclassified,
  RoadClass.residential,
  RoadClass.living_street,
]);

/** Estimated number of spaces on `lengthM` metres of curb of a given kind. */
export function estimateSpaces(kind: string, lengthM: number): number {
  if (NO_PARKING_KINDS.has(kind)) return 0;
  const spacing = SPACING_M[kind] ?? SPACING_M.parallel;
  return Math.max(0, Math.floor(lengthM / spacing));
}

/** 53-bit stable hash of a string (two FNV-1a variants). */
export function stableId(s: string): number {
  let h1 = 0x811c9dc5,
    h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
    h2 ^= h2 >>> 15;
  }
  return (h2 & 0x1fffff) * 0x100000000 + h1;
}

/** Input of `buildBlocks`. */
export interface BlockInput {
  graph: Graph;
  /** per edge: 1 when the edge runs in its way's node order */
  edgeAlongWay: Uint8Array;
  /** tags of each drivable way (only the parking:* ones are used) */
  wayTags: ReadonlyMap<number, Tags>;
}

/**
 * Builds blocks in edge-id order; ids are stable hashes of (first way, from node, to node).
 *
 * A block ends at every node that is an intersection, a dead end (or a node with more than two
 * distinct neighbours), and at a node with two neighbours where the edge arriving and the edge
 * leaving differ in street name or in curb rules (`curbRulesKey` of each side in the direction of
 * travel). Two ways of one street with the same curb rules stay one block.
 */
export function buildBlocks(input: BlockInput): Block[] {
  return Array.from(blocksOf(input));
}

/** The blocks of `buildBlocks`, one at a time (the import writes them as they come). */
export function* blocksOf(input: BlockInput): Generator<Block> {
  const w = new BlockWalker(input);
  const g = input.graph;
  for (let e = 0; e < g.edgeCount; e++) {
    if (w.startsBlock(e) && w.boundary[g.edgeSource[e]]) yield w.walk(e);
  }
  // chains with no boundary at their start (loops, or one-way pieces entered from the middle)
  for (let e = 0; e < g.edgeCount; e++) {
    if (w.startsBlock(e)) yield w.walk(e);
  }
}

type Curb = ReturnType<typeof interpretCurb>;
type Side = 'left' | 'right';

/** A curb segment being built, with its rules key and tagged capacity share (null when estimated from length). */
interface OpenSegment {
  seg: CurbSegment;
  key: string;
  tagged: number | null;
}

/** Walks a graph's eligible edges into blocks: boundaries first, then one chain per unvisited edge. */
class BlockWalker {
  private readonly g: Graph;
  /** 1 on nodes that end a block */
  readonly boundary: Uint8Array;
  private readonly visited: Uint8Array;
  private readonly curbCache = new Map<number, Curb | null>();
  private readonly streetKeyCache = new Map<EdgeId, string>();
  /** summed length of each way's edges (one direction), metres */
  private readonly wayLengthM = new Map<number, number>();
  private readonly usedIds = new Set<number>();

  constructor(private readonly input: BlockInput) {
    const g = input.graph;
    this.g = g;
    this.visited = new Uint8Array(g.edgeCount);
    this.boundary = new Uint8Array(g.nodeCount);
    for (let n = 0; n < g.nodeCount; n++) this.boundary[n] = this.endsBlock(n) ? 1 : 0;
    for (let e = 0; e < g.edgeCount; e++) {
      if (input.edgeAlongWay[e] === 1 || g.edgeTwin[e] < 0)
        this.wayLengthM.set(g.edgeWayId[e], (this.wayLengthM.get(g.edgeWayId[e]) ?? 0) + g.edgeLengthM[e]);
    }
  }

  /** True when edge `e` may start a block: eligible and not yet in one. */
  startsBlock(e: EdgeId): boolean {
    return !this.visited[e] && this.eligible(e);
  }

  /** The block starting with edge `first`: its chain followed to the next boundary. */
  walk(first: EdgeId): Block {
    const g = this.g;
    const chain: EdgeId[] = [first];
    this.mark(first);
    let cur = first;
    while (!this.boundary[g.edgeTarget[cur]]) {
      const v = g.edgeTarget[cur];
      let next = -1;
      for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
        if (this.visited[e] || !this.eligible(e) || g.edgeTarget[e] === g.edgeSource[cur]) continue;
        if (next < 0 || (g.edgeWayId[e] === g.edgeWayId[cur] && g.edgeWayId[next] !== g.edgeWayId[cur])) next = e;
      }
      if (next < 0) break;
      chain.push(next);
      this.mark(next);
      cur = next;
    }
    return this.makeBlock(chain);
  }

  private eligible(e: EdgeId): boolean {
    const g = this.g;
    return BLOCK_CLASSES.has(g.edgeRoadClass[e]) && (g.edgeFlags[e] & (EdgeFlag.link | EdgeFlag.ferry)) === 0;
  }

  private mark(e: EdgeId): void {
    this.visited[e] = 1;
    if (this.g.edgeTwin[e] >= 0) this.visited[this.g.edgeTwin[e]] = 1;
  }

  /**
   * True at an intersection, a node without exactly two neighbours, or a street change: some way
   * through n (arrive on a, leave on b) changes name or curb rules.
   */
  private endsBlock(n: number): boolean {
    const g = this.g;
    if ((g.nodeFlags[n] & NodeFlag.intersection) !== 0 || distinctNeighbourCount(g, n) !== 2) return true;
    for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++) {
      const a = g.inEdges[k];
      if (!this.eligible(a) || g.edgeSource[a] === n) continue;
      for (let b = g.firstOut[n]; b < g.firstOut[n + 1]; b++) {
        if (!this.eligible(b) || g.edgeTarget[b] === n || g.edgeTarget[b] === g.edgeSource[a]) continue;
        if (this.streetKey(a) !== this.streetKey(b)) return true;
      }
    }
    return false;
  }

  private curbOf(wayId: number): Curb | null {
    let c = this.curbCache.get(wayId);
    if (c === undefined) {
      const t = this.input.wayTags.get(wayId);
      const parsed = t ? interpretCurb(t) : null;
      c = parsed && (parsed.left || parsed.right) ? parsed : null;
      this.curbCache.set(wayId, c);
    }
    return c;
  }

  /** Curb of edge `e` per side in its direction of travel. */
  private travelSides(e: EdgeId): [CurbSideTags | null, CurbSideTags | null] {
    const c = this.curbOf(this.g.edgeWayId[e]);
    if (!c) return [null, null];
    return this.input.edgeAlongWay[e] === 1 ? [c.left, c.right] : [c.right, c.left];
  }

  /** Name and curb rules of an edge in its direction of travel: equal keys continue a block. */
  private streetKey(e: EdgeId): string {
    let k = this.streetKeyCache.get(e);
    if (k === undefined) {
      const g = this.g;
      const [left, right] = this.travelSides(e);
      k = JSON.stringify([
        g.names[g.edgeNameId[e]],
        left ? curbRulesKey(left) : null,
        right ? curbRulesKey(right) : null,
      ]);
      this.streetKeyCache.set(e, k);
    }
    return k;
  }

  /** The block of a chain of edges: geometry, length, curb segments with their spaces, stable id. */
  private makeBlock(chain: EdgeId[]): Block {
    const g = this.g;
    const geometry: Array<[number, number]> = [];
    let lengthM = 0;
    const open: OpenSegment[] = [];
    const last: Record<Side, OpenSegment | undefined> = { left: undefined, right: undefined };
    let name = '';
    for (const e of chain) {
      if (!name) name = g.names[g.edgeNameId[e]];
      const start = geometry.length === 0 ? g.edgeGeomStart[e] : g.edgeGeomStart[e] + 1;
      for (let i = start; i < g.edgeGeomStart[e + 1]; i++) geometry.push([g.geomLatE7[i] / 1e7, g.geomLonE7[i] / 1e7]);
      const [leftTags, rightTags] = this.travelSides(e);
      this.addCurb(open, last, 'left', leftTags, e, lengthM);
      this.addCurb(open, last, 'right', rightTags, e, lengthM);
      lengthM += g.edgeLengthM[e];
    }
    for (const o of open) {
      const s = o.seg;
      s.spaces = o.tagged === null ? estimateSpaces(s.kind, s.endM - s.startM) : Math.round(o.tagged);
    }
    const curb = open.map((o) => o.seg);
    curb.sort((a, b) => (a.side === b.side ? a.startM - b.startM : a.side === 'left' ? -1 : 1));
    const fromNode = g.edgeSource[chain[0]],
      toNode = g.edgeTarget[chain[chain.length - 1]];
    let id = stableId(`${g.edgeWayId[chain[0]]}:${g.nodeOsmId[fromNode]}:${g.nodeOsmId[toNode]}`);
    while (this.usedIds.has(id)) id = (id + 1) % Number.MAX_SAFE_INTEGER;
    this.usedIds.add(id);
    return { id, name, fromNode, toNode, edges: chain, geometry, lengthM: round2(lengthM), curb };
  }

  /**
   * Adds the curb of one side of edge `e` (starting `atM` metres into the block): extends that
   * side's last segment when the same rules continue without a gap (tagged shares add up,
   * estimates are redone), else opens a new segment.
   */
  private addCurb(
    open: OpenSegment[],
    last: Record<Side, OpenSegment | undefined>,
    side: Side,
    t: CurbSideTags | null,
    e: EdgeId,
    atM: number,
  ): void {
    if (!t) return;
    const len = this.g.edgeLengthM[e];
    const wayLen = this.wayLengthM.get(this.g.edgeWayId[e]) ?? len;
    const tagged = t.capacity === null ? null : t.capacity * (wayLen > 0 ? len / wayLen : 1);
    const key = curbRulesKey(t);
    const prev = last[side];
    if (prev && prev.seg.endM === round2(atM) && prev.key === key && (prev.tagged === null) === (tagged === null)) {
      prev.seg.endM = round2(atM + len);
      if (tagged !== null) prev.tagged = (prev.tagged ?? 0) + tagged;
      return;
    }
    const seg: CurbSegment = {
      side,
      startM: round2(atM),
      endM: round2(atM + len),
      kind: t.kind,
      condition: t.condition,
      maxStay: t.maxStay,
      spaces: -1,
      tags: t.tags,
    };
    const o: OpenSegment = { seg, key, tagged };
    open.push(o);
    last[side] = o;
  }
}

const SIDE_TOKEN = /^(parking:(?:lane:|condition:)?)(both|left|right)(?=:|$)/;

/**
 * The rules of one side of curb, independent of how the way is drawn: kind, condition, maxstay
 * and the raw parking tags with their side (`left` / `right` / `both`) taken out, a side-specific
 * key winning over `both` as in `interpretCurb`. Capacity is left out (it is a count, not a rule).
 */
export function curbRulesKey(t: CurbSideTags): string {
  const norm: Record<string, { v: string; specific: boolean }> = {};
  for (const [k, v] of Object.entries(t.tags)) {
    const m = SIDE_TOKEN.exec(k);
    const specific = !m || m[2] !== 'both';
    const nk = m ? `${m[1]}*${k.slice(m[0].length)}` : k;
    if (/(^|:)capacity$/.test(nk)) continue;
    const had = norm[nk];
    if (!had || (specific && !had.specific)) norm[nk] = { v, specific };
  }
  const tags = Object.keys(norm)
    .sort()
    .map((k) => [k, norm[k].v]);
  return JSON.stringify([t.kind, t.condition, t.maxStay, tags]);
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
