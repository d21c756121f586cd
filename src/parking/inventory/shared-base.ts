/**
 * The OSM-derived part of the inventory in shared memory: the region's lots and blocks as columns
 * of typed arrays in `SharedArrayBuffer`s, their strings in one UTF-8 table, and the spatial
 * indexes (KDBush over lot points, Flatbush over block boxes) over shared data. A process builds it
 * once (`shareParkingBase`); every serving thread gets the same bytes with its workerData and
 * makes the lot and block records a request needs from them (`ParkingBaseReader`), keeping a
 * bounded number of them. Uploaded lots and blocks are merged over it per thread
 * (`shared-inventory.ts`). Read-only once built: nothing synchronises writes.
 */
import KDBush from 'kdbush';
import Flatbush from 'flatbush';
import type { Block, CurbSegment, OsmLot, Region } from '../../network/region.js';
import { blockAddress, blockRecord, lotFromOsm, osmRefOf } from './from-osm.js';
import type { BlockRecord, LotRecord } from './types.js';

/** Strings as UTF-8 bytes; string `i` is `bytes[offsets[i]..offsets[i + 1]]`. */
export interface SharedStrings {
  bytes: Uint8Array;
  offsets: Uint32Array;
}

/**
 * The region's lots and blocks in shared memory (every array in a SharedArrayBuffer). Lots and
 * blocks are sorted by id (a duplicate id keeps the last record of the region, as a Map would).
 */
export interface SharedParkingBase {
  strings: SharedStrings;
  lots: {
    /** lot id (`OsmLot.id`), ascending */
    ids: Float64Array;
    /** string index of the lot's `OsmLot` as JSON (the bundle stores lots as JSON too) */
    json: Uint32Array;
    /** string index of the lot's OSM reference ("w123") */
    ref: Uint32Array;
    /** string index of [id, osmRef, osmId, isWay] of every region lot in the region's order, as JSON */
    keys: number;
    /** KDBush data over (lon, lat) of each lot's point (the outline's centroid for areas), or null */
    index: SharedArrayBuffer | null;
  };
  blocks: {
    /** block id, ascending */
    ids: Float64Array;
    /** string indexes of the block's name and of its `address` (with the cross streets) */
    name: Uint32Array;
    address: Uint32Array;
    /** block `i`'s points are `coords[2 * geomStart[i] ..  2 * geomStart[i + 1]]`, [lat, lon] degrees */
    geomStart: Uint32Array;
    coords: Float64Array;
    /** block `i`'s curb stretches are `curbStart[i] .. curbStart[i + 1]` of the curb columns */
    curbStart: Uint32Array;
    /** 0 = right, 1 = left */
    curbSide: Uint8Array;
    /** metres along the block from its start */
    curbStartM: Float64Array;
    curbEndM: Float64Array;
    curbSpaces: Float64Array;
    /** string indexes of kind, condition, maxStay and of the raw tags as JSON */
    curbKind: Uint32Array;
    curbCondition: Uint32Array;
    curbMaxStay: Uint32Array;
    curbTags: Uint32Array;
    /** Flatbush data over [minLon, minLat, maxLon, maxLat] of each block's geometry, or null */
    index: SharedArrayBuffer | null;
  };
}

function f64(n: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(8 * n));
}
function u32(n: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * n));
}

/** Collects strings once each; `finish()` writes them to shared memory. */
class StringTableBuilder {
  private readonly ids = new Map<string, number>();
  private readonly list: string[] = [];
  add(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.ids.set(s, i);
      this.list.push(s);
    }
    return i;
  }
  finish(): SharedStrings {
    const offsets = u32(this.list.length + 1);
    let n = 0;
    this.list.forEach((s, i) => {
      offsets[i] = n;
      n += Buffer.byteLength(s, 'utf8');
    });
    offsets[this.list.length] = n;
    const bytes = new Uint8Array(new SharedArrayBuffer(Math.max(n, 1)));
    const view = Buffer.from(bytes.buffer, 0, bytes.byteLength);
    for (let i = 0; i < this.list.length; i++) view.write(this.list[i], offsets[i], 'utf8');
    return { bytes, offsets };
  }
}

/** String `i` of a shared table. */
export function stringAt(t: SharedStrings, i: number): string {
  const from = t.offsets[i];
  return Buffer.from(t.bytes.buffer, t.bytes.byteOffset + from, t.offsets[i + 1] - from).toString('utf8');
}

/** The last record of each id, in ascending id order (what a Map keyed by id then sorted keeps). */
function lastById<T>(items: readonly T[], idOf: (x: T) => number): T[] {
  const byId = new Map<number, T>();
  for (const x of items) byId.set(idOf(x), x);
  return [...byId.values()].sort((a, b) => idOf(a) - idOf(b));
}

function shareLots(lots: readonly OsmLot[], strings: StringTableBuilder): SharedParkingBase['lots'] {
  const sorted = lastById(lots, (l) => l.id);
  const ids = f64(sorted.length);
  const json = u32(sorted.length);
  const ref = u32(sorted.length);
  const index = sorted.length > 0 ? new KDBush(sorted.length, 64, Float64Array, SharedArrayBuffer) : null;
  sorted.forEach((l, i) => {
    ids[i] = l.id;
    json[i] = strings.add(JSON.stringify(l));
    ref[i] = strings.add(osmRefOf(l));
    // the point of the record (the currency plays no part in it)
    const rec = lotFromOsm(l, 'USD');
    index?.add(rec.lon, rec.lat);
  });
  index?.finish();
  const keys = strings.add(JSON.stringify(lots.map((l) => [l.id, osmRefOf(l), l.osmId, l.osmType === 'way' ? 1 : 0])));
  return { ids, json, ref, keys, index: index ? (index.data as SharedArrayBuffer) : null };
}

function shareBlocks(
  blocks: readonly Block[],
  namesAt: ReadonlyMap<number, readonly string[]>,
  strings: StringTableBuilder,
): SharedParkingBase['blocks'] {
  const sorted = lastById(blocks, (b) => b.id);
  const n = sorted.length;
  let points = 0,
    curbs = 0;
  for (const b of sorted) {
    points += b.geometry.length;
    curbs += b.curb.length;
  }
  const out: SharedParkingBase['blocks'] = {
    ids: f64(n),
    name: u32(n),
    address: u32(n),
    geomStart: u32(n + 1),
    coords: f64(2 * points),
    curbStart: u32(n + 1),
    curbSide: new Uint8Array(new SharedArrayBuffer(Math.max(curbs, 1))),
    curbStartM: f64(curbs),
    curbEndM: f64(curbs),
    curbSpaces: f64(curbs),
    curbKind: u32(curbs),
    curbCondition: u32(curbs),
    curbMaxStay: u32(curbs),
    curbTags: u32(curbs),
    index: null,
  };
  const index = n > 0 ? new Flatbush(n, 16, Float64Array, SharedArrayBuffer) : null;
  let p = 0,
    c = 0;
  sorted.forEach((b, i) => {
    out.ids[i] = b.id;
    out.name[i] = strings.add(b.name);
    out.address[i] = strings.add(blockAddress(b, namesAt));
    out.geomStart[i] = p;
    for (const [lat, lon] of b.geometry) {
      out.coords[2 * p] = lat;
      out.coords[2 * p + 1] = lon;
      p++;
    }
    out.curbStart[i] = c;
    for (const s of b.curb) {
      out.curbSide[c] = s.side === 'left' ? 1 : 0;
      out.curbStartM[c] = s.startM;
      out.curbEndM[c] = s.endM;
      out.curbSpaces[c] = s.spaces;
      out.curbKind[c] = strings.add(s.kind);
      out.curbCondition[c] = strings.add(s.condition);
      out.curbMaxStay[c] = strings.add(s.maxStay);
      out.curbTags[c] = strings.add(JSON.stringify(s.tags));
      c++;
    }
    // the same box as the record's bbox (blockRecord), in Flatbush's (x, y) order
    const lats = b.geometry.map((q) => q[0]),
      lons = b.geometry.map((q) => q[1]);
    index?.add(Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats));
  });
  out.geomStart[n] = p;
  out.curbStart[n] = c;
  if (index) {
    index.finish();
    out.index = index.data as SharedArrayBuffer;
  }
  return out;
}

/**
 * Builds the shared inventory base of a region: its lots, its blocks with their addresses (cross
 * streets from `intersectionStreetNames`, read without the intersections' movements when the
 * region comes from a bundle).
 */
export function shareParkingBase(
  region: Pick<Region, 'lots' | 'blocks' | 'intersections' | 'intersectionStreetNames'>,
): SharedParkingBase {
  const strings = new StringTableBuilder();
  const lots = shareLots(region.lots, strings);
  const namesAt =
    region.intersectionStreetNames ?? new Map(region.intersections.map((ix) => [ix.node, ix.streetNames]));
  const blocks = shareBlocks(region.blocks, namesAt, strings);
  return { strings: strings.finish(), lots, blocks };
}

/** Index of `id` in the ascending `ids`, or -1. */
export function indexOfId(ids: Float64Array, id: number): number {
  let lo = 0,
    hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid];
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Records kept by a reader of each kind (least recently used ones are dropped first). */
export const BASE_RECORD_CACHE = 4096;

/** A bounded map that forgets its least recently used entry. */
class RecordCache<T> {
  private readonly map = new Map<number, T>();
  constructor(private readonly max: number) {}
  get(i: number, make: (i: number) => T): T {
    const hit = this.map.get(i);
    if (hit !== undefined) {
      this.map.delete(i);
      this.map.set(i, hit);
      return hit;
    }
    const rec = make(i);
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as number);
    this.map.set(i, rec);
    return rec;
  }
}

/**
 * One thread's reader of a shared base: records made from the shared columns on demand (a
 * bounded cache of them), the spatial indexes over the shared data, and the lot keys an upload is
 * matched by. One per thread and currency: its cache is the thread's own.
 */
export class ParkingBaseReader {
  readonly lotIndex: KDBush | null;
  readonly blockIndex: Flatbush | null;
  private readonly lotCache = new RecordCache<LotRecord>(BASE_RECORD_CACHE);
  private readonly blockCache = new RecordCache<BlockRecord>(BASE_RECORD_CACHE);
  private keys: Array<[number, string, number, number]> | null = null;

  constructor(
    readonly base: SharedParkingBase,
    readonly currencyIso: string,
  ) {
    this.lotIndex = base.lots.index ? KDBush.from(base.lots.index) : null;
    this.blockIndex = base.blocks.index ? Flatbush.from(base.blocks.index) : null;
  }

  get lotCount(): number {
    return this.base.lots.ids.length;
  }
  get blockCount(): number {
    return this.base.blocks.ids.length;
  }
  lotId(i: number): number {
    return this.base.lots.ids[i];
  }
  blockId(i: number): number {
    return this.base.blocks.ids[i];
  }
  /** OSM reference of lot `i` ("w123"). */
  lotRef(i: number): string {
    return stringAt(this.base.strings, this.base.lots.ref[i]);
  }
  /** [id, osmRef, osmId, isWay] of every region lot in the region's order. */
  lotKeys(): Array<[number, string, number, number]> {
    this.keys ??= JSON.parse(stringAt(this.base.strings, this.base.lots.keys));
    return this.keys!;
  }

  /** Lot `i`'s record (kept: callers must not change it). */
  lot(i: number): LotRecord {
    return this.lotCache.get(i, (k) => this.makeLot(k));
  }
  /** Block `i`'s record (kept: callers must not change it). */
  block(i: number): BlockRecord {
    return this.blockCache.get(i, (k) => this.makeBlock(k));
  }

  /** A new record of lot `i` (for a merge that may share its parts). */
  makeLot(i: number): LotRecord {
    return lotFromOsm(JSON.parse(stringAt(this.base.strings, this.base.lots.json[i])) as OsmLot, this.currencyIso);
  }

  /** A new record of block `i`, made from its columns as `blockFromRegion` makes it from the region. */
  makeBlock(i: number): BlockRecord {
    const b = this.base.blocks;
    const s = this.base.strings;
    const geometry: Array<[number, number]> = [];
    for (let p = b.geomStart[i]; p < b.geomStart[i + 1]; p++) geometry.push([b.coords[2 * p], b.coords[2 * p + 1]]);
    const curb: CurbSegment[] = [];
    for (let c = b.curbStart[i]; c < b.curbStart[i + 1]; c++)
      curb.push({
        side: b.curbSide[c] === 1 ? 'left' : 'right',
        startM: b.curbStartM[c],
        endM: b.curbEndM[c],
        kind: stringAt(s, b.curbKind[c]),
        condition: stringAt(s, b.curbCondition[c]),
        maxStay: stringAt(s, b.curbMaxStay[c]),
        spaces: b.curbSpaces[c],
        tags: JSON.parse(stringAt(s, b.curbTags[c])) as Record<string, string>,
      });
    const block = { id: b.ids[i], name: stringAt(s, b.name[i]), geometry, curb };
    return blockRecord(block, stringAt(s, b.address[i]), this.currencyIso);
  }
}
