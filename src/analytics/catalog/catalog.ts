/**
 * The intersection catalog of the analytics service: the region's intersections and movements
 * with their public ids (`"<lat>_<lon>"`), names, ranks, compass directions and turn codes.
 * Clustered signal nodes (a dual carriageway's crossings, signals on a junction's approaches) are
 * one intersection whose movements run from the edge entering the cluster to the edge leaving it
 * (`clusterIntersection`). Built once per region (cached) and shared by facts, metrics and metadata.
 */
import type { EdgeId, Graph, NodeId } from '../../network/graph.js';
import { EdgeFlag, edgeGeometry } from '../../network/graph.js';
import { signalClusters } from '../../network/intersections.js';
import type { Intersection, Movement, Region } from '../../network/region.js';
import { clusterIntersection } from './cluster.js';

/** Compass points used for `Direction.direction` (direction of travel). */
export const COMPASS_POINTS = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'] as const;

/** One side of a movement: the inbound or the outbound street. */
export interface CatalogDirection {
  name: string;
  /** compass point of travel, e.g. 'N' = heading north */
  direction: string;
  altName: string[];
  /** degrees 0–359 */
  heading: number;
  /** edge geometry as [lon, lat] pairs */
  coordinates: Array<[number, number]>;
}

/** A movement as the API shows it. */
export interface CatalogMovement {
  /** public id: the region's dense movement id as a string */
  id: string;
  movement: Movement;
  intersectionKey: string;
  name: string;
  /** 1 = the straightest movement of its approach, 2 = next, … */
  rank: number;
  /** 0 = standard, 1 = slip lane (inbound or outbound edge is a *_link) */
  movementType: number;
  /** 'T' through, 'L' left, 'R' right, 'U' U-turn */
  turnManeuvers: string;
  /** movements of one approach (same inbound edge) share a group */
  turnGroupId: string;
  inbound: CatalogDirection;
  outbound: CatalogDirection;
}

/** An intersection as the API shows it. */
export interface CatalogIntersection {
  /** public id `"<lat>_<lon>"` (5 decimals; 7 when two intersections would collide) */
  key: string;
  intersection: Intersection;
  /** graph nodes of the intersection: its node, or every node of a cluster (ascending) */
  nodes: NodeId[];
  /**
   * the junction nodes among `nodes` (a single intersection's own node): a crossing's far side is
   * the last of them on the vehicle's path; approach-signal nodes only mark stop lines
   */
  junctionNodes: NodeId[];
  name: string;
  movements: CatalogMovement[];
}

/** Lookups over the catalog. */
export interface IntersectionCatalog {
  /** intersections sorted by key */
  list: CatalogIntersection[];
  byKey: Map<string, CatalogIntersection>;
  /** intersection by each of its nodes */
  byNode: Map<NodeId, CatalogIntersection>;
  /** movement by its region id */
  movementById: Map<number, CatalogMovement>;
  /** `YYYYMMDD` map version derived from the region meta */
  mapVersion: string;
}

const cache = new WeakMap<Region, IntersectionCatalog>();

/** Compass point (8 directions) of a heading in degrees. */
export function compassOf(headingDeg: number): string {
  return COMPASS_POINTS[Math.round((((headingDeg % 360) + 360) % 360) / 45) % 8];
}

/** `YYYYMMDD` from the region's map version (first 8-digit run), else from its import date. */
export function mapVersionOf(region: Region): string {
  const m = /(\d{8})/.exec(region.meta.mapVersion);
  if (m) return m[1];
  const d = /^(\d{4})-(\d{2})-(\d{2})/.exec(region.meta.importedAt ?? '');
  return d ? `${d[1]}${d[2]}${d[3]}` : '';
}

/** Public id of an intersection at (lat, lon) with `decimals` decimals. */
export function intersectionKeyOf(lat: number, lon: number, decimals = 5): string {
  return `${lat.toFixed(decimals)}_${lon.toFixed(decimals)}`;
}

const TURN_CODE = { through: 'T', left: 'L', right: 'R', uturn: 'U' } as const;
const TURN_WORD = { through: 'through to', left: 'left onto', right: 'right onto', uturn: 'U-turn onto' } as const;

/**
 * A movement's side, its edge's coordinates drawn when first asked for: a metro's catalog holds
 * millions of sides, and only metadata with geometry reads them.
 */
class EdgeDirection implements CatalogDirection {
  readonly direction: string;
  readonly altName: string[];
  readonly heading: number;
  private drawn: Array<[number, number]> | undefined;

  constructor(
    private readonly g: Graph,
    readonly edge: number,
    readonly name: string,
    readonly headingDeg: number,
  ) {
    const ref = g.names[g.edgeRefId[edge]];
    this.direction = compassOf(headingDeg);
    this.altName = ref && ref !== name ? [ref] : NO_ALT_NAME;
    this.heading = Math.round(headingDeg) % 360;
  }

  get coordinates(): Array<[number, number]> {
    this.drawn ??= edgeGeometry(this.g, this.edge).map(([lat, lon]) => [lon, lat] as [number, number]);
    return this.drawn;
  }
}

/**
 * A catalogued movement, its strings composed when asked for: a metro has millions of movements,
 * and facts read only their numbers.
 */
class ListedMovement implements CatalogMovement {
  constructor(
    readonly movement: Movement,
    readonly intersectionKey: string,
    readonly rank: number,
    readonly movementType: number,
    readonly inbound: CatalogDirection,
    readonly outbound: CatalogDirection,
  ) {}

  get id(): string {
    return String(this.movement.id);
  }

  get name(): string {
    const m = this.movement;
    return `${this.inbound.direction}B ${m.inName || '(unnamed)'} ${TURN_WORD[m.turnType]} ${m.outName || '(unnamed)'}`;
  }

  get turnManeuvers(): string {
    return TURN_CODE[this.movement.turnType];
  }

  get turnGroupId(): string {
    return `${this.intersectionKey}:${this.movement.inEdge}`;
  }
}

/** The `altName` of every side without one (shared, never written). */
const NO_ALT_NAME: string[] = [];

/** The side of `edge` named `name` at `headingDeg`, one object per distinct side in `sides`. */
function direction(
  g: Graph,
  sides: Map<number, EdgeDirection>,
  edge: number,
  name: string,
  headingDeg: number,
): EdgeDirection {
  const known = sides.get(edge);
  if (known !== undefined && known.name === name && known.headingDeg === headingDeg) return known;
  const d = new EdgeDirection(g, edge, name, headingDeg);
  sides.set(edge, d);
  return d;
}

/** An intersection as the API shows it, with its nodes and the junction nodes among them. */
interface CatalogEntry {
  ix: Intersection;
  nodes: NodeId[];
  junctionNodes: NodeId[];
}

/** Intersections as the API shows them: the signal clusters, then every region intersection outside one. */
function catalogEntries(region: Region): CatalogEntry[] {
  const g = region.graph;
  const entries: CatalogEntry[] = [];
  const byNodeIx = new Map<NodeId, Intersection>();
  for (const ix of region.intersections) byNodeIx.set(ix.node, ix);
  const clustered = new Set<NodeId>();
  let nextMovementId = 0;
  for (const ix of region.intersections)
    for (const m of ix.movements) nextMovementId = Math.max(nextMovementId, m.id + 1);
  for (const c of signalClusters(g)) {
    const parts = c.nodes.map((n) => byNodeIx.get(n)).filter((x): x is Intersection => x !== undefined);
    if (c.junctions.length === 0) continue;
    const ix = clusterIntersection(g, c, parts, nextMovementId);
    nextMovementId += ix.movements.length;
    for (const n of c.nodes) clustered.add(n);
    entries.push({ ix, nodes: c.nodes, junctionNodes: c.junctions });
  }
  for (const ix of region.intersections)
    if (!clustered.has(ix.node)) entries.push({ ix, nodes: [ix.node], junctionNodes: [ix.node] });
  return entries;
}

/**
 * The public key of each entry, in order: its position to 5 decimals, to 7 where two entries
 * share one, and suffixed with the intersection id where they still do.
 */
function entryKeys(entries: readonly CatalogEntry[]): string[] {
  const counts = new Map<string, number>();
  for (const { ix } of entries) {
    const k = intersectionKeyOf(ix.lat, ix.lon);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const seen = new Set<string>();
  return entries.map(({ ix }) => {
    let key = intersectionKeyOf(ix.lat, ix.lon);
    if ((counts.get(key) ?? 0) > 1) key = intersectionKeyOf(ix.lat, ix.lon, 7);
    if (seen.has(key)) key = `${key}_${ix.id}`;
    seen.add(key);
    return key;
  });
}

/** Rank of each movement in its approach: 1 for the straightest, ties by id. */
function movementRanks(ix: Intersection): Map<number, number> {
  const byApproach = new Map<number, Movement[]>();
  for (const m of ix.movements) {
    const arr = byApproach.get(m.inEdge) ?? [];
    arr.push(m);
    byApproach.set(m.inEdge, arr);
  }
  const rankOf = new Map<number, number>();
  for (const arr of byApproach.values()) {
    const sorted = [...arr].sort((a, b) => Math.abs(a.turnAngleDeg) - Math.abs(b.turnAngleDeg) || a.id - b.id);
    sorted.forEach((m, i) => {
      rankOf.set(m.id, i + 1);
    });
  }
  return rankOf;
}

/** The sides of one intersection's movements: an approach's movements share their inbound side, an exit's their outbound side. */
interface Sides {
  ins: Map<number, EdgeDirection>;
  outs: Map<number, EdgeDirection>;
}

/** A movement of the intersection `key` as the API shows it. */
function catalogMovement(g: Graph, sides: Sides, m: Movement, key: string, rank: number): CatalogMovement {
  const inbound = direction(g, sides.ins, m.inEdge, m.inName, m.inHeadingDeg);
  const outbound = direction(g, sides.outs, m.outEdge, m.outName, m.outHeadingDeg);
  const slip = ((g.edgeFlags[m.inEdge] | g.edgeFlags[m.outEdge]) & EdgeFlag.link) !== 0 && m.turnType !== 'through';
  return new ListedMovement(m, key, rank, slip ? 1 : 0, inbound, outbound);
}

/** Builds (or returns the cached) catalog of `region`. */
export function catalogOf(region: Region): IntersectionCatalog {
  const cached = cache.get(region);
  if (cached) return cached;
  const g = region.graph;
  const entries = catalogEntries(region);
  const keys = entryKeys(entries);
  const list: CatalogIntersection[] = [];
  const movementById = new Map<number, CatalogMovement>();
  entries.forEach(({ ix, nodes, junctionNodes }, e) => {
    const key = keys[e];
    const rankOf = movementRanks(ix);
    const sides: Sides = { ins: new Map(), outs: new Map() };
    const movements = ix.movements.map((m) => catalogMovement(g, sides, m, key, rankOf.get(m.id) ?? 1));
    for (const cm of movements) movementById.set(cm.movement.id, cm);
    const name = ix.name || ix.streetNames.filter(Boolean).join(' & ') || key;
    list.push({ key, intersection: ix, nodes, junctionNodes, name, movements });
  });
  list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byNode = new Map<NodeId, CatalogIntersection>();
  for (const c of list) for (const n of c.nodes) byNode.set(n, c);
  const catalog: IntersectionCatalog = {
    list,
    byKey: new Map(list.map((c) => [c.key, c])),
    byNode,
    movementById,
    mapVersion: mapVersionOf(region),
  };
  cache.set(region, catalog);
  return catalog;
}

const movementIndexes = new WeakMap<IntersectionCatalog, Map<number, CatalogMovement[]>>();

/**
 * Catalog movements by inbound edge (built once per catalog). Keyed by the edge alone: a metro's
 * millions of movements keyed by (inbound, outbound) pairs above 2³¹ outgrew the heap.
 */
export function movementsByInEdge(catalog: IntersectionCatalog): Map<number, CatalogMovement[]> {
  let idx = movementIndexes.get(catalog);
  if (idx) return idx;
  idx = new Map();
  for (const c of catalog.list)
    for (const m of c.movements) {
      const list = idx.get(m.movement.inEdge);
      if (list === undefined) idx.set(m.movement.inEdge, [m]);
      else list.push(m);
    }
  movementIndexes.set(catalog, idx);
  return idx;
}

/** The catalog movement from `inEdge` to `outEdge` (the last catalogued, as a map would keep). */
export function movementOf(
  idx: Map<number, CatalogMovement[]>,
  inEdge: EdgeId,
  outEdge: EdgeId,
): CatalogMovement | undefined {
  const list = idx.get(inEdge);
  if (list === undefined) return undefined;
  for (let i = list.length - 1; i >= 0; i--) if (list[i].movement.outEdge === outEdge) return list[i];
  return undefined;
}
