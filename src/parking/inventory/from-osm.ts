/**
 * Turns the imported region's OSM lots and blocks into inventory records: lot attributes from tags
 * (category, format, type, capacity, fee/charge, payment, opening hours, address, contact), block
 * curb segments merged per the contract (gaps under 25 m vanish unless the rules change).
 */
import type { Block, CurbSegment, OsmLot } from '../../network/region.js';
import { buildFrames, parseRateRules, type StructuredRateInput } from '../rates/rate-rule.js';
import { currencySymbol } from './currency.js';
import { curbRates, parseCharge } from './curb-rates.js';
import { ringAreaM2, ringCentroid } from '../../geo/index.js';
import { CURB_OFFSET_M, encodeLine, offsetLine, sliceLine } from './polyline.js';
import type { BlockRecord, LotRecord, SegmentRecord } from './types.js';

/** Gap length under which a break in parking is merged away (contract, "Rules for blocks"). */
export const BLOCK_GAP_MERGE_M = 25;
/** Square metres per space when capacity is estimated from a lot's area. */
export const AREA_PER_SPACE_M2 = 30;

/** "n123" / "w123" / "r123" of an OSM lot. */
export function osmRefOf(lot: Pick<OsmLot, 'osmType' | 'osmId'>): string {
  return `${lot.osmType[0]}${lot.osmId}`;
}

const PAYMENT_NAMES: Record<string, string> = {
  cash: 'Cash',
  coins: 'Coins',
  notes: 'Notes',
  credit_cards: 'Credit Card',
  debit_cards: 'Debit Card',
  visa: 'Visa',
  mastercard: 'Mastercard',
  american_express: 'American Express',
  maestro: 'Maestro',
  contactless: 'Contactless',
  app: 'App',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  discover_card: 'Discover',
  parkmobile: 'ParkMobile',
};

function paymentName(tag: string): string {
  const k = tag.replace(/^payment:/, '');
  return PAYMENT_NAMES[k] ?? k.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
}

function lotCategory(t: Record<string, string>): string {
  if (t.park_ride && t.park_ride !== 'no') return 'Park N Ride';
  const hay = `${t.name ?? ''} ${t.operator ?? ''} ${t['parking:for'] ?? ''}`.toLowerCase();
  if (/hospital|medical|clinic/.test(hay)) return 'Hospital';
  if (/university|college|campus/.test(hay)) return 'University';
  if (/airport/.test(hay)) return 'Airport Adjacent';
  if (/hotel|inn\b|marriott|hilton|hyatt/.test(hay)) return 'Hotel';
  if (/stadium|arena|venue|theat|center|centre/.test(hay)) return 'Venue Lot';
  const access = t.access ?? '';
  if (access === '' || access === 'yes' || access === 'public' || access === 'permissive') return 'Public Parking';
  return 'Unknown';
}

function lotFormat(parking: string): string {
  if (parking === 'multi-storey' || parking === 'rooftop') return 'Structure';
  if (parking === 'underground') return 'Subterranean';
  return 'Surface';
}

function lotType(access: string): string {
  if (access === 'private' || access === 'no') return 'Private';
  if (access === 'customers' || access === 'destination' || access === 'delivery' || access === 'permit')
    return access === 'permit' ? 'Permit Only' : 'Restricted';
  return 'Non-restricted';
}

/** Parses the OSM `charge` tag forms "2 USD/hour", "1.50/hour", "10 EUR/day" into structured rates charged around the clock. */
export function chargeToRates(charge: string): StructuredRateInput[] | null {
  const c = parseCharge(charge);
  if (!c) return null;
  return [
    {
      dow_start: 1,
      dow_end: 7,
      time_in: '00:00',
      time_out: '24:00',
      rate: c.rate,
      increment: c.increment,
      repeats: true,
    },
  ];
}

function address(t: Record<string, string>, type: 'NAVIGATION' | 'LEGAL'): Record<string, string> | undefined {
  if (!t['addr:street']) return undefined;
  return {
    street: [t['addr:housenumber'], t['addr:street']].filter(Boolean).join(' '),
    city: t['addr:city'] ?? '',
    state: t['addr:state'] ?? '',
    postal: t['addr:postcode'] ?? '',
    country: t['addr:country'] ?? '',
    type,
  };
}

const OSM_DAYS: Record<string, string> = {
  Mo: 'Mon',
  Tu: 'Tue',
  We: 'Wed',
  Th: 'Thu',
  Fr: 'Fri',
  Sa: 'Sat',
  Su: 'Sun',
};

function clock12(hhmm: string): string {
  const [h, m] = hhmm.split(':').map(Number);
  const h24 = h % 24;
  return `${h24 % 12 === 0 ? 12 : h24 % 12}:${String(m).padStart(2, '0')} ${h24 < 12 ? 'AM' : 'PM'}`;
}

/**
 * Human text of an opening_hours value for `hrs`: "24/7" → "Mon-Sun: 24 Hours"; simple rules
 * "Mo-Fr 08:00-18:00; Su off" → "Mon-Fri: 8:00 AM - 6:00 PM", "Sun: Closed"; anything else verbatim.
 */
export function hoursText(oh: string): string[] {
  if (oh.trim() === '24/7') return ['Mon-Sun: 24 Hours'];
  const rules = oh
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);
  const out: string[] = [];
  for (const r of rules) {
    const m =
      /^(Mo|Tu|We|Th|Fr|Sa|Su)(?:-(Mo|Tu|We|Th|Fr|Sa|Su))?\s+(off|closed|00:00-24:00|(\d{2}:\d{2})-(\d{2}:\d{2}))$/.exec(
        r,
      );
    if (!m) return rules;
    const days = m[2] ? `${OSM_DAYS[m[1]]}-${OSM_DAYS[m[2]]}` : OSM_DAYS[m[1]];
    if (m[3] === 'off' || m[3] === 'closed') out.push(`${days}: Closed`);
    else if (m[3] === '00:00-24:00') out.push(`${days}: 24 Hours`);
    else out.push(`${days}: ${clock12(m[4])} - ${clock12(m[5])}`);
  }
  return out;
}

/** Inventory record of an OSM lot (`currencyIso` from the region's country). */
export function lotFromOsm(lot: OsmLot, currencyIso: string): LotRecord {
  const t = lot.tags;
  const name = lot.name || [t['addr:housenumber'], t['addr:street']].filter(Boolean).join(' ') || 'Parking';
  let spaces = lot.capacity;
  if (spaces === null && lot.outline && lot.outline.length >= 3) {
    const levels = Number(t['parking:levels'] ?? t['building:levels'] ?? 1) || 1;
    spaces = Math.max(
      1,
      Math.round(
        (ringAreaM2(lot.outline) * (lot.parking === 'multi-storey' || lot.parking === 'underground' ? levels : 1)) /
          AREA_PER_SPACE_M2,
      ),
    );
  }
  let rates: StructuredRateInput[] | null = null;
  if (lot.fee === 'no') rates = [{ dow_start: 1, dow_end: 7, time_in: '00:00', time_out: '24:00', rate: 0 }];
  else if (t.charge) rates = chargeToRates(t.charge);
  const [lat, lon] = lot.outline && lot.outline.length >= 3 ? ringCentroid(lot.outline) : [lot.lat, lot.lon];
  const category = lotCategory(t);
  const fields: Record<string, unknown> = {
    name,
    operator: lot.operator,
    lotCategory: category,
    format: lotFormat(lot.parking),
    type: lotType(lot.access),
    spacesTotal: spaces,
    handicapSpacesTotal: lot.capacityDisabled,
    url: t.website ?? t['contact:website'] ?? '',
    hrs: lot.openingHours ? hoursText(lot.openingHours) : [],
    currency: currencySymbol(currencyIso),
    currencyIso,
    pmtTypes: lot.payment.map(paymentName),
    structured_rates: rates ?? [],
    note: t.description ?? '',
    reviewCount: 0,
    reviewScore: null,
    reviews: [],
    reservations: [],
    pois: [],
    paymentIDs: [],
    amenities: [],
    ev_chargers: [],
    point: { type: 'Point', coordinates: [lon, lat] },
    polygon: lot.outline ? encodeLine(lot.outline) : '',
    peps: [],
    photoThumbs: [],
    photos: [],
    phones: [],
  };
  const nav = address(t, 'NAVIGATION');
  if (nav) {
    fields.navigationAddress = nav;
    fields.buildingAddress = { ...nav, type: 'LEGAL' };
  }
  const phone = t.phone ?? t['contact:phone'];
  if (phone) {
    fields.phone = phone;
    fields.phones = [{ type: 'Lot', number: phone }];
  }
  const osmRef = osmRefOf(lot);
  return {
    id: lot.id,
    alias: `osm|${osmRef}`,
    osmRef,
    lat,
    lon,
    tz: '',
    operatorKey: lot.operator.toLowerCase(),
    category,
    spacesTotal: spaces,
    frames: rates ? buildFrames(parseRateRules(rates, 'structured_rates')) : null,
    openingHours: lot.openingHours || null,
    rateCardUploaded: false,
    currencyIso,
    fields,
  };
}

interface CurbRule {
  key: string;
  rates: StructuredRateInput[] | null;
  open: boolean | null;
}

/** Rules of a curb stretch: its structured rates (curb-rates.ts) and a key equal for equal rules. */
function curbRule(c: CurbSegment): CurbRule {
  const rates = curbRates(c);
  if (rates !== null && rates.every((r) => r.rate === -1))
    return { key: 'no', rates: [{ dow_start: 1, dow_end: 7, rate: -1 }], open: false };
  return { key: `${c.kind}|${c.condition}|${c.maxStay}|${JSON.stringify(rates)}`, rates, open: true };
}

/**
 * Merges the curb of one side: drops No Parking pieces shorter than 25 m between two stretches with
 * the same rules, then joins same-rule neighbours separated by less than 25 m.
 */
export function mergeCurb(
  curb: CurbSegment[],
): Array<{ c: CurbSegment; rule: CurbRule; startM: number; endM: number; spaces: number }> {
  const items = [...curb]
    .sort((a, b) => a.startM - b.startM)
    .map((c) => ({ c, rule: curbRule(c), startM: c.startM, endM: c.endM, spaces: c.spaces }));
  const kept = items.filter((it, i) => {
    if (it.rule.key !== 'no' || it.endM - it.startM >= BLOCK_GAP_MERGE_M) return true;
    const prev = items[i - 1],
      next = items[i + 1];
    return !(prev && next && prev.rule.key === next.rule.key && prev.rule.key !== 'no');
  });
  const out: typeof items = [];
  for (const it of kept) {
    const prev = out[out.length - 1];
    if (prev && prev.rule.key === it.rule.key && it.startM - prev.endM < BLOCK_GAP_MERGE_M) {
      prev.endM = Math.max(prev.endM, it.endM);
      prev.spaces += it.spaces;
    } else out.push({ ...it });
  }
  return out;
}

/** Cross streets of a block for its `address` ("Main St from 1st Ave to 2nd Ave"). */
export function blockAddress(block: Block, namesAt: ReadonlyMap<number, readonly string[]>): string {
  const cross = (node: number): string => namesAt.get(node)?.find((n) => n !== block.name) ?? '';
  const a = cross(block.fromNode),
    b = cross(block.toNode);
  if (a && b) return `${block.name} from ${a} to ${b}`;
  return block.name;
}

/**
 * Inventory record of an imported block with merged curb segments; `namesAt` = street names of the
 * intersections by node (the cross streets of its address).
 */
export function blockFromRegion(
  block: Block,
  namesAt: ReadonlyMap<number, readonly string[]>,
  currencyIso: string,
): BlockRecord {
  return blockRecord(block, blockAddress(block, namesAt), currencyIso);
}

/**
 * Inventory record of a block from what the record is made of: its id, name, geometry and curb,
 * and its `address` (`blockAddress`).
 */
export function blockRecord(
  block: Pick<Block, 'id' | 'name' | 'geometry' | 'curb'>,
  address: string,
  currencyIso: string,
): BlockRecord {
  const segments: SegmentRecord[] = [];
  for (const side of ['right', 'left'] as const) {
    const merged = mergeCurb(block.curb.filter((c) => c.side === side));
    merged.forEach((m, i) => {
      const frames = m.rule.rates ? buildFrames(parseRateRules(m.rule.rates, 'structuredRates')) : null;
      const geometry = offsetLine(
        sliceLine(block.geometry, m.startM, m.endM),
        side === 'right' ? CURB_OFFSET_M : -CURB_OFFSET_M,
      );
      segments.push({
        segmentID: `${block.id}-${side === 'left' ? 'L' : 'R'}${i + 1}`,
        side: side === 'left' ? 'LEFT' : 'RIGHT',
        startM: Math.round(m.startM * 10) / 10,
        endM: Math.round(m.endM * 10) / 10,
        spacesTotal: m.rule.open === false ? 0 : m.spaces,
        frames,
        baseOpen: m.rule.open,
        neverOpen: m.rule.open === false || (frames !== null && frames.every((f) => f.noParking)),
        restrictions: [...new Set((frames ?? []).map((f) => f.restriction).filter(Boolean))],
        geometry,
        fields: {
          paymentID: [],
          amenities: [],
          structuredRates: m.rule.rates ?? [],
          ...(m.c.maxStay ? { note: `Max stay ${m.c.maxStay}` } : {}),
        },
        rateCardUploaded: false,
      });
    });
  }
  const lats = block.geometry.map((p) => p[0]),
    lons = block.geometry.map((p) => p[1]);
  return {
    blockID: block.id,
    operatorKey: '',
    geometry: block.geometry,
    bbox: [Math.min(...lats), Math.min(...lons), Math.max(...lats), Math.max(...lons)],
    tz: '',
    currencyIso,
    segments,
    fields: {
      name: block.name,
      address,
      operator: '',
      currency: currencySymbol(currencyIso),
      pmtTypes: [],
      photoThumbs: [],
      reservations: [],
      amenities: [],
    },
  };
}
