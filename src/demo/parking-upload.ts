/**
 * The operator upload of the demo city (`parking-upload.json`): rich lot data in the `/lots`
 * field names of the parking contract, keyed to the OSM lots, plus reservation products in the
 * `/product/` field names. The format is documented in docs/demo.md.
 */
import type { Prng } from './prng.js';
import type { DemoLot } from './parking-lots.js';
import { CITY_NAME, CITY_POSTCODE, CITY_STATE, CITY_TIME_ZONE } from './layout.js';
import { bearingDeg } from '../geo/index.js';
import {
  type ParkingUpload,
  type UploadAddress,
  type UploadEvCharger,
  type UploadLot,
  type UploadProduct,
  type UploadStructuredRate,
  DOW_EN,
  clock12,
  clock12Lower,
  hrsLines,
  maxOpenMinutes,
  minutesBetween,
  money0,
  quarter,
  round7,
  stableUuid,
} from './upload-format.js';

export type {
  ParkingUpload,
  UploadAddress,
  UploadEvCharger,
  UploadLot,
  UploadProduct,
  UploadStructuredRate,
} from './upload-format.js';

/** Data source key of the demo operator: lot aliases are `demo|<lot key>`. */
export const DEMO_DATA_SOURCE = 'demo';

const AMENITY = {
  covered: { id: 1, name: 'Covered' },
  attendant: { id: 2, name: 'Attendant' },
  cameras: { id: 3, name: 'Security Cameras' },
  ev: { id: 4, name: 'EV Charging' },
  accessible: { id: 5, name: 'Handicap Accessible' },
  restrooms: { id: 6, name: 'Restrooms' },
  shuttle: { id: 7, name: 'Shuttle' },
  height: { id: 9, name: 'Height Restriction' },
  lit: { id: 10, name: 'Lighted' },
} as const;

const PAYMENT_LABEL: Record<string, string> = {
  cash: 'Cash',
  coins: 'Coins',
  credit_cards: 'Credit Card',
  debit_cards: 'Debit Card',
  visa: 'Visa',
  mastercard: 'Mastercard',
  american_express: 'American Express',
  app: 'Mobile App',
};

/** Builds the operator upload (lots and products) for the lots of the demo city. */
export function buildParkingUpload(lots: DemoLot[], rng: Prng): ParkingUpload {
  const byHourly = [...new Set(lots.map((l) => l.rates.weekdayPerHourUsd))].sort((a, b) => a - b);
  const uploadLots = lots.map((lot) => uploadLot(lot, costIndexOf(lot.rates.weekdayPerHourUsd, byHourly), rng));
  const products: UploadProduct[] = [];
  for (const lot of lots) products.push(...productsOf(lot, rng));
  return { lots: uploadLots, products };
}

function uploadLot(lot: DemoLot, costIndex: number, rng: Prng): UploadLot {
  const alias = `${DEMO_DATA_SOURCE}|${lot.key}`;
  const address = (type: UploadAddress['type']): UploadAddress => ({
    street: `${lot.houseNumber} ${lot.street}`,
    city: CITY_NAME,
    state: CITY_STATE,
    postal: CITY_POSTCODE,
    country: 'US',
    type,
  });
  const structured = structuredRates(lot);
  const reviewCount = rng.int(3, 140);
  const reviews = sampleReviews(rng);
  return {
    id: lotIdOf(lot),
    alias,
    osm_type: lot.osmType,
    osm_id: lot.osmId,
    name: lot.name,
    operator: lot.operator,
    lotCategory: lot.category,
    format: lot.parking === 'surface' ? 'Surface' : lot.parking === 'multi-storey' ? 'Structure' : 'Subterranean',
    type: lot.access === 'customers' ? 'Restricted' : 'Non-restricted',
    spacesTotal: lot.capacity,
    handicapSpacesTotal: lot.capacityDisabled,
    url: lot.website,
    hrs: hrsLines(lot.hours),
    tz: CITY_TIME_ZONE,
    costIndex,
    currency: '$',
    currencyIso: 'USD',
    pmtTypes: lot.payments.map((p) => PAYMENT_LABEL[p] ?? p),
    rateCard: structured.map((r) => r.rate_line),
    structured_rates: structured,
    note: noteOf(lot),
    amenities: amenitiesOf(lot),
    ev_chargers: evChargers(lot),
    point: { type: 'Point', coordinates: [lot.lon, lot.lat] },
    peps: lot.entrances.map((e) => ({
      pepPt: [round7(e.lon), round7(e.lat)],
      pepAz: Math.round(bearingDeg(e.lat, e.lon, lot.lat, lot.lon)) % 360,
      pepPrimary: e.primary,
      pepType: e.type,
    })),
    navigationAddress: address('NAVIGATION'),
    buildingAddress: address('LEGAL'),
    phone: lot.phone,
    phones: [
      { type: 'Lot', number: lot.phone },
      { type: 'Central Office', number: '+1 410-555-0100' },
      ...(lot.fee ? [{ type: 'Monthly', number: '+1 410-555-0101' }] : []),
    ],
    paymentIDs: lot.fee ? [{ company: 'CurbPay', id: String(4000 + (lot.osmId % 1000)) }] : [],
    reviewCount,
    reviewScore: Math.round(rng.float(3.4, 4.9) * 10) / 10,
    reviews,
    pois: poisOf(lot),
    photoThumbs: [],
    photos: [],
  };
}

/** The lot's amenities in the contract's ids, ascending. */
function amenitiesOf(lot: DemoLot): UploadLot['amenities'] {
  const amenities: UploadLot['amenities'] = [{ ...AMENITY.accessible }, { ...AMENITY.lit }];
  if (lot.parking !== 'surface') amenities.push({ ...AMENITY.covered }, { ...AMENITY.cameras });
  if (lot.parking === 'multi-storey' || lot.category === 'Hotel') amenities.push({ ...AMENITY.attendant });
  if (lot.capacityCharging > 0) amenities.push({ ...AMENITY.ev });
  if (lot.key === 'southport-ferry-lot' || lot.parkRide) amenities.push({ ...AMENITY.shuttle });
  if (lot.key === 'harborplace-garage') amenities.push({ ...AMENITY.restrooms });
  if (lot.maxHeightM) amenities.push({ ...AMENITY.height, value: lot.maxHeightM, metric: 'm' });
  return amenities.sort((a, b) => a.id - b.id);
}

/** Two sample reviews with random scores and dates. */
function sampleReviews(rng: Prng): UploadLot['reviews'] {
  return [
    {
      author: 'J. M.',
      score: rng.int(3, 5),
      date: `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}`,
      text: 'Easy to find and close to the harbor.',
    },
    {
      author: 'R. T.',
      score: rng.int(2, 5),
      date: `2026-0${rng.int(1, 9)}-2${rng.int(0, 8)}`,
      text: 'Entrance is a little tight, staff were helpful.',
    },
  ];
}

/** Machine-readable rates of a lot, consistent with its opening hours and rate plan. */
function structuredRates(lot: DemoLot): UploadStructuredRate[] {
  const r = lot.rates;
  const holidays = r.holidayFlatUsd > 0 ? -1 : 0;
  const out: UploadStructuredRate[] = [];
  const money = (x: number): string => `$${x.toFixed(2)}`;
  for (const h of lot.hours) {
    const days = h.dowStart === h.dowEnd ? DOW_EN[h.dowStart] : `${DOW_EN[h.dowStart]}-${DOW_EN[h.dowEnd]}`;
    const weekend = h.dowStart >= 6;
    const hourly = weekend ? r.weekendPerHourUsd : r.weekdayPerHourUsd;
    const max = weekend ? r.weekendMaxUsd : r.weekdayMaxUsd;
    if (hourly === 0) {
      out.push({
        dow_start: h.dowStart,
        dow_end: h.dowEnd,
        time_in: h.open,
        time_out: h.close,
        rate: 0,
        increment: 60,
        repeats: false,
        max: 0,
        holidays: 0,
        rate_line: `${days} ${clock12(h.open)}-${clock12(h.close)}: Free${lot.access === 'customers' ? ' for customers, 2 hour limit' : ''}`,
      });
      continue;
    }
    // daytime hourly rate; an evening flat rate takes over at 18:00 where the lot has one
    const evening = r.eveningFlatUsd > 0 && h.close > '18:00';
    // open all night with an evening rate: the evening window runs past midnight to 06:00
    const allNight = h.open === '00:00' && h.close === '24:00';
    const dayStart = evening && allNight ? '06:00' : h.open;
    const dayEnd = evening ? '18:00' : h.close;
    out.push({
      dow_start: h.dowStart,
      dow_end: h.dowEnd,
      time_in: dayStart,
      time_out: dayEnd,
      rate: hourly,
      increment: 60,
      repeats: true,
      max,
      holidays,
      rate_line: `${days} ${clock12(dayStart)}-${clock12(dayEnd)}: ${money(hourly)} per hour, max ${money(max)}`,
    });
    if (evening) {
      const eveningOut = allNight ? '06:00' : h.close;
      out.push({
        dow_start: h.dowStart,
        dow_end: h.dowEnd,
        time_in: '18:00',
        time_out: eveningOut,
        rate: r.eveningFlatUsd,
        increment: allNight ? 720 : minutesBetween('18:00', eveningOut),
        repeats: false,
        max: r.eveningFlatUsd,
        holidays,
        rate_line: `${days} evening, enter after ${clock12('18:00')}: ${money(r.eveningFlatUsd)} flat`,
      });
    }
  }
  if (r.holidayFlatUsd > 0) {
    out.push({
      dow_start: 1,
      dow_end: 7,
      time_in: '00:00',
      time_out: '24:00',
      rate: r.holidayFlatUsd,
      increment: 1440,
      repeats: false,
      max: r.holidayFlatUsd,
      holidays: 1,
      rate_line: `Holidays: ${money(r.holidayFlatUsd)} flat per day`,
    });
  }
  return out;
}

/** Reservation products of a lot (public paid lots only). */
function productsOf(lot: DemoLot, rng: Prng): UploadProduct[] {
  if (!lot.fee || lot.access === 'customers') return [];
  const hourly = lot.rates.weekdayPerHourUsd;
  const daily = lot.rates.weekdayMaxUsd;
  const base = (
    name: string,
    index: number,
  ): Omit<UploadProduct, 'rates' | 'max_duration' | 'start_time' | 'end_time' | 'days_available' | 'capacity'> => ({
    pk_reservation_product: stableUuid(`${DEMO_DATA_SOURCE}|${lot.key}|product|${index}`),
    f_id: lotIdOf(lot),
    lot_alias: `${DEMO_DATA_SOURCE}|${lot.key}`,
    name,
    promo_text: null,
    type: 'PREPAY',
    service_fee: quarter(rng.float(0.75, 2.5)),
    phone_required: true,
    license_required: lot.parking !== 'surface',
    cpf_required: false,
    printed_pass_required: lot.category === 'Hotel',
    currency: '$',
    currencyIso: 'USD',
    processing_engine: 'test',
  });
  const openDays = [1, 2, 3, 4, 5, 6, 7].filter((d) => lot.hours.some((h) => d >= h.dowStart && d <= h.dowEnd));
  const first = lot.hours[0];
  // the booking window of the first opening rule; "12:00am"–"12:00am" = all day
  const startTime = clock12Lower(first.open);
  const endTime = clock12Lower(first.close);
  const products: UploadProduct[] = [];
  // a reserved day rate, a little under the drive-up prices
  products.push({
    ...base(`${lot.name} Reserved Parking`, 0),
    promo_text: `Save up to ${money0(daily - quarter(daily * 0.85))} when you book ahead`,
    rates: [
      { duration: 60, rate: quarter(hourly * 0.9) },
      { duration: 180, rate: quarter(Math.min(hourly * 3, daily) * 0.85) },
      { duration: 720, rate: quarter(daily * 0.85) },
    ],
    max_duration: Math.min(720, maxOpenMinutes(lot.hours)),
    start_time: startTime,
    end_time: endTime,
    days_available: openDays,
    capacity: Math.max(10, Math.round(lot.capacity * 0.15)),
  });
  if (lot.parking !== 'surface' && first.close === '24:00') {
    products.push({
      ...base(`${lot.name} Event Evening`, 1),
      promo_text: 'Guaranteed space for harbor events',
      rates: [
        { duration: 360, rate: quarter(lot.rates.eveningFlatUsd > 0 ? lot.rates.eveningFlatUsd + 2 : daily * 0.6) },
      ],
      max_duration: 360,
      start_time: '5:00pm',
      end_time: '11:59pm',
      days_available: [1, 2, 3, 4, 5, 6, 7],
      capacity: Math.max(10, Math.round(lot.capacity * 0.1)),
    });
  }
  return products;
}

/** Lot id the importer assigns to an OSM lot (region contract): node id as is, way id × 10 + 1. */
export function lotIdOf(lot: Pick<DemoLot, 'osmType' | 'osmId'>): number {
  return lot.osmType === 'node' ? lot.osmId : lot.osmId * 10 + 1;
}

function evChargers(lot: DemoLot): UploadEvCharger[] {
  if (lot.capacityCharging === 0) return [];
  const ports = [];
  for (let k = 0; k < lot.capacityCharging; k++) {
    const fast = k < 2 && lot.parking !== 'surface';
    ports.push(
      fast
        ? { connector_type: 'CCS1', id: `${k + 1}`, voltage_volt: 480, current_amps: 125, level: 3, power_kw: 50 }
        : { connector_type: 'J1772', id: `${k + 1}`, voltage_volt: 240, current_amps: 32, level: 2, power_kw: 7.7 },
    );
  }
  return [
    {
      site_code: `PC-${lot.key
        .split('-')
        .map((w) => w[0].toUpperCase())
        .join('')}-01`,
      names: [{ name: `${lot.name} Charging`, locale: 'en-US' }],
      display_point: {
        coordinates: { latitude: round7(lot.entrances[0].lat), longitude: round7(lot.entrances[0].lon) },
      },
      ports,
      manufacturer: 'AmpWorks',
      network: 'HarborCharge',
      reservable: false,
    },
  ];
}

function poisOf(lot: DemoLot): UploadLot['pois'] {
  switch (lot.key) {
    case 'harborplace-garage':
      return [
        { name: 'Harborplace Pavilions', category: 'Shopping', distance: 140 },
        { name: 'Downtown Ferry Terminal', category: 'Transit', distance: 110 },
      ];
    case 'courthouse-lot':
      return [{ name: 'Port Calvert Courthouse', category: 'Government', distance: 90 }];
    case 'southport-ferry-lot':
      return [{ name: 'Southport Ferry Terminal', category: 'Transit', distance: 95 }];
    case 'center-street-park-ride':
      return [{ name: 'Harbor Expressway (I 900)', category: 'Highway', distance: 120 }];
    default:
      return [];
  }
}

function noteOf(lot: DemoLot): string {
  const parts: string[] = [];
  if (lot.entrances.length > 1) parts.push(`Entrance on ${lot.street}; exit also on the side street.`);
  else parts.push(`Entrance on ${lot.street}.`);
  if (lot.maxHeightM) parts.push(`Clearance ${lot.maxHeightM.toFixed(2)} m.`);
  if (lot.access === 'customers') parts.push('Customers only; vehicles of non-customers are towed.');
  if (lot.parkRide) parts.push('Free parking for transit riders.');
  return parts.join(' ');
}

function costIndexOf(hourly: number, sortedDistinct: number[]): number {
  if (sortedDistinct.length <= 1) return 1;
  const rank = sortedDistinct.indexOf(hourly) / (sortedDistinct.length - 1);
  return 1 + Math.round(rank * 4);
}
