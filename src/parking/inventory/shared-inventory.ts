/**
 * The inventory of a serving thread over the region's shared base (`shared-base.ts`): the OSM lots
 * and blocks are read from shared memory when a query needs them, the uploads (few, read from the
 * database, changing at run time) are merged per thread exactly as `buildInventory` merges them
 * (`mergeLotUploads`, `mergeBlock`) into an overlay that hides the base records it replaces. Every
 * lookup answers what the `Inventory` built whole from the same region and uploads answers.
 */
import { degreeSpan } from '../../geo/index.js';
import { type BlockUpload, mergeBlock } from './block-upload.js';
import type { LotUpload } from './lot-upload.js';
import {
  type InventoryView,
  type LotKeys,
  type LotTable,
  type RecordLookup,
  type SegmentHit,
  mergeLotUploads,
  segmentNear,
} from './inventory.js';
import { indexOfId, type ParkingBaseReader } from './shared-base.js';
import type { BlockRecord, LotRecord } from './types.js';

/** Lots as `mergeLotUploads` sees them: the base's, minus those removed, with the overlay's over them. */
class LotOverlay implements LotTable {
  /** uploaded (merged or new) lots by id */
  readonly lots = new Map<number, LotRecord>();
  /** base lot ids an upload moved to another id */
  readonly removed = new Set<number>();
  constructor(private readonly base: ParkingBaseReader) {}
  private baseIndex(id: number): number {
    return this.removed.has(id) ? -1 : indexOfId(this.base.base.lots.ids, id);
  }
  has(id: number): boolean {
    return this.lots.has(id) || this.baseIndex(id) >= 0;
  }
  get(id: number): LotRecord | undefined {
    const up = this.lots.get(id);
    if (up) return up;
    const i = this.baseIndex(id);
    // a new record: the merge may share its parts with the merged one
    return i >= 0 ? this.base.makeLot(i) : undefined;
  }
  set(id: number, rec: LotRecord): void {
    this.lots.set(id, rec);
  }
  delete(id: number): void {
    this.lots.delete(id);
    this.removed.add(id);
  }
}

/** The keys `buildInventory` matches uploads by, for the base's lots (built as it builds them). */
function baseLotKeys(base: ParkingBaseReader): LotKeys {
  const byRef = new Map<string, number>();
  const byNum = new Map<number, number>();
  for (const [id, ref, osmId, isWay] of base.lotKeys()) {
    byRef.set(ref, id);
    if (!byNum.has(osmId) || isWay === 1) byNum.set(osmId, id);
  }
  const byAlias = new Map<string, number>();
  for (let i = 0; i < base.lotCount; i++) byAlias.set(`osm|${base.lotRef(i)}`.toLowerCase(), base.lotId(i));
  return { byRef, byNum, byAlias };
}

/** Per-thread lookups of the base's lots by "osm|<ref>" (lower-cased), built once per reader. */
const aliasIndexes = new WeakMap<ParkingBaseReader, Map<string, number>>();
function baseAliasIndex(base: ParkingBaseReader): Map<string, number> {
  let m = aliasIndexes.get(base);
  if (!m) {
    m = new Map();
    for (let i = 0; i < base.lotCount; i++) m.set(`osm|${base.lotRef(i)}`.toLowerCase(), i);
    aliasIndexes.set(base, m);
  }
  return m;
}

/** True when an alias key of `l` (as `Inventory` keys lots) is `key`. */
function lotHasKey(l: LotRecord, key: string): boolean {
  return (l.alias !== null && l.alias.toLowerCase() === key) || (l.osmRef !== null && `osm|${l.osmRef}` === key);
}

function lookup<K, V>(get: (key: K) => V | undefined): RecordLookup<K, V> {
  return { get, has: (key) => get(key) !== undefined };
}

/** A thread's inventory: the shared base with its uploads merged over it. */
export class SharedInventory implements InventoryView {
  readonly lotById: RecordLookup<number, LotRecord>;
  readonly lotByAlias: RecordLookup<string, LotRecord>;
  readonly blockById: RecordLookup<number, BlockRecord>;
  private readonly overLots: LotOverlay;
  /** uploaded (merged or new) blocks by id */
  private readonly overBlocks = new Map<number, BlockRecord>();

  constructor(
    private readonly base: ParkingBaseReader,
    uploads: { lots: LotUpload[]; blocks: BlockUpload[] },
  ) {
    this.overLots = new LotOverlay(base);
    mergeLotUploads(this.overLots, baseLotKeys(base), uploads.lots, base.currencyIso);
    for (const up of uploads.blocks) {
      const prev = this.overBlocks.get(up.blockID) ?? this.newBaseBlock(up.blockID);
      this.overBlocks.set(up.blockID, mergeBlock(prev ?? null, up, base.currencyIso, up.key));
    }
    this.lotById = lookup((id) => this.lot(id));
    this.lotByAlias = lookup((key) => this.lotByKey(key));
    this.blockById = lookup((id) => this.block(id));
  }

  private newBaseBlock(id: number): BlockRecord | undefined {
    const i = indexOfId(this.base.base.blocks.ids, id);
    return i >= 0 ? this.base.makeBlock(i) : undefined;
  }

  /** Base lot `i` unless an upload replaced or moved it. */
  private baseLot(i: number): LotRecord | undefined {
    const id = this.base.lotId(i);
    return this.overLots.lots.has(id) || this.overLots.removed.has(id) ? undefined : this.base.lot(i);
  }

  private lot(id: number): LotRecord | undefined {
    const up = this.overLots.lots.get(id);
    if (up) return up;
    const i = indexOfId(this.base.base.lots.ids, id);
    return i >= 0 ? this.baseLot(i) : undefined;
  }

  /** The lot `Inventory.lotByAlias` gives: of the lots with that key, the one of the highest id. */
  private lotByKey(key: string): LotRecord | undefined {
    let best: LotRecord | undefined;
    const i = baseAliasIndex(this.base).get(key);
    if (i !== undefined) best = this.baseLot(i);
    for (const l of this.overLots.lots.values()) if (lotHasKey(l, key) && (!best || l.id > best.id)) best = l;
    return best;
  }

  private block(id: number): BlockRecord | undefined {
    const up = this.overBlocks.get(id);
    if (up) return up;
    const i = indexOfId(this.base.base.blocks.ids, id);
    return i >= 0 ? this.base.block(i) : undefined;
  }

  lotsInBox(minLat: number, minLon: number, maxLat: number, maxLon: number): LotRecord[] {
    const out: LotRecord[] = [];
    for (const i of this.base.lotIndex?.range(minLon, minLat, maxLon, maxLat) ?? []) {
      const l = this.baseLot(i);
      if (l) out.push(l);
    }
    // the same inclusive test as KDBush's range
    for (const l of this.overLots.lots.values())
      if (l.lon >= minLon && l.lon <= maxLon && l.lat >= minLat && l.lat <= maxLat) out.push(l);
    return out;
  }

  blocksInBox(minLat: number, minLon: number, maxLat: number, maxLon: number): BlockRecord[] {
    const out: BlockRecord[] = [];
    for (const i of this.base.blockIndex?.search(minLon, minLat, maxLon, maxLat) ?? [])
      if (!this.overBlocks.has(this.base.blockId(i))) out.push(this.base.block(i));
    // the same test as Flatbush's search (boxes that touch meet)
    for (const b of this.overBlocks.values()) {
      const [bMinLat, bMinLon, bMaxLat, bMaxLon] = b.bbox;
      if (maxLon < bMinLon || maxLat < bMinLat || minLon > bMaxLon || minLat > bMaxLat) continue;
      out.push(b);
    }
    return out;
  }

  segmentAt(lat: number, lon: number, maxM: number): SegmentHit | null {
    const { dLat, dLon } = degreeSpan(lat, maxM);
    return segmentNear(this.blocksInBox(lat - dLat, lon - dLon, lat + dLat, lon + dLon), lat, lon, maxM);
  }
}
