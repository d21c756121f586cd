/**
 * The in-memory inventory: lot and block records plus their spatial indexes (KDBush over lot
 * points, Flatbush over block bounding boxes). Built from the region and the stored uploads, then
 * frozen; a change of uploads builds a new Inventory (the old one keeps serving meanwhile).
 */
import KDBush from 'kdbush';
import Flatbush from 'flatbush';
import { degreeSpan, projectOnSegment } from '../../geo/index.js';
import type { Region } from '../../network/region.js';
import { type BlockUpload, mergeBlock } from './block-upload.js';
import { type LotUpload, mergeLot } from './lot-upload.js';
import { blockFromRegion, lotFromOsm } from './from-osm.js';
import type { BlockRecord, LotRecord, SegmentRecord } from './types.js';

/** A curb segment near a point: its block, the segment and the distance in metres. */
export interface SegmentHit {
  block: BlockRecord;
  segment: SegmentRecord;
  distanceM: number;
}

/** Records by key (a Map is one). */
export interface RecordLookup<K, V> {
  get(key: K): V | undefined;
  has(key: K): boolean;
}

/**
 * What queries read of an inventory: records by id and alias, and bounding-box lookups. Built
 * whole (`Inventory`) or over the shared base of the region (`SharedInventory`); both answer the same.
 */
export interface InventoryView {
  readonly lotById: RecordLookup<number, LotRecord>;
  /** by lower-cased alias, and by "osm|<osmRef>" */
  readonly lotByAlias: RecordLookup<string, LotRecord>;
  readonly blockById: RecordLookup<number, BlockRecord>;
  /** Lots whose point lies in the box (degrees), in no particular order. */
  lotsInBox(minLat: number, minLon: number, maxLat: number, maxLon: number): LotRecord[];
  /** Blocks whose bounding box meets the box (degrees), in no particular order. */
  blocksInBox(minLat: number, minLon: number, maxLat: number, maxLon: number): BlockRecord[];
  /**
   * The curb segment nearest to a point within `maxM` metres (segment lines are drawn on their curb
   * side, so the nearer curb wins), with its block; null when none is that near.
   */
  segmentAt(lat: number, lon: number, maxM: number): SegmentHit | null;
}

/**
 * The segment of `blocks` nearest to a point within `maxM` metres; of equally near ones, the
 * first of the lowest block id (so the answer does not depend on the order of the candidates).
 */
export function segmentNear(blocks: readonly BlockRecord[], lat: number, lon: number, maxM: number): SegmentHit | null {
  let best: SegmentHit | null = null;
  for (const block of blocks) {
    for (const segment of block.segments) {
      const g = segment.geometry;
      for (let v = 0; v + 1 < g.length; v++) {
        const d = projectOnSegment(lat, lon, g[v][0], g[v][1], g[v + 1][0], g[v + 1][1]).distanceM;
        if (d > maxM) continue;
        if (!best || d < best.distanceM || (d === best.distanceM && block.blockID < best.block.blockID))
          best = { block, segment, distanceM: d };
      }
    }
  }
  return best;
}

/** Builds and answers bounding-box lookups over lots and blocks. */
export class Inventory implements InventoryView {
  readonly lotById = new Map<number, LotRecord>();
  readonly lotByAlias = new Map<string, LotRecord>();
  readonly blockById = new Map<number, BlockRecord>();
  private readonly lotIndex: KDBush | null;
  private readonly blockIndex: Flatbush | null;

  /** Indexes the given records (ids must be unique; later duplicates replace earlier ones). */
  constructor(
    readonly lots: readonly LotRecord[],
    readonly blocks: readonly BlockRecord[],
  ) {
    for (const l of lots) {
      this.lotById.set(l.id, l);
      if (l.alias) this.lotByAlias.set(l.alias.toLowerCase(), l);
      if (l.osmRef) this.lotByAlias.set(`osm|${l.osmRef}`, l);
    }
    for (const b of blocks) this.blockById.set(b.blockID, b);
    if (lots.length > 0) {
      const idx = new KDBush(lots.length, 64, Float64Array);
      for (const l of lots) idx.add(l.lon, l.lat);
      this.lotIndex = idx.finish();
    } else this.lotIndex = null;
    if (blocks.length > 0) {
      const idx = new Flatbush(blocks.length);
      for (const b of blocks) idx.add(b.bbox[1], b.bbox[0], b.bbox[3], b.bbox[2]);
      idx.finish();
      this.blockIndex = idx;
    } else this.blockIndex = null;
  }

  lotsInBox(minLat: number, minLon: number, maxLat: number, maxLon: number): LotRecord[] {
    return this.lotIndex ? this.lotIndex.range(minLon, minLat, maxLon, maxLat).map((i) => this.lots[i]) : [];
  }

  segmentAt(lat: number, lon: number, maxM: number): SegmentHit | null {
    const { dLat, dLon } = degreeSpan(lat, maxM);
    return segmentNear(this.blocksInBox(lat - dLat, lon - dLon, lat + dLat, lon + dLon), lat, lon, maxM);
  }

  blocksInBox(minLat: number, minLon: number, maxLat: number, maxLon: number): BlockRecord[] {
    return this.blockIndex ? this.blockIndex.search(minLon, minLat, maxLon, maxLat).map((i) => this.blocks[i]) : [];
  }
}

/** Lots by id as the merge of uploads reads and changes them (a Map, or an overlay over a shared base). */
export interface LotTable {
  has(id: number): boolean;
  get(id: number): LotRecord | undefined;
  set(id: number, rec: LotRecord): void;
  delete(id: number): void;
}

/** What an upload is matched by: lot id by OSM reference, by OSM number, by lower-cased alias. */
export interface LotKeys {
  byRef: Map<string, number>;
  byNum: Map<number, number>;
  byAlias: Map<string, number>;
}

/**
 * Merges uploaded lots into `lots`: an upload updates the lot with its id, OSM reference or alias
 * (uploaded fields win), or adds a new lot. `keys` are updated with the merged aliases.
 */
export function mergeLotUploads(
  lots: LotTable,
  keys: LotKeys,
  uploads: readonly LotUpload[],
  currencyIso: string,
): void {
  const { byRef, byNum, byAlias } = keys;
  // uploads keyed by OSM reference or alias first, explicit ids last (so an id upload wins)
  const ordered = [...uploads].sort((a, b) => (a.key.startsWith('id:') ? 1 : 0) - (b.key.startsWith('id:') ? 1 : 0));
  for (const up of ordered) {
    let targetId: number | undefined;
    if (up.id !== null && lots.has(up.id)) targetId = up.id;
    else if (up.osmRef)
      targetId = up.osmRef.startsWith('?') ? byNum.get(Number(up.osmRef.slice(1))) : byRef.get(up.osmRef);
    if (targetId === undefined && up.alias) targetId = byAlias.get(up.alias.toLowerCase());
    const base = targetId !== undefined ? lots.get(targetId)! : null;
    const merged = mergeLot(base, up, currencyIso, up.key);
    if (targetId !== undefined && merged.id !== targetId) lots.delete(targetId);
    lots.set(merged.id, merged);
    if (merged.alias) byAlias.set(merged.alias.toLowerCase(), merged.id);
  }
}

/**
 * Builds the inventory from the region's OSM lots and blocks plus uploads: an upload updates the
 * lot with its id, OSM reference or alias (uploaded fields win), or adds a new lot.
 */
export function buildInventory(
  region: Pick<Region, 'lots' | 'blocks' | 'intersections' | 'intersectionStreetNames'>,
  uploads: { lots: LotUpload[]; blocks: BlockUpload[] },
  currencyIso: string,
): Inventory {
  const lots = new Map<number, LotRecord>();
  const byRef = new Map<string, number>();
  const byNum = new Map<number, number>();
  for (const o of region.lots) {
    const rec = lotFromOsm(o, currencyIso);
    lots.set(rec.id, rec);
    byRef.set(rec.osmRef!, rec.id);
    if (!byNum.has(o.osmId) || o.osmType === 'way') byNum.set(o.osmId, rec.id);
  }
  const byAlias = new Map<string, number>();
  for (const r of lots.values()) if (r.alias) byAlias.set(r.alias.toLowerCase(), r.id);
  mergeLotUploads(lots, { byRef, byNum, byAlias }, uploads.lots, currencyIso);
  // cross-street names only: a bundle reads them without the intersections' movements
  const namesAt =
    region.intersectionStreetNames ?? new Map(region.intersections.map((ix) => [ix.node, ix.streetNames]));
  const blocks = new Map<number, BlockRecord>();
  for (const b of region.blocks) blocks.set(b.id, blockFromRegion(b, namesAt, currencyIso));
  for (const up of uploads.blocks)
    blocks.set(up.blockID, mergeBlock(blocks.get(up.blockID) ?? null, up, currencyIso, up.key));
  return new Inventory(
    [...lots.values()].sort((a, b) => a.id - b.id),
    [...blocks.values()].sort((a, b) => a.blockID - b.blockID),
  );
}
