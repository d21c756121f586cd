/**
 * In-memory inventory records: one per lot and per block, built from the imported region and the
 * operator uploads (uploaded fields win). Static output fields are kept ready to copy; the fields that
 * depend on the request (distance, isOpen, calculatedRates, occupancy, offset) are computed per query.
 */
import type { RateFrame } from '../rates/rate-rule.js';

/** A lot of the inventory. */
export interface LotRecord {
  /** unique lot id (OSM-derived id, uploaded id, or 2^40 + hash of the alias) */
  id: number;
  /** "<source>|<id>" operator alias, or "osm|w123" for OSM lots; null when none */
  alias: string | null;
  /** OSM reference "n123" / "w123" / "r123" when the lot comes from (or merges with) OSM */
  osmRef: string | null;
  lat: number;
  lon: number;
  /** IANA zone; '' until first needed (filled from coordinates lazily) */
  tz: string;
  /** lower-cased operator for the operator pre-filter */
  operatorKey: string;
  /** first lotCategory, for the occupancy profile */
  category: string;
  spacesTotal: number | null;
  /** parsed structured rates; null when rates are unknown */
  frames: RateFrame[] | null;
  /** opening_hours (OSM syntax) driving isOpen; null when unknown */
  openingHours: string | null;
  /** true when the upload supplied its own rateCard text */
  rateCardUploaded: boolean;
  currencyIso: string;
  /** contract fields copied as they are into the output (name, operator, point, peps, …) */
  fields: Record<string, unknown>;
}

/** A stretch of curb with continuous parking rules. */
export interface SegmentRecord {
  segmentID: string;
  side: 'LEFT' | 'RIGHT';
  /** metres along the curb from the block start */
  startM: number;
  endM: number;
  spacesTotal: number;
  /** null when the rules are unknown */
  frames: RateFrame[] | null;
  /** isOpen when frames are unknown (from the OSM lane kind); null = unknown */
  baseOpen: boolean | null;
  /** every frame is No Parking (or no spaces at all): probability null */
  neverOpen: boolean;
  /** restriction codes used by the segment's rules */
  restrictions: string[];
  /** [lat, lon] geometry of the segment */
  geometry: Array<[number, number]>;
  /** contract fields copied into the output (rateCards, paymentID, amenities, structuredRates…) */
  fields: Record<string, unknown>;
  rateCardUploaded: boolean;
}

/** A block of the inventory: a street between two intersections. */
export interface BlockRecord {
  blockID: number;
  /** lower-cased operator for the operator pre-filter */
  operatorKey: string;
  /** [lat, lon] from block start */
  geometry: Array<[number, number]>;
  /** bounding box [minLat, minLon, maxLat, maxLon] */
  bbox: [number, number, number, number];
  tz: string;
  currencyIso: string;
  segments: SegmentRecord[];
  /** contract fields copied into the output (name, address, operator, currency, pmtTypes, …) */
  fields: Record<string, unknown>;
}
