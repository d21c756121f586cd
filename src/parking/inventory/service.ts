/**
 * The inventory side of the parking service as one object the HTTP layer and the CLI use: keeps the
 * current in-memory inventory (rebuilt when the upload version in the database changes, checked at
 * most once per `versionCheckMs`, and at once after an upload committed by this process), answers
 * lots/blocks queries, stores uploads and observations.
 */
import type { Db, Queryable } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import { holidayCalendar } from '../rates/holidays.js';
import { readObservations, recordOccupancyObservations, type ObservationInput } from '../occupancy/store.js';
import { heldSpacesOfLots } from '../reservations/reservations/held-spaces.js';
import { OBSERVATION_MAX_AGE_MIN } from '../occupancy/model.js';
import { renderBlocks, renderLots, zoneAt, entryInstant, offsetAt } from '../render/render.js';
import {
  PARK_EVENT_SNAP_M,
  parkEventObservations,
  type ParkEventPoint,
  type SnappedSegment,
} from '../occupancy/park-events.js';
import { currencyOfCountry } from './currency.js';
import { queryProducts } from '../reservations/products/product-query.js';
import type { InventoryQuery } from './params.js';
import type { Hit } from './select.js';
import type { LotRecord } from './types.js';
import { buildInventory, type InventoryView } from './inventory.js';
import type { LotUpload } from './lot-upload.js';
import type { BlockUpload } from './block-upload.js';
import { ParkingBaseReader, type SharedParkingBase } from './shared-base.js';
import { SharedInventory } from './shared-inventory.js';
import { parseInventoryQuery, type InventoryOperation } from './params.js';
import { selectBlocks, selectLots } from './select.js';
import { inventoryVersion, localUploadWrites, readUploads, storeUploads, type UploadResult } from './store.js';

/** Options of the inventory service. */
export interface InventoryServiceOptions {
  /** how often to look for uploads made by other processes, milliseconds (default 1000) */
  versionCheckMs?: number;
  /** ISO 4217 currency of lots and blocks without one (default from the region's country) */
  currencyIso?: string;
  /**
   * the region's lots and blocks in shared memory (`shareParkingBase`, built once per process):
   * when given, the region's lots, blocks and street names are never read from `region`
   */
  shared?: SharedParkingBase;
}

/** Lots and blocks queries over the region plus operator uploads. */
export class InventoryService {
  private inventory: InventoryView | null = null;
  private version = -1;
  private checkedAtMs = 0;
  /** `localUploadWrites` when the version was last checked */
  private seenWrites = 0;
  private building: Promise<InventoryView> | null = null;
  private readonly currencyIso: string;
  private readonly isHoliday: (isoDate: string) => boolean;
  private readonly versionCheckMs: number;
  /** this thread's reader of the shared base, when there is one */
  private readonly sharedBase: ParkingBaseReader | null;

  constructor(
    private readonly db: Db,
    private readonly region: Pick<Region, 'lots' | 'blocks' | 'intersections' | 'intersectionStreetNames' | 'meta'>,
    opts: InventoryServiceOptions = {},
  ) {
    this.currencyIso = opts.currencyIso ?? currencyOfCountry(region.meta.country);
    this.isHoliday = holidayCalendar(region.meta.country);
    this.versionCheckMs = opts.versionCheckMs ?? 1000;
    this.sharedBase = opts.shared ? new ParkingBaseReader(opts.shared, this.currencyIso) : null;
  }

  /** The inventory of the region with `uploads` merged (over the shared base when there is one). */
  private build(uploads: { lots: LotUpload[]; blocks: BlockUpload[] }): InventoryView {
    return this.sharedBase
      ? new SharedInventory(this.sharedBase, uploads)
      : buildInventory(this.region, uploads, this.currencyIso);
  }

  /** The current inventory, rebuilt when uploads changed (in this or another process). */
  async current(): Promise<InventoryView> {
    const nowMs = Date.now();
    const writes = localUploadWrites(this.db);
    if (this.inventory && nowMs - this.checkedAtMs < this.versionCheckMs && writes === this.seenWrites)
      return this.inventory;
    if (this.building) return this.building;
    this.building = (async () => {
      this.seenWrites = writes;
      const v = await inventoryVersion(this.db);
      this.checkedAtMs = Date.now();
      if (!this.inventory || v !== this.version) {
        const uploads = await readUploads(this.db, this.region.meta.name);
        this.inventory = this.build(uploads);
        this.version = v;
      }
      return this.inventory;
    })().finally(() => {
      this.building = null;
    });
    return this.building;
  }

  /**
   * Answers GET /lots, /blocks or /blocks/v3: `params` with lower-cased keys, `nowS` unix seconds.
   * Returns the `result` array of the envelope. Throws ParkingError on bad input or unknown ids.
   */
  async query(
    op: InventoryOperation,
    params: Record<string, string>,
    nowS: number,
  ): Promise<Record<string, unknown>[]> {
    const q = parseInventoryQuery(op, params, nowS);
    const inv = await this.current();
    if (op === 'lots') {
      const { hits } = selectLots(inv, q);
      const ids = hits.map((h) => String(h.rec.id));
      const entryS = hits.length
        ? entryInstant(q.entry, hits[0].rec.tz || zoneAt(hits[0].rec.lat, hits[0].rec.lon), nowS)
        : nowS;
      const lotObservations = await readObservations(
        this.db,
        'lot',
        ids,
        entryS - OBSERVATION_MAX_AGE_MIN * 60 - 86_400,
        entryS + 86_400,
      );
      const lotReservations = q.entry ? await this.reservationsOf(hits, q, nowS) : new Map<number, unknown[]>();
      const lotReserved = await heldSpacesOfLots(
        this.db,
        hits.map((h) => h.rec.id),
        entryS * 1000,
      );
      return renderLots(hits, {
        query: q,
        nowS,
        isHoliday: this.isHoliday,
        lotObservations,
        segmentObservations: new Map(),
        polyline6: false,
        lotReservations,
        lotReserved,
      });
    }
    const { hits } = selectBlocks(inv, q);
    const segIds = hits.flatMap((h) => h.rec.segments.map((s) => s.segmentID));
    const first = hits[0]?.rec;
    const entryS = first
      ? entryInstant(q.entry, first.tz || zoneAt(first.geometry[0][0], first.geometry[0][1]), nowS)
      : nowS;
    const segmentObservations = await readObservations(
      this.db,
      'segment',
      segIds,
      entryS - OBSERVATION_MAX_AGE_MIN * 60 - 86_400,
      entryS + 86_400,
    );
    return renderBlocks(hits, {
      query: q,
      nowS,
      isHoliday: this.isHoliday,
      lotObservations: new Map(),
      segmentObservations,
      polyline6: true,
    });
  }

  /**
   * The lots' reservation products at the entry time (contract: `reservations` needs entry_time): the
   * `/product/` view of each active product — prices for the requested durations and availability.
   */
  private async reservationsOf(
    hits: Hit<LotRecord>[],
    q: InventoryQuery,
    nowS: number,
  ): Promise<Map<number, unknown[]>> {
    const out = new Map<number, unknown[]>();
    if (hits.length === 0) return out;
    const r = await this.db.query<{ lot_id: string | number }>(
      'SELECT DISTINCT lot_id FROM pk_product WHERE active AND lot_id = ANY($1::bigint[])',
      [hits.map((h) => String(h.rec.id))],
    );
    for (const row of r.rows) {
      const lotId = Number(row.lot_id);
      const res = await queryProducts(this.db, {
        lotId,
        entryAt: (tz) => entryInstant(q.entry, tz, nowS) * 1000,
        durationsMin: q.durationsMin.length > 0 ? q.durationsMin : undefined,
        nowMs: nowS * 1000,
      });
      out.set(lotId, res.Products);
    }
    return out;
  }

  /** Rebuilds now if the stored uploads changed (after a write by this process). */
  async refresh(): Promise<InventoryView> {
    this.checkedAtMs = 0;
    return this.current();
  }

  /** Validates and stores uploaded lots and blocks (all or nothing), then rebuilds the index. */
  async upload(lots: unknown[], blocks: unknown[]): Promise<UploadResult> {
    let built: InventoryView | null = null;
    const res = await storeUploads(this.db, this.region.meta.name, lots, blocks, async (tx) => {
      built = this.build(await readUploads(tx, this.region.meta.name));
    });
    if (built) {
      this.inventory = built;
      this.version = res.version;
      this.checkedAtMs = Date.now();
      this.seenWrites = localUploadWrites(this.db);
    }
    return res;
  }

  /**
   * Turns park events into `park_events` occupancy observations of the curb segments they snap to
   * (occupancy/park-events.ts) and records them in one transaction together with `storeEvents`
   * (the caller's write of the events themselves). Returns the observations recorded.
   */
  async recordParkEvents(
    events: readonly ParkEventPoint[],
    storeEvents: (tx: Queryable) => Promise<void>,
  ): Promise<ObservationInput[]> {
    // the inventory first: reading it inside the transaction could wait on the transaction itself
    const inv = await this.current();
    return this.db.transaction(async (tx) => {
      await storeEvents(tx);
      return this.observeParkEvents(tx, inv, events);
    });
  }

  private async observeParkEvents(
    q: Queryable,
    inv: InventoryView,
    events: readonly ParkEventPoint[],
  ): Promise<ObservationInput[]> {
    if (events.length === 0) return [];
    const cache = new Map<string, SnappedSegment | null>();
    const snap = (lat: number, lon: number): SnappedSegment | null => {
      const key = `${lat}|${lon}`;
      let s = cache.get(key);
      if (s !== undefined) return s;
      const hit = inv.segmentAt(lat, lon, PARK_EVENT_SNAP_M);
      s = null;
      if (hit && !hit.segment.neverOpen) {
        const b = hit.block;
        if (!b.tz) {
          const mid = b.geometry[Math.floor(b.geometry.length / 2)];
          b.tz = zoneAt(mid[0], mid[1]);
        }
        s = {
          segmentID: hit.segment.segmentID,
          spacesTotal: hit.segment.spacesTotal,
          offsetAt: (t) => offsetAt(b.tz, t),
        };
      }
      cache.set(key, s);
      return s;
    };
    const ids = [
      ...new Set(events.map((e) => snap(e.lat, e.lon)?.segmentID).filter((id): id is string => id !== undefined)),
    ];
    if (ids.length === 0) return [];
    const times = events.map((e) => e.observedAtS);
    const existing = await readObservations(
      q,
      'segment',
      ids,
      Math.min(...times) - OBSERVATION_MAX_AGE_MIN * 60,
      Math.max(...times),
    );
    const obs = parkEventObservations(events, snap, existing);
    await recordOccupancyObservations(q, obs);
    return obs;
  }

  /** Records occupancy observations (operator counts, feeds, park events, reservations). */
  async observe(obs: readonly ObservationInput[]): Promise<number> {
    return this.db.transaction((tx) => recordOccupancyObservations(tx, obs));
  }
}
