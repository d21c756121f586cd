/**
 * Operator uploads of lots and blocks in the contract's field shape: validation (clear errors naming
 * the field), identity (which record an upload updates) and merging (uploaded fields win over
 * OSM-derived ones). Uploads are stored verbatim (JSONB) and merged when the inventory is built.
 */
import { ParkingError } from '../errors.js';
import { buildFrames, parseRateRules } from '../rates/rate-rule.js';
import { currencySymbol } from './currency.js';
import { CURB_OFFSET_M, decodeLine, offsetLine, sliceLine } from './polyline.js';
import { polylineLengthM, ringCentroid } from './geodesic.js';
import { hrsToOpeningHours } from './hours.js';
import type { BlockRecord, LotRecord, SegmentRecord } from './types.js';
import { BLOCK_GAP_MERGE_M } from './from-osm.js';

/** Allowed lotCategory values (contract). */
export const LOT_CATEGORIES = [
  'Unknown',
  'University',
  'Airport Adjacent',
  'Park N Ride',
  'Public Parking',
  'Venue Lot',
  'Hospital',
  'Hotel',
];
/** Allowed format values (contract). */
export const LOT_FORMATS = ['Surface', 'Structure', 'Subterranean'];
/** Allowed type values (contract). */
export const LOT_TYPES = [
  'Semi Truck Only',
  'Non-restricted',
  'Restricted',
  'Private',
  'Reservation Only',
  'Valet Only',
  'Event Only',
  'Permit Only',
  'Monthly Only',
];
const PHONE_TYPES = ['Lot', 'Central Office', 'Monthly', 'Tow', 'Unlock'];
const PEP_TYPES = ['IN', 'OUT', 'IN/OUT'];

const STRING_FIELDS = [
  'name',
  'operator',
  'url',
  'currency',
  'currencyIso',
  'note',
  'phone',
  'polygon',
  'tz',
  'opening_hours',
];
const NUMBER_FIELDS = ['spacesTotal', 'handicapSpacesTotal', 'costIndex', 'reviewCount', 'reviewScore'];
const STRING_ARRAY_FIELDS = ['hrs', 'pmtTypes', 'rateCard', 'photoThumbs'];
const ARRAY_FIELDS = [
  'structured_rates',
  'reviews',
  'reservations',
  'pois',
  'paymentID',
  'paymentIDs',
  'amenities',
  'ev_chargers',
  'phones',
  'peps',
  'photos',
];
const OBJECT_FIELDS = ['point', 'navigationAddress', 'buildingAddress'];
const ENUM_FIELDS = ['lotCategory', 'format', 'type'];
const ID_FIELDS = ['id', 'alias', 'osm_id', 'osm_type'];
/** Every lot field an upload may carry (contract fields plus `alias`, `osm_id`, `osm_type`, `opening_hours`). */
export const LOT_UPLOAD_FIELDS = new Set([
  ...STRING_FIELDS,
  ...NUMBER_FIELDS,
  ...STRING_ARRAY_FIELDS,
  ...ARRAY_FIELDS,
  ...OBJECT_FIELDS,
  ...ENUM_FIELDS,
  ...ID_FIELDS,
]);

/** A validated lot upload. */
export interface LotUpload {
  /** storage key: "id:<id>", "osm:<ref>" or "alias:<alias>" */
  key: string;
  id: number | null;
  alias: string | null;
  /** "w123" / "n123" / "r123", or "?123" when only the number was given */
  osmRef: string | null;
  data: Record<string, unknown>;
  /** keys present in the input that are not lot fields (ignored) */
  ignored: string[];
}

function bad(field: string, msg: string): ParkingError {
  return new ParkingError('PARKING_UPLOAD_INVALID', `${field}: ${msg}`, field);
}

function checkCoord(lon: unknown, lat: unknown, field: string): void {
  if (typeof lat !== 'number' || typeof lon !== 'number' || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180))
    throw bad(field, 'longitude, latitude in degrees expected');
}

/** Normalises an OSM reference given as 123, "w123", "way/123" (+ optional osm_type). */
export function normalizeOsmRef(osmId: unknown, osmType: unknown, field: string): string {
  const typeLetter =
    typeof osmType === 'string' && /^(node|way|relation|n|w|r)$/i.test(osmType) ? osmType[0].toLowerCase() : '?';
  if (typeof osmId === 'number' && Number.isInteger(osmId) && osmId > 0) return `${typeLetter}${osmId}`;
  if (typeof osmId === 'string') {
    const m = /^(?:(node|way|relation)\/|([nwr]))?(\d+)$/i.exec(osmId.trim());
    if (m) return `${(m[1] ?? m[2] ?? (typeLetter === '?' ? '?' : typeLetter))[0].toLowerCase()}${m[3]}`;
  }
  throw bad(field, 'an OSM id (123, "w123" or "way/123") expected');
}

/** Validates one uploaded lot (`field` names it in errors, e.g. "lots[3]"). */
export function validateLotUpload(input: unknown, field: string): LotUpload {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw bad(field, 'expected an object');
  const o = input as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (!LOT_UPLOAD_FIELDS.has(k)) {
      ignored.push(k);
      continue;
    }
    if (v === undefined) continue;
    const f = `${field}.${k}`;
    if (STRING_FIELDS.includes(k) && typeof v !== 'string' && v !== null) throw bad(f, 'string expected');
    if (NUMBER_FIELDS.includes(k) && v !== null && (typeof v !== 'number' || !Number.isFinite(v) || v < 0))
      throw bad(f, 'non-negative number expected');
    if (STRING_ARRAY_FIELDS.includes(k) && (!Array.isArray(v) || v.some((x) => typeof x !== 'string')))
      throw bad(f, 'array of strings expected');
    if (ARRAY_FIELDS.includes(k) && !Array.isArray(v)) throw bad(f, 'array expected');
    if (OBJECT_FIELDS.includes(k) && (typeof v !== 'object' || v === null || Array.isArray(v)))
      throw bad(f, 'object expected');
    data[k] = v;
  }
  if (data.costIndex !== undefined && data.costIndex !== null && ![1, 2, 3, 4, 5].includes(data.costIndex as number))
    throw bad(`${field}.costIndex`, '1..5 expected');
  const cat = data.lotCategory;
  if (
    cat !== undefined &&
    !(typeof cat === 'string'
      ? LOT_CATEGORIES.includes(cat)
      : Array.isArray(cat) && cat.length > 0 && cat.every((c) => LOT_CATEGORIES.includes(c)))
  ) {
    throw bad(`${field}.lotCategory`, `one of ${LOT_CATEGORIES.join(', ')} (or an array of them)`);
  }
  if (data.format !== undefined && !LOT_FORMATS.includes(data.format as string))
    throw bad(`${field}.format`, `one of ${LOT_FORMATS.join(', ')}`);
  if (data.type !== undefined && !LOT_TYPES.includes(data.type as string))
    throw bad(`${field}.type`, `one of ${LOT_TYPES.join(', ')}`);
  if (data.structured_rates !== undefined) parseRateRules(data.structured_rates, `${field}.structured_rates`);
  if (data.point !== undefined) {
    const p = data.point as { type?: unknown; coordinates?: unknown };
    if (p.type !== 'Point' || !Array.isArray(p.coordinates) || p.coordinates.length !== 2)
      throw bad(`${field}.point`, '{ "type": "Point", "coordinates": [lon, lat] } expected');
    checkCoord(p.coordinates[0], p.coordinates[1], `${field}.point.coordinates`);
  }
  if (typeof data.polygon === 'string' && data.polygon !== '') {
    try {
      if (decodeLine(data.polygon).length < 3) throw new Error('short');
    } catch {
      throw bad(`${field}.polygon`, 'encoded polyline of at least 3 points expected');
    }
  }
  (data.amenities as unknown[] | undefined)?.forEach((a, i) => {
    const x = a as { id?: unknown; name?: unknown };
    if (!x || typeof x !== 'object' || typeof x.name !== 'string')
      throw bad(`${field}.amenities[${i}]`, '{ id, name } expected');
  });
  (data.phones as unknown[] | undefined)?.forEach((p, i) => {
    const x = p as { type?: unknown; number?: unknown };
    if (!x || !PHONE_TYPES.includes(x.type as string) || typeof x.number !== 'string')
      throw bad(`${field}.phones[${i}]`, `{ type: ${PHONE_TYPES.join('|')}, number } expected`);
  });
  const peps = data.peps as unknown[] | undefined;
  if (peps && peps.length > 0) {
    peps.forEach((p, i) => {
      const x = p as { pepPt?: unknown; pepType?: unknown };
      if (!x || !Array.isArray(x.pepPt) || x.pepPt.length !== 2)
        throw bad(`${field}.peps[${i}].pepPt`, '[lon, lat] expected');
      checkCoord(x.pepPt[0], x.pepPt[1], `${field}.peps[${i}].pepPt`);
      if (x.pepType !== undefined && !PEP_TYPES.includes(x.pepType as string))
        throw bad(`${field}.peps[${i}].pepType`, 'IN, OUT or IN/OUT');
    });
    if (peps.filter((p) => (p as { pepPrimary?: unknown }).pepPrimary === true).length !== 1)
      throw bad(`${field}.peps`, 'exactly one entry point must have pepPrimary: true');
  }
  const rawId = o.id;
  let id: number | null = null;
  if (rawId !== undefined && rawId !== null) {
    const n = typeof rawId === 'string' ? Number(rawId) : rawId;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0)
      throw bad(`${field}.id`, 'positive integer expected');
    id = n;
  }
  let alias: string | null = null;
  const rawAlias = o.alias as unknown;
  if (rawAlias !== undefined && rawAlias !== null) {
    if (typeof rawAlias === 'string' && /^[^|]+\|[^|]+$/.test(rawAlias)) alias = rawAlias;
    else if (
      typeof rawAlias === 'object' &&
      typeof (rawAlias as { source?: unknown }).source === 'string' &&
      (rawAlias as { id?: unknown }).id !== undefined
    ) {
      alias = `${(rawAlias as { source: string }).source}|${String((rawAlias as { id: unknown }).id)}`;
    } else throw bad(`${field}.alias`, '"<source>|<id>" expected');
  }
  let osmRef: string | null = null;
  if (o.osm_id !== undefined && o.osm_id !== null) osmRef = normalizeOsmRef(o.osm_id, o.osm_type, `${field}.osm_id`);
  else if (alias?.startsWith('osm|')) osmRef = normalizeOsmRef(alias.slice(4), undefined, `${field}.alias`);
  if (id === null && alias === null && osmRef === null)
    throw bad(field, 'one of id, alias or osm_id is required to identify the lot');
  delete data.id;
  delete data.alias;
  delete data.osm_id;
  delete data.osm_type;
  const key = id !== null ? `id:${id}` : osmRef !== null ? `osm:${osmRef}` : `alias:${alias}`;
  return { key, id, alias, osmRef, data, ignored };
}

/** FNV-1a 32-bit hash. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Id of an uploaded lot that names no id: 2^40 + FNV-1a of its alias (clear of OSM-derived ids). */
export function idFromAlias(alias: string): number {
  return 2 ** 40 + fnv1a(alias);
}

/**
 * Applies an upload on top of `base` (an OSM-derived record, or null for a new lot). Returns the
 * merged record; a new lot needs `point` (or `polygon`).
 */
export function mergeLot(base: LotRecord | null, up: LotUpload, defaultCurrencyIso: string, field = 'lot'): LotRecord {
  const d = up.data;
  let lat = base?.lat,
    lon = base?.lon;
  if (d.point) {
    const c = (d.point as { coordinates: [number, number] }).coordinates;
    lon = c[0];
    lat = c[1];
  } else if (typeof d.polygon === 'string' && d.polygon) {
    [lat, lon] = ringCentroid(decodeLine(d.polygon));
  }
  if (lat === undefined || lon === undefined)
    throw bad(field, `new lot ${up.key} needs point or polygon (no OSM lot matched)`);
  const fields: Record<string, unknown> = {
    ...(base?.fields ?? {
      reviews: [],
      reservations: [],
      pois: [],
      paymentIDs: [],
      amenities: [],
      ev_chargers: [],
      peps: [],
      photoThumbs: [],
      photos: [],
      phones: [],
      hrs: [],
      pmtTypes: [],
      structured_rates: [],
    }),
  };
  for (const [k, v] of Object.entries(d)) if (k !== 'opening_hours' && k !== 'tz') fields[k] = v;
  fields.point = { type: 'Point', coordinates: [lon, lat] };
  const currencyIso = (d.currencyIso as string | undefined) ?? base?.currencyIso ?? defaultCurrencyIso;
  fields.currencyIso = currencyIso;
  if (d.currency === undefined) fields.currency = currencySymbol(currencyIso);
  const cat = fields.lotCategory;
  const category = (Array.isArray(cat) ? cat[0] : cat) as string | undefined;
  const frames =
    d.structured_rates !== undefined
      ? buildFrames(parseRateRules(d.structured_rates, `${field}.structured_rates`))
      : (base?.frames ?? null);
  const spaces = d.spacesTotal !== undefined ? (d.spacesTotal as number | null) : (base?.spacesTotal ?? null);
  fields.spacesTotal = spaces;
  const id = up.id ?? base?.id ?? idFromAlias(up.alias ?? up.key);
  return {
    id,
    alias: up.alias ?? base?.alias ?? null,
    osmRef: base?.osmRef ?? (up.osmRef && !up.osmRef.startsWith('?') ? up.osmRef : null),
    lat,
    lon,
    tz: (d.tz as string | undefined) ?? (base && base.lat === lat && base.lon === lon ? base.tz : ''),
    operatorKey: String(fields.operator ?? '').toLowerCase(),
    category: category ?? 'Unknown',
    spacesTotal: spaces,
    frames,
    openingHours:
      d.opening_hours !== undefined
        ? (d.opening_hours as string | null)
        : Array.isArray(d.hrs)
          ? (hrsToOpeningHours(d.hrs as string[]) ?? base?.openingHours ?? null)
          : (base?.openingHours ?? null),
    rateCardUploaded: d.rateCard !== undefined ? true : (base?.rateCardUploaded ?? false),
    currencyIso,
    fields,
  };
}

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
    const lengthM = polylineLengthM(geometry);
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
