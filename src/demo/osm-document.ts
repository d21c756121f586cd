/**
 * A tiny in-memory OSM document (nodes, ways, relations with tags) serialised as OSM XML 0.6.
 * Ids are handed out sequentially per element type from fixed starting points, so the same
 * sequence of calls always yields the same ids (stable across runs and seeds).
 */

import type { OsmMember, OsmRelation, Tags } from '../osm/types.js';

/** OSM tags of one element (key → value). */
export type OsmTags = Tags;

/** A node: position in decimal degrees (WGS 84) and tags. */
export interface OsmNode {
  id: number;
  lat: number;
  lon: number;
  tags: OsmTags;
}

/** A way: ordered node ids and tags (closed when first id equals last id). */
export interface OsmWay {
  id: number;
  nodeIds: number[];
  tags: OsmTags;
}

/** Relations and their members use the importer's own types (`osm/types.ts`). */
export type { OsmMember, OsmRelation };

/** First ids handed out per element type (kept apart so `way id × 10 + 1` never hits a node id). */
export const FIRST_NODE_ID = 1_000;
/** First way id. */
export const FIRST_WAY_ID = 5_000;
/** First relation id. */
export const FIRST_RELATION_ID = 9_000;

/** Decimal places written for coordinates (1e-7 degrees, as OSM stores them). */
const COORD_DECIMALS = 7;

/** Builder of an OSM document; `toXml()` renders it in id order per type. */
export class OsmDocument {
  readonly nodes: OsmNode[] = [];
  readonly ways: OsmWay[] = [];
  readonly relations: OsmRelation[] = [];
  private readonly nodeById = new Map<number, OsmNode>();

  /** Adds a node at (lat, lon) degrees and returns its id. Coordinates are rounded to 1e-7. */
  addNode(lat: number, lon: number, tags: OsmTags = {}): number {
    const id = FIRST_NODE_ID + this.nodes.length;
    const node: OsmNode = { id, lat: roundCoord(lat), lon: roundCoord(lon), tags: { ...tags } };
    this.nodes.push(node);
    this.nodeById.set(id, node);
    return id;
  }

  /** Merges tags into an existing node (throws when the id is unknown). */
  tagNode(id: number, tags: OsmTags): void {
    const node = this.nodeById.get(id);
    if (!node) throw new Error(`tagNode: unknown node ${id}`);
    Object.assign(node.tags, tags);
  }

  /** Returns the node with this id (throws when unknown). */
  getNode(id: number): OsmNode {
    const node = this.nodeById.get(id);
    if (!node) throw new Error(`getNode: unknown node ${id}`);
    return node;
  }

  /** Adds a way over existing node ids and returns its id. */
  addWay(nodeIds: number[], tags: OsmTags): number {
    if (nodeIds.length < 2) throw new Error('addWay: a way needs at least two nodes');
    for (const n of nodeIds) if (!this.nodeById.has(n)) throw new Error(`addWay: unknown node ${n}`);
    const id = FIRST_WAY_ID + this.ways.length;
    this.ways.push({ id, nodeIds: [...nodeIds], tags: { ...tags } });
    return id;
  }

  /** Adds a relation and returns its id. */
  addRelation(members: OsmMember[], tags: OsmTags): number {
    const id = FIRST_RELATION_ID + this.relations.length;
    this.relations.push({ id, members: members.map((m) => ({ ...m })), tags: { ...tags } });
    return id;
  }

  /** Renders the document as OSM XML 0.6 (UTF-8, two-space indent, tags sorted by key). */
  toXml(generator = 'streetwise-demo'): string {
    const out: string[] = [];
    out.push('<?xml version="1.0" encoding="UTF-8"?>');
    out.push(`<osm version="0.6" generator="${escapeXml(generator)}">`);
    if (this.nodes.length > 0) {
      let minLat = Infinity,
        minLon = Infinity,
        maxLat = -Infinity,
        maxLon = -Infinity;
      for (const n of this.nodes) {
        minLat = Math.min(minLat, n.lat);
        maxLat = Math.max(maxLat, n.lat);
        minLon = Math.min(minLon, n.lon);
        maxLon = Math.max(maxLon, n.lon);
      }
      out.push(
        `  <bounds minlat="${fmt(minLat)}" minlon="${fmt(minLon)}" maxlat="${fmt(maxLat)}" maxlon="${fmt(maxLon)}"/>`,
      );
    }
    for (const n of this.nodes) {
      const head = `  <node id="${n.id}" version="1" lat="${fmt(n.lat)}" lon="${fmt(n.lon)}"`;
      const tags = tagLines(n.tags);
      if (tags.length === 0) out.push(`${head}/>`);
      else out.push(`${head}>`, ...tags, '  </node>');
    }
    for (const w of this.ways) {
      out.push(`  <way id="${w.id}" version="1">`);
      for (const ref of w.nodeIds) out.push(`    <nd ref="${ref}"/>`);
      out.push(...tagLines(w.tags), '  </way>');
    }
    for (const r of this.relations) {
      out.push(`  <relation id="${r.id}" version="1">`);
      for (const m of r.members) {
        out.push(`    <member type="${m.type}" ref="${m.ref}" role="${escapeXml(m.role)}"/>`);
      }
      out.push(...tagLines(r.tags), '  </relation>');
    }
    out.push('</osm>', '');
    return out.join('\n');
  }
}

function roundCoord(deg: number): number {
  return Math.round(deg * 1e7) / 1e7;
}

function fmt(deg: number): string {
  return deg.toFixed(COORD_DECIMALS);
}

function tagLines(tags: OsmTags): string[] {
  return Object.keys(tags)
    .sort()
    .map((k) => `    <tag k="${escapeXml(k)}" v="${escapeXml(tags[k])}"/>`);
}

/** Escapes the five XML special characters for use in attribute values. */
export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
