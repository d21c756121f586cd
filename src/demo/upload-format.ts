/**
 * The operator upload's document format (`parking-upload.json`): the `/lots` and `/product/` field
 * names of the parking contract, and the value formats the demo writes into them (opening-hour
 * lines, 12-hour clock times, money, rounded coordinates, stable UUIDs).
 */
import { createHash } from 'node:crypto';
import type { OpeningRule } from './parking-lots.js';

/** One structured rate of a lot (contract `structured_rates` item; amounts in dollars). */
export interface UploadStructuredRate {
  dow_start: number;
  dow_end: number;
  /** "HH:MM" local; start of the clock window the rate applies to */
  time_in: string;
  /** "HH:MM" local; end of the window ("24:00" = midnight; earlier than time_in = next day) */
  time_out: string;
  /** price per increment, dollars; 0 free, -1 no parking */
  rate: number;
  /** minutes */
  increment: number;
  /** true: charged again for every started increment; false: flat once per stay */
  repeats: boolean;
  /** cap per stay inside this window, dollars (0 = no cap) */
  max: number;
  /** 1 = applies on holidays only; -1 = replaced by the holiday rate on holidays; 0 = ignores holidays */
  holidays: number;
  rate_line: string;
}

/** An address in the contract's navigationAddress / buildingAddress shape. */
export interface UploadAddress {
  street: string;
  city: string;
  state: string;
  postal: string;
  country: string;
  type: 'NAVIGATION' | 'LEGAL';
}

/** One lot of the upload (contract `/lots` field names; keyed by alias and OSM reference). */
export interface UploadLot {
  /** the lot id the importer gives the OSM lot (node id; way id × 10 + 1), see `lotIdOf` */
  id: number;
  /** `<data_source_key>|<lot id>` — the operator's own id */
  alias: string;
  /** OSM element the lot was imported from */
  osm_type: 'node' | 'way';
  osm_id: number;
  name: string;
  operator: string;
  lotCategory: string;
  format: 'Surface' | 'Structure' | 'Subterranean';
  type: string;
  spacesTotal: number;
  handicapSpacesTotal: number;
  url: string;
  hrs: string[];
  tz: string;
  costIndex: number;
  currency: string;
  currencyIso: string;
  pmtTypes: string[];
  rateCard: string[];
  structured_rates: UploadStructuredRate[];
  note: string;
  amenities: Array<{ id: number; name: string; value?: number; metric?: string }>;
  ev_chargers: UploadEvCharger[];
  point: { type: 'Point'; coordinates: [number, number] };
  peps: Array<{ pepPt: [number, number]; pepAz: number; pepPrimary: boolean; pepType: 'IN' | 'OUT' | 'IN/OUT' }>;
  navigationAddress: UploadAddress;
  buildingAddress: UploadAddress;
  phone: string;
  phones: Array<{ type: string; number: string }>;
  paymentIDs: Array<{ company: string; id: string }>;
  reviewCount: number;
  reviewScore: number;
  reviews: Array<{ author: string; score: number; date: string; text: string }>;
  pois: Array<{ name: string; category: string; distance: number }>;
  photoThumbs: string[];
  photos: Array<{ thumbnail: string; medium: string; full: string; assetTypes: string[] }>;
}

/** An EV charging site of a lot (contract `ev_chargers` item). */
export interface UploadEvCharger {
  site_code: string;
  names: Array<{ name: string; locale: string }>;
  display_point: { coordinates: { latitude: number; longitude: number } };
  ports: Array<{
    connector_type: string;
    id: string;
    voltage_volt: number;
    current_amps: number;
    level: number;
    power_kw: number;
  }>;
  manufacturer: string;
  network: string;
  reservable: boolean;
}

/** A reservation product of a lot (contract `/product/` field names plus its price table). */
export interface UploadProduct {
  /** UUID, stable across runs and seeds */
  pk_reservation_product: string;
  /** lot id (the upload lot's `id`) */
  f_id: number;
  /** alias of the lot (`demo|<lot key>`) */
  lot_alias: string;
  name: string;
  promo_text: string | null;
  type: 'PREPAY';
  /** price table: a stay of up to `duration` minutes costs `rate` dollars; ascending */
  rates: Array<{ duration: number; rate: number }>;
  /** longest bookable stay, minutes */
  max_duration: number;
  /** earliest entry time of day ("6:00am") */
  start_time: string;
  /** latest exit time of day ("11:59pm") */
  end_time: string;
  /** ISO weekdays (1 Monday … 7 Sunday) on which a stay may start */
  days_available: number[];
  /** spaces sold per entry day */
  capacity: number;
  /** dollars, added to every reservation */
  service_fee: number;
  phone_required: boolean;
  license_required: boolean;
  cpf_required: boolean;
  printed_pass_required: boolean;
  currency: string;
  currencyIso: string;
  processing_engine: string;
}

/** The whole upload file. */
export interface ParkingUpload {
  lots: UploadLot[];
  products: UploadProduct[];
}

/** English day abbreviations by ISO day of the week (1 = Monday). */
export const DOW_EN = ['', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Contract `hrs` lines ("Mon-Fri: 6:00 AM - 10:00 PM", "Sun: Closed"). */
export function hrsLines(hours: OpeningRule[]): string[] {
  if (
    hours.length === 1 &&
    hours[0].dowStart === 1 &&
    hours[0].dowEnd === 7 &&
    hours[0].open === '00:00' &&
    hours[0].close === '24:00'
  ) {
    return ['Mon-Sun: 24 Hours'];
  }
  const lines = hours.map((h) => {
    const days = h.dowStart === h.dowEnd ? DOW_EN[h.dowStart] : `${DOW_EN[h.dowStart]}-${DOW_EN[h.dowEnd]}`;
    return `${days}: ${clock12(h.open)} - ${clock12(h.close)}`;
  });
  const closed: number[] = [];
  for (let d = 1; d <= 7; d++) if (!hours.some((h) => d >= h.dowStart && d <= h.dowEnd)) closed.push(d);
  if (closed.length > 0) {
    const days = closed.length === 1 ? DOW_EN[closed[0]] : `${DOW_EN[closed[0]]}-${DOW_EN[closed[closed.length - 1]]}`;
    lines.push(`${days}: Closed`);
  }
  return lines;
}

/** "18:00" → "6:00 PM"; "24:00" → "12:00 AM". */
export function clock12(hhmm: string): string {
  const [h, m] = hhmm.split(':').map(Number);
  const h24 = h % 24;
  const suffix = h24 < 12 ? 'AM' : 'PM';
  const h12 = h24 % 12 === 0 ? 12 : h24 % 12;
  return `${h12}:${String(m).padStart(2, '0')} ${suffix}`;
}

/** "18:00" → "6:00pm" (the product sample's style). */
export function clock12Lower(hhmm: string): string {
  return clock12(hhmm).replace(' ', '').toLowerCase();
}

/** Minutes from one "HH:MM" to the next (through midnight when `to` is not later). */
export function minutesBetween(from: string, to: string): number {
  const m = (s: string): number => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
  const d = m(to) - m(from);
  return d > 0 ? d : d + 1440;
}

/** Longest opening window of a lot, minutes ("24:00" closes at midnight). */
export function maxOpenMinutes(hours: OpeningRule[]): number {
  const m = (s: string): number => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
  return Math.max(...hours.map((h) => m(h.close) - m(h.open)));
}

/** Rounded to the nearest quarter (dollars). */
export function quarter(x: number): number {
  return Math.round(x * 4) / 4;
}

/** Dollars as "$1.50". */
export function money0(x: number): string {
  return `$${x.toFixed(2)}`;
}

/** Degrees rounded to 7 decimals (the precision of OSM coordinates). */
export function round7(deg: number): number {
  return Math.round(deg * 1e7) / 1e7;
}

/** A UUID (version 4 layout) derived from a string with SHA-1, so it is the same on every run. */
export function stableUuid(name: string): string {
  const h = createHash('sha1').update(name).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
