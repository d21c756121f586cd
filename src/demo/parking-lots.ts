/**
 * Parking lots of the demo city: `amenity=parking` areas (closed ways) and nodes with the full
 * set of OSM attributes, plus the richer description the operator upload is built from.
 */
import type { Prng } from './prng.js';
import type { OsmDocument, OsmTags } from './osm-document.js';
import { CITY_NAME, CITY_POSTCODE, CITY_STATE, toLatLon } from './layout.js';

/** Opening hours of a lot on a range of ISO weekdays (1 = Monday … 7 = Sunday). */
export interface OpeningRule {
  dowStart: number;
  dowEnd: number;
  /** "HH:MM" local time */
  open: string;
  /** "HH:MM" local time; "24:00" = end of day */
  close: string;
}

/** How a lot charges (all amounts in US dollars). */
export interface RatePlan {
  /** price per hour on weekdays inside the daytime window; 0 = free */
  weekdayPerHourUsd: number;
  /** daily maximum on weekdays */
  weekdayMaxUsd: number;
  /** flat evening rate for entries from 18:00 (0 = no evening rate) */
  eveningFlatUsd: number;
  /** price per hour on weekends */
  weekendPerHourUsd: number;
  /** weekend daily maximum */
  weekendMaxUsd: number;
  /** flat holiday rate (0 = no holiday rate) */
  holidayFlatUsd: number;
}

/** A lot as planned: everything both the OSM element and the operator upload are made from. */
export interface DemoLot {
  /** short slug, unique; the operator's own lot id in the upload alias `demo|<key>` */
  key: string;
  osmType: 'node' | 'way';
  osmId: number;
  name: string;
  operator: string;
  parking: 'surface' | 'multi-storey' | 'underground';
  access: 'yes' | 'customers' | 'permissive';
  fee: boolean;
  parkRide: boolean;
  capacity: number;
  capacityDisabled: number;
  capacityCharging: number;
  hours: OpeningRule[];
  payments: string[];
  rates: RatePlan;
  category: string;
  /** centre, degrees */
  lat: number;
  lon: number;
  /** closed outer ring [lat, lon] for areas (first point repeated last), null for nodes */
  outline: Array<[number, number]> | null;
  /** entry points: position in degrees, whether primary, IN / OUT / IN/OUT */
  entrances: Array<{ lat: number; lon: number; primary: boolean; type: 'IN' | 'OUT' | 'IN/OUT' }>;
  houseNumber: string;
  street: string;
  phone: string;
  website: string;
  /** clearance of a structure, metres (null for surface lots) */
  maxHeightM: number | null;
}

/** Plan of one lot in local metres; random parts (capacity, prices) are drawn when built. */
interface LotPlan {
  key: string;
  name: string;
  operator: string;
  parking: DemoLot['parking'];
  access: DemoLot['access'];
  fee: boolean;
  parkRide?: boolean;
  category: string;
  capacity: [number, number];
  hours: OpeningRule[];
  payments: string[];
  /** hourly weekday price range; 0 = free lot */
  hourlyUsd: [number, number];
  eveningRate?: boolean;
  holiday?: boolean;
  charging?: boolean;
  /** area ring in local metres (open; closed on output), or a single point for node lots */
  ring?: Array<[number, number]>;
  point?: [number, number];
  entrances: Array<[number, number, DemoLot['entrances'][number]['type']]>;
  houseNumber: string;
  street: string;
  maxHeightM?: number;
}

const ALL_DAY: OpeningRule[] = [{ dowStart: 1, dowEnd: 7, open: '00:00', close: '24:00' }];
const CARDS = ['cash', 'credit_cards', 'debit_cards', 'visa', 'mastercard', 'american_express', 'app'];

/** The lots, in output order: seven areas then two nodes (x metres east, y metres north). */
const LOT_PLANS: readonly LotPlan[] = [
  {
    key: 'harborplace-garage',
    name: 'Harborplace Garage',
    operator: 'Calvert Parking Authority',
    parking: 'multi-storey',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [380, 460],
    hours: ALL_DAY,
    payments: CARDS,
    hourlyUsd: [4, 6],
    eveningRate: true,
    holiday: true,
    charging: true,
    ring: [
      [498, 18],
      [582, 18],
      [582, 102],
      [498, 102],
    ],
    entrances: [
      [540, 18, 'IN/OUT'],
      [582, 60, 'OUT'],
    ],
    houseNumber: '500',
    street: 'Water St',
    maxHeightM: 2.1,
  },
  {
    key: 'center-street-lot',
    name: 'Center Street Lot',
    operator: 'Calvert Parking Authority',
    parking: 'surface',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [70, 95],
    hours: [
      { dowStart: 1, dowEnd: 5, open: '06:00', close: '22:00' },
      { dowStart: 6, dowEnd: 6, open: '08:00', close: '20:00' },
    ],
    payments: ['cash', 'credit_cards', 'app'],
    hourlyUsd: [2, 3],
    ring: [
      [618, 378],
      [702, 378],
      [702, 462],
      [660, 462],
      [660, 420],
      [618, 420],
    ],
    entrances: [[640, 378, 'IN/OUT']],
    houseNumber: '620',
    street: 'Center St',
  },
  {
    key: 'grand-avenue-underground',
    name: 'Grand Avenue Underground',
    operator: 'Metro Garages Inc.',
    parking: 'underground',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [260, 320],
    hours: [
      { dowStart: 1, dowEnd: 5, open: '05:30', close: '23:30' },
      { dowStart: 6, dowEnd: 7, open: '07:00', close: '23:00' },
    ],
    payments: CARDS,
    hourlyUsd: [5, 7],
    eveningRate: true,
    charging: true,
    ring: [
      [738, 618],
      [822, 618],
      [822, 702],
      [738, 702],
    ],
    entrances: [
      [738, 650, 'IN'],
      [738, 690, 'OUT'],
    ],
    houseNumber: '610',
    street: 'Lombard St',
    maxHeightM: 1.98,
  },
  {
    key: 'courthouse-lot',
    name: 'Courthouse Lot',
    operator: 'City of Port Calvert',
    parking: 'surface',
    access: 'permissive',
    fee: true,
    category: 'Public Parking',
    capacity: [50, 70],
    hours: [{ dowStart: 1, dowEnd: 5, open: '07:00', close: '19:00' }],
    payments: ['coins', 'credit_cards', 'app'],
    hourlyUsd: [1.5, 2.5],
    ring: [
      [258, 498],
      [342, 498],
      [342, 582],
      [258, 582],
    ],
    entrances: [[300, 498, 'IN/OUT']],
    houseNumber: '260',
    street: 'Court St',
  },
  {
    key: 'ridge-street-customer-lot',
    name: 'Ridge Street Customer Lot',
    operator: 'Ridge Street Market',
    parking: 'surface',
    access: 'customers',
    fee: false,
    category: 'Venue Lot',
    capacity: [30, 45],
    hours: [{ dowStart: 1, dowEnd: 7, open: '07:00', close: '22:00' }],
    payments: [],
    hourlyUsd: [0, 0],
    ring: [
      [858, 858],
      [942, 858],
      [942, 942],
      [858, 942],
    ],
    entrances: [[900, 942, 'IN/OUT']],
    houseNumber: '860',
    street: 'Ridge St',
  },
  {
    key: 'center-street-park-ride',
    name: 'Center Street Park & Ride',
    operator: 'Maryland Transit',
    parking: 'surface',
    access: 'yes',
    fee: false,
    parkRide: true,
    category: 'Park N Ride',
    capacity: [220, 280],
    hours: ALL_DAY,
    payments: [],
    hourlyUsd: [0, 0],
    charging: true,
    ring: [
      [1480, 380],
      [1590, 380],
      [1590, 470],
      [1480, 470],
    ],
    entrances: [[1540, 380, 'IN/OUT']],
    houseNumber: '1500',
    street: 'Center St',
  },
  {
    key: 'southport-ferry-lot',
    name: 'Southport Ferry Lot',
    operator: 'Port Calvert Ferry Co.',
    parking: 'surface',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [100, 130],
    hours: [{ dowStart: 1, dowEnd: 7, open: '05:00', close: '24:00' }],
    payments: ['cash', 'credit_cards', 'app'],
    hourlyUsd: [1, 2],
    ring: [
      [505, -585],
      [640, -585],
      [640, -530],
      [505, -530],
    ],
    entrances: [[560, -585, 'IN/OUT']],
    houseNumber: '510',
    street: 'Shore Rd',
  },
  {
    key: 'market-street-garage',
    name: 'Market Street Garage',
    operator: 'Metro Garages Inc.',
    parking: 'multi-storey',
    access: 'yes',
    fee: true,
    category: 'Public Parking',
    capacity: [300, 380],
    hours: [
      { dowStart: 1, dowEnd: 5, open: '06:00', close: '24:00' },
      { dowStart: 6, dowEnd: 7, open: '08:00', close: '24:00' },
    ],
    payments: CARDS,
    hourlyUsd: [3, 5],
    holiday: true,
    point: [180, 180],
    entrances: [[180, 120, 'IN/OUT']],
    houseNumber: '180',
    street: 'Market St',
    maxHeightM: 2.05,
  },
  {
    key: 'hotel-lombard-garage',
    name: 'Hotel Lombard Garage',
    operator: 'Hotel Lombard',
    parking: 'underground',
    access: 'yes',
    fee: true,
    category: 'Hotel',
    capacity: [150, 190],
    hours: ALL_DAY,
    payments: ['credit_cards', 'visa', 'mastercard', 'american_express'],
    hourlyUsd: [6, 8],
    eveningRate: true,
    point: [420, 660],
    entrances: [[420, 600, 'IN/OUT']],
    houseNumber: '420',
    street: 'Lombard St',
    maxHeightM: 2.0,
  },
];

/** Rounds a dollar amount to a multiple of 25 cents. */
function quarter(x: number): number {
  return Math.round(x * 4) / 4;
}

/** Adds every lot to `doc` (areas as closed ways, the rest as nodes) and returns their descriptions. */
export function buildParkingLots(doc: OsmDocument, rng: Prng): DemoLot[] {
  const lots: DemoLot[] = [];
  for (let idx = 0; idx < LOT_PLANS.length; idx++) {
    const p = LOT_PLANS[idx];
    const capacity = rng.int(p.capacity[0], p.capacity[1]);
    // US ADA standard: 1 accessible space per 25 for small lots, about 2 % above 100 spaces
    const capacityDisabled = Math.max(2, Math.ceil(capacity / (capacity > 100 ? 50 : 25)) + rng.int(0, 2));
    const capacityCharging = p.charging ? rng.int(4, 12) : 0;
    const hourly = p.hourlyUsd[1] > 0 ? quarter(rng.float(p.hourlyUsd[0], p.hourlyUsd[1])) : 0;
    const rates: RatePlan = {
      weekdayPerHourUsd: hourly,
      weekdayMaxUsd: hourly > 0 ? quarter(hourly * rng.int(4, 6)) : 0,
      eveningFlatUsd: p.eveningRate ? quarter(hourly * 2 + rng.int(0, 4)) : 0,
      weekendPerHourUsd: hourly > 0 ? quarter(hourly * 0.75) : 0,
      weekendMaxUsd: hourly > 0 ? quarter(hourly * 3) : 0,
      holidayFlatUsd: p.holiday ? quarter(hourly * 2) : 0,
    };
    const centerXY = p.point ?? centroid(p.ring!);
    const [lat, lon] = toLatLon(centerXY[0], centerXY[1]);
    const phone = `+1 410-555-01${String(10 + idx * 7).padStart(2, '0')}`;
    const website = `https://parking.port-calvert.example/lots/${p.key}`;
    const tags: OsmTags = {
      amenity: 'parking',
      name: p.name,
      operator: p.operator,
      parking: p.parking,
      access: p.access,
      fee: p.fee ? 'yes' : 'no',
      capacity: String(capacity),
      'capacity:disabled': String(capacityDisabled),
      opening_hours: openingHoursTag(p.hours),
      'addr:housenumber': p.houseNumber,
      'addr:street': p.street,
      'addr:city': CITY_NAME,
      'addr:state': CITY_STATE,
      'addr:postcode': CITY_POSTCODE,
      phone,
      website,
    };
    for (const pay of p.payments) tags[`payment:${pay}`] = 'yes';
    if (p.fee) {
      tags.charge = `${rates.weekdayPerHourUsd.toFixed(2)} USD/hour`;
      tags['payment:cash'] ??= 'no';
    }
    if (capacityCharging > 0) tags['capacity:charging'] = String(capacityCharging);
    if (p.parkRide) tags.park_ride = 'yes';
    if (p.maxHeightM) tags.maxheight = p.maxHeightM.toFixed(2);
    if (p.parking !== 'surface') tags.covered = 'yes';
    if (p.access === 'customers') tags.maxstay = '2 hours';
    if (p.parking === 'multi-storey') tags['building:levels'] = String(rng.int(4, 7));
    if (p.parking === 'multi-storey') tags.building = 'parking';
    if (p.parking === 'underground') tags.layer = '-1';

    let osmType: DemoLot['osmType'];
    let osmId: number;
    let outline: DemoLot['outline'] = null;
    if (p.ring) {
      const ringIds = p.ring.map(([x, y]) => doc.addNode(...toLatLon(x, y)));
      osmType = 'way';
      osmId = doc.addWay([...ringIds, ringIds[0]], tags);
      outline = [...ringIds, ringIds[0]].map((id) => {
        const nd = doc.getNode(id);
        return [nd.lat, nd.lon] as [number, number];
      });
    } else {
      osmType = 'node';
      osmId = doc.addNode(lat, lon, tags);
    }
    const entrances = p.entrances.map(([x, y, type], k) => {
      const [eLat, eLon] = toLatLon(x, y);
      return { lat: round7(eLat), lon: round7(eLon), primary: k === 0, type };
    });
    lots.push({
      key: p.key,
      osmType,
      osmId,
      name: p.name,
      operator: p.operator,
      parking: p.parking,
      access: p.access,
      fee: p.fee,
      parkRide: p.parkRide ?? false,
      capacity,
      capacityDisabled,
      capacityCharging,
      hours: p.hours,
      payments: p.payments,
      rates,
      category: p.category,
      lat: round7(lat),
      lon: round7(lon),
      outline,
      entrances,
      houseNumber: p.houseNumber,
      street: p.street,
      phone,
      website,
      maxHeightM: p.maxHeightM ?? null,
    });
  }
  return lots;
}

const DOW_OSM = ['', 'Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'];

/** Renders opening rules as an OSM `opening_hours` value ("24/7" when always open). */
export function openingHoursTag(hours: OpeningRule[]): string {
  if (
    hours.length === 1 &&
    hours[0].dowStart === 1 &&
    hours[0].dowEnd === 7 &&
    hours[0].open === '00:00' &&
    hours[0].close === '24:00'
  ) {
    return '24/7';
  }
  return hours
    .map((h) => {
      const days = h.dowStart === h.dowEnd ? DOW_OSM[h.dowStart] : `${DOW_OSM[h.dowStart]}-${DOW_OSM[h.dowEnd]}`;
      return `${days} ${h.open}-${h.close}`;
    })
    .join('; ');
}

function centroid(ring: Array<[number, number]>): [number, number] {
  // area-weighted centroid of a simple polygon (shoelace formula)
  let a = 0,
    cx = 0,
    cy = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x0, y0] = ring[i];
    const [x1, y1] = ring[(i + 1) % ring.length];
    const f = x0 * y1 - x1 * y0;
    a += f;
    cx += (x0 + x1) * f;
    cy += (y0 + y1) * f;
  }
  return [cx / (3 * a), cy / (3 * a)];
}

function round7(deg: number): number {
  return Math.round(deg * 1e7) / 1e7;
}
