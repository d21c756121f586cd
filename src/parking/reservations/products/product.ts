/**
 * The reservation product of a lot (what a driver can prepay) and how an admin upload becomes one:
 * validation of the input shape, lot resolution and deterministic ids.
 */
import { createHash } from 'node:crypto';
import tzLookup from '@photostructure/tz-lookup';
import { ReservationsError, invalidParam, missingParam } from '../errors.js';
import { formatClock, isValidZone, parseClockMin } from './clock.js';

/** One row of a product's rate table: a stay of up to `durationMin` minutes costs `priceCents`. */
export interface RateTier {
  durationMin: number;
  priceCents: number;
}

/** A product as stored (`pk_product`). Money in cents, times in lot-local minutes after midnight. */
export interface Product {
  id: string;
  lotId: number;
  lotUuid: string;
  lotAlias: string | null;
  lotName: string;
  lotAddress: string;
  lotLat: number | null;
  lotLon: number | null;
  tz: string;
  name: string;
  promoText: string | null;
  type: string;
  currency: string;
  currencyIso: string;
  /** sorted by duration ascending */
  rateTable: RateTier[];
  maxDurationMin: number;
  startMin: number;
  endMin: number;
  /** ISO weekdays (1 Monday … 7 Sunday) on which a window starts */
  daysOfWeek: number[];
  capacity: number;
  serviceFeeCents: number;
  phoneRequired: boolean;
  licenseRequired: boolean;
  cpfRequired: boolean;
  printedPassRequired: boolean;
  processingEngine: string;
  active: boolean;
}

/** A lot as the inventory upload file carries it (contract Lot shape; only these fields are read). */
export interface LotRef {
  id: number;
  alias?: string;
  pk_lot?: string;
  name?: string;
  tz?: string;
  currency?: string;
  currencyIso?: string;
  point?: { coordinates: [number, number] };
  navigationAddress?: { street?: string; city?: string; state?: string; postal?: string };
  address?: string;
}

/** Weekday names accepted in `days_available` inputs. */
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** Version-4-shaped UUID derived from a stable string (same input → same id on every import). */
export function stableUuid(seed: string): string {
  const h = createHash('md5').update(seed).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The `pk_lot` UUID of a lot id when the upload gives none: stable across imports. */
export function lotUuidOf(lotId: number): string {
  return stableUuid(`streetwise-lot|${lotId}`);
}

/** Converts a money amount in currency units (8, 8.5, "8.50") to integer cents; throws on bad input. */
export function toCents(value: unknown, parameter: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
    throw invalidParam(parameter, 'must be a non-negative amount');
  return Math.round(n * 100);
}

/** Address line of a contract lot: its navigation address or `address`. */
function lotAddressOf(lot: LotRef | undefined): string {
  if (!lot) return '';
  if (lot.address) return lot.address;
  const a = lot.navigationAddress;
  if (!a) return '';
  return [a.street, a.city, [a.state, a.postal].filter(Boolean).join(' ')].filter((s) => s && s.length > 0).join(', ');
}

function bool(v: unknown, parameter: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '1' || v === 1) return true;
  if (v === 'false' || v === '0' || v === 0) return false;
  throw invalidParam(parameter, 'must be a boolean');
}

function parseDays(v: unknown, parameter: string): number[] {
  if (v === undefined || v === null) return [1, 2, 3, 4, 5, 6, 7];
  const items = Array.isArray(v) ? v : String(v).split(/[,|]/);
  const out = new Set<number>();
  for (const item of items) {
    const s = String(item).trim().toLowerCase();
    const n = /^\d$/.test(s) ? Number(s) : WEEKDAYS.indexOf(s.slice(0, 3)) + 1;
    if (!(n >= 1 && n <= 7)) throw invalidParam(parameter, `"${item}" is not an ISO weekday (1–7 or Mon–Sun)`);
    out.add(n);
  }
  if (out.size === 0) throw invalidParam(parameter, 'needs at least one weekday');
  return [...out].sort((a, b) => a - b);
}

function parseRates(input: Record<string, unknown>, parameter: string): RateTier[] {
  const rates = input.rates;
  if (!Array.isArray(rates) || rates.length === 0)
    throw invalidParam(`${parameter}.rates`, 'must be a non-empty array');
  const durations = input.durations;
  const tiers: RateTier[] = rates.map((r, i) => {
    if (typeof r === 'object' && r !== null) {
      const o = r as Record<string, unknown>;
      const d = Number(o.duration ?? o.durationMin);
      const priceCents =
        o.priceCents !== undefined ? Number(o.priceCents) : toCents(o.rate, `${parameter}.rates[${i}].rate`);
      if (!Number.isInteger(d) || d <= 0)
        throw invalidParam(`${parameter}.rates[${i}].duration`, 'must be a positive integer (minutes)');
      if (!Number.isInteger(priceCents) || priceCents < 0)
        throw invalidParam(`${parameter}.rates[${i}].priceCents`, 'must be a non-negative integer');
      return { durationMin: d, priceCents };
    }
    if (!Array.isArray(durations) || durations.length !== rates.length) {
      throw invalidParam(`${parameter}.durations`, 'numeric rates need a durations array of the same length (minutes)');
    }
    const d = Number(durations[i]);
    if (!Number.isInteger(d) || d <= 0)
      throw invalidParam(`${parameter}.durations[${i}]`, 'must be a positive integer (minutes)');
    return { durationMin: d, priceCents: toCents(r, `${parameter}.rates[${i}]`) };
  });
  tiers.sort((a, b) => a.durationMin - b.durationMin);
  for (let i = 1; i < tiers.length; i++) {
    if (tiers[i].durationMin === tiers[i - 1].durationMin)
      throw invalidParam(`${parameter}.rates`, `duplicate duration ${tiers[i].durationMin}`);
  }
  return tiers;
}

/** The product's lot: by `f_id` / `id_lot` (the lot may be outside the upload), `lot_alias` or `pk_lot`. */
function productLot(input: Record<string, unknown>, lots: LotRef[], p: string): { lot?: LotRef; lotId: number } {
  if (input.f_id !== undefined || input.id_lot !== undefined) {
    const lotId = Number(input.f_id ?? input.id_lot);
    if (!Number.isSafeInteger(lotId)) throw invalidParam(`${p}.f_id`, 'must be an integer lot id');
    return { lot: lots.find((l) => l.id === lotId), lotId };
  }
  if (typeof input.lot_alias === 'string') {
    const lot = lots.find((l) => l.alias === input.lot_alias);
    if (!lot)
      throw new ReservationsError(
        'PARKING_LOT_NOT_FOUND',
        `${p}.lot_alias: no lot with alias "${input.lot_alias}" in the upload`,
        { parameter: `${p}.lot_alias` },
      );
    return { lot, lotId: lot.id };
  }
  if (typeof input.pk_lot === 'string') {
    const lot = lots.find((l) => l.pk_lot === input.pk_lot);
    if (!lot)
      throw new ReservationsError(
        'PARKING_LOT_NOT_FOUND',
        `${p}.pk_lot: no lot with pk_lot "${input.pk_lot}" in the upload`,
        { parameter: `${p}.pk_lot` },
      );
    return { lot, lotId: lot.id };
  }
  throw missingParam(`${p}.f_id`);
}

/** The longest reservation (default: the longest rate tier) and the daily window, minutes. */
function productWindow(
  input: Record<string, unknown>,
  p: string,
  rateTable: RateTier[],
): { maxDurationMin: number; startMin: number; endMin: number } {
  const maxDurationMin =
    input.max_duration === undefined ? rateTable[rateTable.length - 1].durationMin : Number(input.max_duration);
  if (!Number.isInteger(maxDurationMin) || maxDurationMin <= 0)
    throw invalidParam(`${p}.max_duration`, 'must be a positive integer (minutes)');
  const startMin = input.start_time === undefined ? 0 : parseClockMin(String(input.start_time));
  if (startMin === undefined) throw invalidParam(`${p}.start_time`, 'must be a clock time like 6:00am or 18:30');
  const endMin = input.end_time === undefined ? startMin : parseClockMin(String(input.end_time));
  if (endMin === undefined) throw invalidParam(`${p}.end_time`, 'must be a clock time like 11:00pm or 23:00');
  return { maxDurationMin, startMin, endMin };
}

/** Where the product is: its coordinates (given, or the lot's) and time zone (given, the lot's, or looked up). */
function productPlace(
  input: Record<string, unknown>,
  lot: LotRef | undefined,
  p: string,
): { lat: number | null; lon: number | null; tz: string } {
  const coords = lot?.point?.coordinates;
  const lat = input.lat !== undefined ? Number(input.lat) : coords ? coords[1] : null;
  const lon = input.lon !== undefined ? Number(input.lon) : coords ? coords[0] : null;
  if ((lat !== null && !(Math.abs(lat) <= 90)) || (lon !== null && !(Math.abs(lon) <= 180)))
    throw invalidParam(`${p}.lat`, 'coordinates out of range');
  const tz =
    typeof input.tz === 'string'
      ? input.tz
      : (lot?.tz ?? (lat !== null && lon !== null ? tzLookup(lat, lon) : undefined));
  if (!tz || !isValidZone(tz))
    throw invalidParam(`${p}.tz`, 'a valid IANA time zone is required when the lot has no coordinates');
  return { lat, lon, tz };
}

/**
 * Validates one uploaded product (see `docs/reservations.md` for the input shape) and resolves its
 * lot from `lots` (the same upload file) by `f_id` / `lot_alias` / `pk_lot`.
 * Throws PARKING_PARAM_INVALID naming the field, or PARKING_LOT_NOT_FOUND.
 * @example productFromInput({ f_id: 7, name: 'Daily', rates: [{ duration: 60, rate: 8 }], capacity: 10 }, [lot], 0)
 */
export function productFromInput(raw: unknown, lots: LotRef[], index: number): Product {
  const p = `products[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidParam(p, 'must be an object');
  const input = raw as Record<string, unknown>;
  const { lot, lotId } = productLot(input, lots, p);
  const name = input.name;
  if (typeof name !== 'string' || name.trim() === '') throw invalidParam(`${p}.name`, 'must be a non-empty string');
  const rateTable = parseRates(input, p);
  const { maxDurationMin, startMin, endMin } = productWindow(input, p, rateTable);
  const capacity = Number(input.capacity);
  if (!Number.isInteger(capacity) || capacity < 0)
    throw invalidParam(`${p}.capacity`, 'must be a non-negative integer (spaces)');
  const { lat, lon, tz } = productPlace(input, lot, p);
  const type = input.type === undefined ? 'PREPAY' : String(input.type);
  if (!/^[A-Z_]{2,20}$/.test(type))
    throw invalidParam(`${p}.type`, 'must be an upper-case product type such as PREPAY');
  return {
    id:
      typeof input.pk_reservation_product === 'string'
        ? input.pk_reservation_product
        : stableUuid(`streetwise-product|${lotId}|${name}`),
    lotId,
    lotUuid: typeof input.pk_lot === 'string' ? input.pk_lot : (lot?.pk_lot ?? lotUuidOf(lotId)),
    lotAlias: typeof input.lot_alias === 'string' ? input.lot_alias : (lot?.alias ?? null),
    lotName: typeof input.lot_name === 'string' ? input.lot_name : (lot?.name ?? ''),
    lotAddress: typeof input.lot_address === 'string' ? input.lot_address : lotAddressOf(lot),
    lotLat: lat,
    lotLon: lon,
    tz,
    name,
    promoText: input.promo_text === undefined || input.promo_text === null ? null : String(input.promo_text),
    type,
    currency: typeof input.currency === 'string' ? input.currency : (lot?.currency ?? '$'),
    currencyIso: typeof input.currencyIso === 'string' ? input.currencyIso : (lot?.currencyIso ?? 'USD'),
    rateTable,
    maxDurationMin,
    startMin,
    endMin,
    daysOfWeek: parseDays(input.days_available ?? input.days_of_week, `${p}.days_available`),
    capacity,
    serviceFeeCents: input.service_fee === undefined ? 0 : toCents(input.service_fee, `${p}.service_fee`),
    phoneRequired: bool(input.phone_required, `${p}.phone_required`),
    licenseRequired: bool(input.license_required, `${p}.license_required`),
    cpfRequired: bool(input.cpf_required, `${p}.cpf_required`),
    printedPassRequired: bool(input.printed_pass_required, `${p}.printed_pass_required`),
    processingEngine: input.processing_engine === undefined ? 'test' : String(input.processing_engine),
    active: input.active === undefined ? true : bool(input.active, `${p}.active`),
  };
}

/** Length of a product's daily window in minutes (start == end means 24 h). */
export function windowLengthMin(product: Product): number {
  const len = (product.endMin - product.startMin + 1440) % 1440;
  return len === 0 ? 1440 : len;
}

/** Clock texts of a product's window: `{ start_time: '6:00am', end_time: '11:00pm' }`. */
export function productClock(product: Product): { start_time: string; end_time: string } {
  return { start_time: formatClock(product.startMin), end_time: formatClock(product.endMin) };
}
