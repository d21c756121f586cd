/**
 * Blocks for parking: the street between two consecutive intersections (or a dead end), with
 * curb segments per side from the ways' on-street parking tags.
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
  RoadClass.trunk, RoadClass.primary, RoadClass.secondary, RoadClass.tertiary,
  RoadClass.unclassified, RoadClass.residential, RoadClass.living_street,
]);

/** Estimated number of spaces on `lengthM` metres of curb of a given kind. */
export function estimateSpaces(kind: string, lengthM: number): number {
  if (NO_PARKING_KINDS.has(kind)) return 0;
  const spacing = SPACING_M[kind] ?? SPACING_M.parallel;
  return Math.max(0, Math.floor(lengthM / spacing));
}

/** 53-bit stable hash of a string (two FNV-1a variants). */
export function stableId(s: string): number {
  let h1 = 0x811c9dc5, h2 = 0x01000193 ^ 0x5bd1e995;
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

/** Builds blocks in edge-id order; ids are stable hashes of (way, from node, to node). */
export function buildBlocks(input: BlockInput): Block[] {
  const g = input.graph;
  const eligible = (e: EdgeId): boolean => BLOCK_CLASSES.has(g.edgeRoadClass[e]) && (g.edgeFlags[e] & (EdgeFlag.link | EdgeFlag.ferry)) === 0;
  const boundary = new Uint8Array(g.nodeCount);
  for (let n = 0; n < g.nodeCount; n++) {
    if ((g.nodeFlags[n] & NodeFlag.intersection) !== 0 || distinctNeighbourCount(g, n) !== 2) boundary[n] = 1;
  }
  const visited = new Uint8Array(g.edgeCount);
  const curbCache = new Map<number, ReturnType<typeof interpretCurb> | null>();
  const curbOf = (wayId: number): ReturnType<typeof interpretCurb> | null => {
    let c = curbCache.get(wayId);
    if (c === undefined) {
      const t = input.wayTags.get(wayId);
      const parsed = t ? interpretCurb(t) : null;
      c = parsed && (parsed.left || parsed.right) ? parsed : null;
      curbCache.set(wayId, c);
    }
    return c;
  };
  const wayLengthM = new Map<number, number>();
  for (let e = 0; e < g.edgeCount; e++) {
    if (input.edgeAlongWay[e] === 1 || g.edgeTwin[e] < 0) wayLengthM.set(g.edgeWayId[e], (wayLengthM.get(g.edgeWayId[e]) ?? 0) + g.edgeLengthM[e]);
  }
  const usedIds = new Set<number>();
  const blocks: Block[] = [];

  const walk = (first: EdgeId): void => {
    const chain: EdgeId[] = [first];
    const mark = (e: EdgeId): void => { visited[e] = 1; if (g.edgeTwin[e] >= 0) visited[g.edgeTwin[e]] = 1; };
    mark(first);
    let cur = first;
    while (!boundary[g.edgeTarget[cur]]) {
      const v = g.edgeTarget[cur];
      let next = -1;
      for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
        if (visited[e] || !eligible(e) || g.edgeTarget[e] === g.edgeSource[cur]) continue;
        if (next < 0 || (g.edgeWayId[e] === g.edgeWayId[cur] && g.edgeWayId[next] !== g.edgeWayId[cur])) next = e;
      }
      if (next < 0) break;
      chain.push(next);
      mark(next);
      cur = next;
    }
    blocks.push(makeBlock(chain));
  };

  const makeBlock = (chain: EdgeId[]): Block => {
    const geometry: Array<[number, number]> = [];
    let lengthM = 0;
    const curb: CurbSegment[] = [];
    let name = '';
    for (const e of chain) {
      if (!name) name = g.names[g.edgeNameId[e]];
      const start = geometry.length === 0 ? g.edgeGeomStart[e] : g.edgeGeomStart[e] + 1;
      for (let i = start; i < g.edgeGeomStart[e + 1]; i++) geometry.push([g.geomLatE7[i] / 1e7, g.geomLonE7[i] / 1e7]);
      const len = g.edgeLengthM[e];
      const c = curbOf(g.edgeWayId[e]);
      if (c) {
        const along = input.edgeAlongWay[e] === 1;
        const sides: Array<['left' | 'right', CurbSideTags | null]> = [
          ['left', along ? c.left : c.right],
          ['right', along ? c.right : c.left],
        ];
        for (const [side, t] of sides) {
          if (!t) continue;
          let prev: CurbSegment | undefined;
          for (let i = curb.length - 1; i >= 0 && !prev; i--) if (curb[i].side === side) prev = curb[i];
          const wayLen = wayLengthM.get(g.edgeWayId[e]) ?? len;
          const tagged = t.capacity === null ? null : t.capacity * (wayLen > 0 ? len / wayLen : 1);
          if (prev && prev.endM === round2(lengthM) && sameRules(prev, t)) {
            prev.endM = round2(lengthM + len);
            continue;
          }
          curb.push({
            side, startM: round2(lengthM), endM: round2(lengthM + len),
            kind: t.kind, condition: t.condition, maxStay: t.maxStay,
            spaces: tagged === null ? -1 : Math.round(tagged),
            tags: t.tags,
          });
        }
      }
      lengthM += len;
    }
    for (const s of curb) if (s.spaces < 0) s.spaces = estimateSpaces(s.kind, s.endM - s.startM);
    curb.sort((a, b) => (a.side === b.side ? a.startM - b.startM : a.side === 'left' ? -1 : 1));
    const fromNode = g.edgeSource[chain[0]], toNode = g.edgeTarget[chain[chain.length - 1]];
    let id = stableId(`${g.edgeWayId[chain[0]]}:${g.nodeOsmId[fromNode]}:${g.nodeOsmId[toNode]}`);
    while (usedIds.has(id)) id = (id + 1) % Number.MAX_SAFE_INTEGER;
    usedIds.add(id);
    return { id, name, fromNode, toNode, edges: chain, geometry, lengthM: round2(lengthM), curb };
  };

  for (let e = 0; e < g.edgeCount; e++) {
    if (!visited[e] && eligible(e) && boundary[g.edgeSource[e]]) walk(e);
  }
  // chains with no boundary at their start (loops, or one-way pieces entered from the middle)
  for (let e = 0; e < g.edgeCount; e++) {
    if (!visited[e] && eligible(e)) walk(e);
  }
  return blocks;
}

function sameRules(s: CurbSegment, t: CurbSideTags): boolean {
  return s.kind === t.kind && s.condition === t.condition && s.maxStay === t.maxStay && s.spaces < 0 && t.capacity === null
    && JSON.stringify(s.tags) === JSON.stringify(t.tags);
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
