/**
 * Renders selected lots and blocks into the contract's output shape for one request: distance,
 * local offset and time zone, isOpen and calculatedRates at the entry time, rate-card text when
 * none was uploaded, occupancy / probability / bucket, costIndex relative to the neighbours returned,
 * polylines (precision 5 and 6) and GeoJSON, then `outputfields` projection.
 */
import { DateTime } from 'luxon';
import tzLookup from '@photostructure/tz-lookup';
import type OpeningHours from 'opening_hours';
import { parseOpeningHours } from '../opening-hours.js';
import { calculateRates, hourlyPriceCents, isOpenAt } from '../rates/calculated-rates.js';
import { rateCardOf } from '../rates/rate-card.js';
import type { QuoteOptions } from '../rates/quote.js';
import { bucketOf, estimateOccupancy, type OccupancyObservation } from '../occupancy/model.js';
import { encodeLine } from '../inventory/polyline.js';
import type { EntryTime, InventoryQuery } from '../inventory/params.js';
import type { Hit } from '../inventory/select.js';
import type { BlockRecord, LotRecord, SegmentRecord } from '../inventory/types.js';

/** Inputs shared by every record of one response. */
export interface RenderContext {
  query: InventoryQuery;
  /** the clock, unix seconds (entry time when none is given) */
  nowS: number;
  isHoliday: (isoDate: string) => boolean;
  /** observations per lot id / segment id */
  lotObservations: Map<string, OccupancyObservation[]>;
  segmentObservations: Map<string, OccupancyObservation[]>;
  /** include `polyline6` on blocks and segments */
  polyline6: boolean;
  /** reservation products per lot id at the entry time (lots with none are absent) */
  lotReservations?: Map<number, unknown[]>;
  /** spaces held by reservations per lot id at the entry time */
  lotReserved?: Map<number, number>;
}

/** Time zone of a point (IANA), memoised on the record by the caller. */
export function zoneAt(lat: number, lon: number): string {
  try {
    return tzLookup(lat, lon);
  } catch {
    return 'UTC';
  }
}

/** Entry instant (unix seconds) of an entry time in a zone (now when absent). */
export function entryInstant(entry: EntryTime | null, tz: string, nowS: number): number {
  if (!entry) return nowS;
  if (entry.utc) return entry.unixS;
  const dt = DateTime.fromObject(
    {
      year: entry.year,
      month: entry.month,
      day: entry.day,
      hour: entry.hour,
      minute: entry.minute,
      second: entry.second,
    },
    { zone: tz },
  );
  return Math.round(dt.toSeconds());
}

/** UTC offset in seconds of a zone at an instant. */
export function offsetAt(tz: string, unixS: number): number {
  return DateTime.fromSeconds(unixS, { zone: tz }).offset * 60;
}

const ohCache = new Map<string, OpeningHours | null>();

/** Opening-hours state at a local time: true/false, or null when the value cannot be read. */
export function openingHoursState(value: string, tz: string, unixS: number): boolean | null {
  let oh = ohCache.get(value);
  if (oh === undefined) {
    try {
      oh = parseOpeningHours(value);
    } catch {
      oh = null;
    }
    if (ohCache.size > 10_000) ohCache.clear();
    ohCache.set(value, oh);
  }
  if (!oh) return null;
  // opening_hours reads the Date in the process zone: build one whose process-local fields are the lot's local time
  const l = DateTime.fromSeconds(unixS, { zone: tz });
  return oh.getState(new Date(l.year, l.month - 1, l.day, l.hour, l.minute, l.second));
}

function project(obj: Record<string, unknown>, fields: Set<string> | null, idField: string): Record<string, unknown> {
  if (!fields) return obj;
  const out: Record<string, unknown> = { [idField]: obj[idField] };
  for (const f of fields) if (f in obj) out[f] = obj[f];
  return out;
}

function roundM(d: number | null): number | null {
  return d === null ? null : Math.round(d);
}

/** Rank 1..5 of `value` among `all` (cheapest 1, dearest 5, ties share the middle rank; alone: 3). */
function quintile(value: number, all: number[]): number {
  if (all.length < 2) return 3;
  const below = all.filter((v) => v < value).length;
  const equal = all.filter((v) => v === value).length;
  return 1 + Math.round((4 * (below + (equal - 1) / 2)) / (all.length - 1));
}

function nonEmptyArray(v: unknown): unknown[] | undefined {
  return Array.isArray(v) && v.length > 0 ? v : undefined;
}

/** Renders a page of lots (in order). */
export function renderLots(hits: Hit<LotRecord>[], rc: RenderContext): Record<string, unknown>[] {
  const q = rc.query;
  const permits = q.restrictions ?? new Set<string>();
  const rows = hits.map(({ rec, distanceM }) => {
    if (!rec.tz) rec.tz = zoneAt(rec.lat, rec.lon);
    const entryS = entryInstant(q.entry, rec.tz, rc.nowS);
    const opts: QuoteOptions = { tz: rec.tz, isHoliday: rc.isHoliday, permits };
    let isOpen: boolean | null = rec.openingHours ? openingHoursState(rec.openingHours, rec.tz, entryS) : null;
    const ratesOpen = isOpenAt(rec.frames, entryS, opts);
    if (ratesOpen === false) isOpen = false;
    else if (isOpen === null) isOpen = ratesOpen;
    let calculatedRates = calculateRates(rec.frames, entryS, q.durationsMin, opts);
    if (isOpen === false && calculatedRates !== null) calculatedRates = [];
    const occ = estimateOccupancy(
      rec.category,
      rec.spacesTotal,
      entryS,
      offsetAt(rec.tz, entryS),
      rc.lotObservations.get(String(rec.id)) ?? [],
      rc.lotReserved?.get(rec.id) ?? 0,
    );
    // unknown capacity: null (see estimateOccupancy); a lot closed at the entry time has no free space
    const occupancy =
      occ === null ? null : isOpen === false ? { ...occ, available: 0, probability: 0, bucket: 1 } : occ;
    const f = rec.fields;
    const out: Record<string, unknown> = {
      id: rec.id,
      ...(rec.alias ? { alias: rec.alias } : {}),
      name: f.name ?? '',
      operator: f.operator ?? '',
      lotCategory: f.lotCategory ?? 'Unknown',
      format: f.format ?? 'Surface',
      type: f.type ?? 'Non-restricted',
      spacesTotal: rec.spacesTotal,
      handicapSpacesTotal: f.handicapSpacesTotal ?? null,
      distance: roundM(distanceM),
      url: f.url ?? '',
      hrs: f.hrs ?? [],
      offset: offsetAt(rec.tz, entryS),
      tz: rec.tz,
      isOpen,
      costIndex: f.costIndex ?? null,
      currency: f.currency,
      currencyIso: rec.currencyIso,
      pmtTypes: f.pmtTypes ?? [],
      rateCard: rec.rateCardUploaded ? f.rateCard : rec.frames ? rateCardOf(rec.frames, rec.currencyIso, q.locale) : [],
      structured_rates: f.structured_rates ?? [],
      calculatedRates,
      occupancy,
    };
    for (const [k, v] of Object.entries(f)) if (!(k in out)) out[k] = v;
    // The contract names the field paymentID; the reference's samples also show paymentIDs. Both
    // carry the same ids, whichever of the two an upload used.
    const paymentIds = nonEmptyArray(f.paymentID) ?? nonEmptyArray(f.paymentIDs) ?? [];
    out.paymentID = paymentIds;
    out.paymentIDs = paymentIds;
    const products = rc.lotReservations?.get(rec.id);
    if (products) out.reservations = products;
    else if (!Array.isArray(out.reservations)) out.reservations = [];
    return {
      out,
      hourly: f.costIndex === undefined || f.costIndex === null ? hourlyPriceCents(rec.frames, entryS, opts) : null,
    };
  });
  const prices = rows.map((r) => r.hourly).filter((p): p is number => p !== null);
  for (const r of rows) if (r.hourly !== null && prices.length > 0) r.out.costIndex = quintile(r.hourly, prices);
  return rows.map((r) => project(r.out, q.outputFields, 'id'));
}

interface SegmentState {
  out: Record<string, unknown>;
  isOpen: boolean | null;
  probability: number | null;
}

function renderSegment(
  s: SegmentRecord,
  b: BlockRecord,
  entryS: number,
  rc: RenderContext,
  opts: QuoteOptions,
  offsetS: number,
): SegmentState {
  const ratesOpen = isOpenAt(s.frames, entryS, opts);
  const isOpen = s.frames ? ratesOpen : s.baseOpen;
  let calculatedRates = calculateRates(s.frames, entryS, rc.query.durationsMin, opts);
  if (isOpen === false && calculatedRates !== null) calculatedRates = [];
  // probability stays predicted while parking is temporarily forbidden; null only where it never is allowed
  let probability: number | null = null;
  let bucket: number | null = null;
  if (!s.neverOpen && s.spacesTotal > 0) {
    const occ = estimateOccupancy(
      'On-street',
      s.spacesTotal,
      entryS,
      offsetS,
      rc.segmentObservations.get(s.segmentID) ?? [],
    );
    probability = occ?.probability ?? null;
    bucket = occ?.bucket ?? null;
  }
  const out: Record<string, unknown> = {
    segmentID: s.segmentID,
    polyline: encodeLine(s.geometry),
    ...(rc.polyline6 ? { polyline6: encodeLine(s.geometry, 6) } : {}),
    spacesTotal: s.spacesTotal,
    isOpen,
    start: s.startM,
    end: s.endM,
    side: s.side,
    rateCards: s.rateCardUploaded
      ? s.fields.rateCards
      : s.frames
        ? rateCardOf(s.frames, b.currencyIso, rc.query.locale)
        : [],
    paymentID: s.fields.paymentID ?? [],
    amenities: s.fields.amenities ?? [],
    structuredRates: s.fields.structuredRates ?? [],
    calculatedRates,
    probability,
    bucket,
  };
  if (s.fields.note) out.note = s.fields.note;
  return { out, isOpen, probability };
}

/** Renders a page of blocks (in order). Block probability = P(at least one segment has a free space). */
export function renderBlocks(hits: Hit<BlockRecord>[], rc: RenderContext): Record<string, unknown>[] {
  const q = rc.query;
  const permits = q.restrictions ?? new Set<string>();
  return hits.map(({ rec: b, distanceM }) => {
    if (!b.tz) {
      const mid = b.geometry[Math.floor(b.geometry.length / 2)];
      b.tz = zoneAt(mid[0], mid[1]);
    }
    const entryS = entryInstant(q.entry, b.tz, rc.nowS);
    const offsetS = offsetAt(b.tz, entryS);
    const opts: QuoteOptions = { tz: b.tz, isHoliday: rc.isHoliday, permits };
    const segs = b.segments.map((s) => renderSegment(s, b, entryS, rc, opts, offsetS));
    const probs = segs.map((s) => s.probability).filter((p): p is number => p !== null);
    const probability =
      probs.length === 0 ? null : Math.round(100 * (1 - probs.reduce((acc, p) => acc * (1 - p / 100), 1)));
    const f = b.fields;
    const out: Record<string, unknown> = {
      blockID: b.blockID,
      name: f.name ?? '',
      address: f.address ?? '',
      polyline: encodeLine(b.geometry),
      ...(rc.polyline6 ? { polyline6: encodeLine(b.geometry, 6) } : {}),
      distance: roundM(distanceM),
      probability,
      bucket: probability === null ? null : bucketOf(probability),
      currency: f.currency,
      pmtTypes: f.pmtTypes ?? [],
      photoThumbs: f.photoThumbs ?? [],
      operator: f.operator ?? '',
      offset: offsetS,
      geojson: { type: 'LineString', coordinates: b.geometry.map(([lat, lon]) => [lon, lat]) },
      reservations: f.reservations ?? [],
      amenities: f.amenities ?? [],
      segments: segs.map((s) => s.out),
    };
    if (f.note) out.note = f.note;
    return project(out, q.outputFields, 'blockID');
  });
}
