/**
 * Operator uploads of lots in the contract's field shape: validation (clear errors naming the
 * field), identity (which record an upload updates) and merging (uploaded fields win over
 * OSM-derived ones). Uploads are stored verbatim (JSONB) and merged when the inventory is built.
 */
import { buildFrames, parseRateRules } from '../rates/rate-rule.js';
import { currencySymbol } from './currency.js';
import { ringCentroid } from '../../geo/index.js';
import { hrsToOpeningHours } from './hours.js';
import { decodeLine } from './polyline.js';
import type { LotRecord } from './types.js';
import { bad, checkCoord } from './upload-checks.js';
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

/** The lot fields of `o` with their types checked (`data`), and the keys that are not lot fields (`ignored`). */
function typedFields(o: Record<string, unknown>, field: string): { data: Record<string, unknown>; ignored: string[] } {
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
  return { data, ignored };
}

/** Checks the values of the enumerated fields: costIndex, lotCategory, format, type, structured rates. */
function checkEnumerations(data: Record<string, unknown>, field: string): void {
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
}

/** Checks the geometry fields: the point and the polygon. */
function checkGeometry(data: Record<string, unknown>, field: string): void {
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
}

/** Checks the list fields' entries: amenities, phones, entry points (exactly one primary). */
function checkListEntries(data: Record<string, unknown>, field: string): void {
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
}

/** The lot's identity: its id, its alias `<source>|<id>` and its OSM reference (from osm_id or an `osm|` alias); one at least. */
function lotIdentity(o: Record<string, unknown>, field: string): Pick<LotUpload, 'id' | 'alias' | 'osmRef'> {
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
  return { id, alias, osmRef };
}

/** Validates one uploaded lot (`field` names it in errors, e.g. "lots[3]"). */
export function validateLotUpload(input: unknown, field: string): LotUpload {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw bad(field, 'expected an object');
  const o = input as Record<string, unknown>;
  const { data, ignored } = typedFields(o, field);
  checkEnumerations(data, field);
  checkGeometry(data, field);
  checkListEntries(data, field);
  const { id, alias, osmRef } = lotIdentity(o, field);
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
