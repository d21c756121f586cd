/**
 * Operator uploads of blocks and their curb segments in the contract's field shape: validation,
 * the gap rule between uploaded segments, and merging over the OSM-derived block.
 */
import { buildFrames, parseRateRules } from '../rates/rate-rule.js';
import { currencySymbol } from './currency.js';
import { BLOCK_GAP_MERGE_M } from './from-osm.js';
import { geodesicDistanceM, polylineLengthM } from '../../geo/index.js';
import { CURB_OFFSET_M, decodeLine, offsetLine, sliceLine } from './polyline.js';
import type { BlockRecord, SegmentRecord } from './types.js';
import { bad, checkCoord } from './upload-checks.js';

/** A validated block upload. */
export interface BlockUpload {
  /** storage key "block:<blockID>" */
  key: string;
  blockID: number;
  data: Record<string, unknown>;
  ignored: string[];
}

const BLOCK_FIELDS = new Set([
  'blockID',
  'name',
  'address',
  'operator',
  'currency',
  'currencyIso',
  'pmtTypes',
  'photoThumbs',
  'amenities',
  'reservations',
  'polyline',
  'geojson',
  'segments',
  'note',
]);
const SEGMENT_FIELDS = new Set([
  'segmentID',
  'side',
  'start',
  'end',
  'spacesTotal',
  'rateCards',
  'paymentID',
  'paymentIDs',
  'amenities',
  'structuredRates',
  'isOpen',
  'note',
]);

/** Validates one uploaded block (segments replace the OSM-derived ones wholesale when given). */
export function validateBlockUpload(input: unknown, field: string): BlockUpload {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw bad(field, 'expected an object');
  const o = input as Record<string, unknown>;
  const id = typeof o.blockID === 'string' ? Number(o.blockID) : o.blockID;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0)
    throw bad(`${field}.blockID`, 'positive integer expected');
  const data: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (!BLOCK_FIELDS.has(k)) {
      ignored.push(k);
      continue;
    }
    if (k !== 'blockID') data[k] = v;
  }
  for (const k of ['name', 'address', 'operator', 'currency', 'currencyIso', 'polyline', 'note'])
    if (data[k] !== undefined && typeof data[k] !== 'string') throw bad(`${field}.${k}`, 'string expected');
  for (const k of ['pmtTypes', 'photoThumbs', 'amenities', 'reservations'])
    if (data[k] !== undefined && !Array.isArray(data[k])) throw bad(`${field}.${k}`, 'array expected');
  if (typeof data.polyline === 'string') {
    try {
      if (decodeLine(data.polyline).length < 2) throw new Error('short');
    } catch {
      throw bad(`${field}.polyline`, 'encoded polyline of at least 2 points expected');
    }
  }
  if (data.geojson !== undefined) {
    const g = data.geojson as { type?: unknown; coordinates?: unknown };
    if (!g || g.type !== 'LineString' || !Array.isArray(g.coordinates) || g.coordinates.length < 2)
      throw bad(`${field}.geojson`, 'a LineString of [lon, lat] pairs expected');
    g.coordinates.forEach((c, i) => {
      if (!Array.isArray(c)) throw bad(`${field}.geojson.coordinates[${i}]`, '[lon, lat] expected');
      checkCoord(c[0], c[1], `${field}.geojson.coordinates[${i}]`);
    });
  }
  if (data.segments !== undefined) {
    if (!Array.isArray(data.segments)) throw bad(`${field}.segments`, 'array expected');
    data.segments.forEach((s, i) => {
      const f = `${field}.segments[${i}]`;
      if (!s || typeof s !== 'object') throw bad(f, 'object expected');
      const x = s as Record<string, unknown>;
      for (const k of Object.keys(x)) if (!SEGMENT_FIELDS.has(k)) ignored.push(`segments[${i}].${k}`);
      if (x.side !== 'LEFT' && x.side !== 'RIGHT') throw bad(`${f}.side`, 'LEFT or RIGHT');
      if (typeof x.start !== 'number' || typeof x.end !== 'number' || x.start < 0 || x.end <= x.start)
        throw bad(`${f}.start`, 'start < end, metres along the block');
      if (x.spacesTotal !== undefined && (typeof x.spacesTotal !== 'number' || x.spacesTotal < 0))
        throw bad(`${f}.spacesTotal`, 'non-negative number expected');
      if (x.rateCards !== undefined && (!Array.isArray(x.rateCards) || x.rateCards.some((c) => typeof c !== 'string')))
        throw bad(`${f}.rateCards`, 'array of strings expected');
      if (x.structuredRates !== undefined) parseRateRules(x.structuredRates, `${f}.structuredRates`);
    });
  }
  return { key: `block:${id}`, blockID: id, data, ignored };
}

/** True for an uploaded segment where parking is never allowed (isOpen false, or only No Parking rates). */
function isNoParking(s: Record<string, unknown>): boolean {
  if (s.isOpen === false) return true;
  const rates = s.structuredRates;
  return Array.isArray(rates) && rates.length > 0 && rates.every((r) => (r as { rate?: unknown }).rate === -1);
}

/** Key equal for uploaded segments with the same parking rules and the same per-segment fields. */
function segmentRulesKey(s: Record<string, unknown>): string {
  return JSON.stringify([
    isNoParking(s),
    s.structuredRates ?? null,
    s.rateCards ?? null,
    s.isOpen ?? null,
    s.paymentID ?? s.paymentIDs ?? null,
    s.amenities ?? null,
    s.note ?? null,
  ]);
}

/**
 * The contract's block rule on uploaded segments, as for imported curbs (`mergeCurb`): per side, a
 * No Parking segment shorter than 25 m between two segments with the same rules is not returned,
 * and same-rule neighbours less than 25 m apart are joined (the first's id, the spaces of both).
 * Returns the segments kept with the index each had in the upload, by side then start.
 */
export function applyGapRule(
  segments: Array<Record<string, unknown>>,
): Array<{ s: Record<string, unknown>; i: number }> {
  const out: Array<{ s: Record<string, unknown>; i: number }> = [];
  for (const side of ['RIGHT', 'LEFT']) {
    const items = segments
      .map((s, i) => ({ s, i, key: segmentRulesKey(s) }))
      .filter((it) => it.s.side === side)
      .sort((a, b) => (a.s.start as number) - (b.s.start as number));
    const length = (s: Record<string, unknown>) => (s.end as number) - (s.start as number);
    const spaces = (s: Record<string, unknown>) =>
      (s.spacesTotal as number | undefined) ?? Math.max(0, Math.floor(length(s) / 6));
    const kept = items.filter((it, k) => {
      if (!isNoParking(it.s) || length(it.s) >= BLOCK_GAP_MERGE_M) return true;
      const prev = items[k - 1],
        next = items[k + 1];
      return !(prev && next && prev.key === next.key && !isNoParking(prev.s));
    });
    const merged: typeof items = [];
    for (const it of kept) {
      const prev = merged[merged.length - 1];
      if (prev && prev.key === it.key && (it.s.start as number) - (prev.s.end as number) < BLOCK_GAP_MERGE_M) {
        prev.s = {
          ...prev.s,
          end: Math.max(prev.s.end as number, it.s.end as number),
          spacesTotal: isNoParking(prev.s) ? 0 : spaces(prev.s) + spaces(it.s),
        };
      } else merged.push({ ...it });
    }
    for (const m of merged) out.push({ s: m.s, i: m.i });
  }
  return out;
}

/** Applies a block upload on top of an imported block (or creates one; a new block needs geometry). */
export function mergeBlock(
  base: BlockRecord | null,
  up: BlockUpload,
  defaultCurrencyIso: string,
  field = 'block',
): BlockRecord {
  const d = up.data;
  let geometry = base?.geometry;
  if (typeof d.polyline === 'string') geometry = decodeLine(d.polyline);
  else if (d.geojson)
    geometry = (d.geojson as { coordinates: Array<[number, number]> }).coordinates.map(
      ([lon, lat]) => [lat, lon] as [number, number],
    );
  if (!geometry) throw bad(field, `new block ${up.blockID} needs polyline or geojson (no imported block matched)`);
  const currencyIso = (d.currencyIso as string | undefined) ?? base?.currencyIso ?? defaultCurrencyIso;
  const fields: Record<string, unknown> = {
    ...(base?.fields ?? {
      name: '',
      address: '',
      operator: '',
      pmtTypes: [],
      photoThumbs: [],
      reservations: [],
      amenities: [],
    }),
  };
  for (const [k, v] of Object.entries(d))
    if (k !== 'segments' && k !== 'polyline' && k !== 'geojson' && k !== 'currencyIso') fields[k] = v;
  if (d.currency === undefined) fields.currency = currencySymbol(currencyIso);
  let segments = base?.segments ?? [];
  if (Array.isArray(d.segments)) {
    const lengthM = polylineLengthM(geometry, geodesicDistanceM);
    segments = applyGapRule(d.segments as Array<Record<string, unknown>>).map(({ s, i }) => {
      const frames =
        s.structuredRates !== undefined
          ? buildFrames(parseRateRules(s.structuredRates, `${field}.segments[${i}].structuredRates`))
          : null;
      const startM = s.start as number,
        endM = Math.min(s.end as number, lengthM + 1);
      const seg: SegmentRecord = {
        segmentID:
          typeof s.segmentID === 'string' ? s.segmentID : `${up.blockID}-${s.side === 'LEFT' ? 'L' : 'R'}${i + 1}`,
        side: s.side as 'LEFT' | 'RIGHT',
        startM,
        endM,
        spacesTotal: (s.spacesTotal as number | undefined) ?? Math.max(0, Math.floor((endM - startM) / 6)),
        frames,
        baseOpen: typeof s.isOpen === 'boolean' ? s.isOpen : frames ? null : true,
        neverOpen: s.isOpen === false || (frames !== null && frames.length > 0 && frames.every((f) => f.noParking)),
        restrictions: [...new Set((frames ?? []).map((f) => f.restriction).filter(Boolean))],
        geometry: offsetLine(sliceLine(geometry!, startM, endM), s.side === 'RIGHT' ? CURB_OFFSET_M : -CURB_OFFSET_M),
        fields: {
          paymentID: s.paymentID ?? s.paymentIDs ?? [],
          amenities: s.amenities ?? [],
          structuredRates: s.structuredRates ?? [],
          ...(s.rateCards ? { rateCards: s.rateCards } : {}),
          ...(s.note ? { note: s.note } : {}),
        },
        rateCardUploaded: Array.isArray(s.rateCards),
      };
      return seg;
    });
  }
  const lats = geometry.map((p) => p[0]),
    lons = geometry.map((p) => p[1]);
  return {
    blockID: up.blockID,
    operatorKey: String(fields.operator ?? '').toLowerCase(),
    geometry,
    bbox: [Math.min(...lats), Math.min(...lons), Math.max(...lats), Math.max(...lons)],
    tz: base && base.geometry === geometry ? base.tz : '',
    currencyIso,
    segments,
    fields,
  };
}
