/**
 * Parking lots of the demo city: `amenity=parking` areas (closed ways) and nodes with the full
 * set of OSM attributes, plus the richer description the operator upload is built from.
 */
import type { Prng } from './prng.js';
import type { OsmDocument, OsmTags } from './osm-document.js';
import { CITY_NAME, CITY_POSTCODE, CITY_STATE, toLatLon } from './layout.js';
import { LOT_PLANS, type LotPlan } from './lot-plans.js';
import { quarter, round7 } from './upload-format.js';

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
/** Adds every lot to `doc` (areas as closed ways, the rest as nodes) and returns their descriptions. */
export function buildParkingLots(doc: OsmDocument, rng: Prng): DemoLot[] {
  const lots: DemoLot[] = [];
  for (let idx = 0; idx < LOT_PLANS.length; idx++) {
    const p = LOT_PLANS[idx];
    const drawn = drawLot(p, rng);
    const centerXY = p.point ?? centroid(p.ring!);
    const [lat, lon] = toLatLon(centerXY[0], centerXY[1]);
    const phone = `+1 410-555-01${String(10 + idx * 7).padStart(2, '0')}`;
    const website = `https://parking.port-calvert.example/lots/${p.key}`;
    const tags = lotTags(p, drawn, phone, website, rng);
    const { osmType, osmId, outline } = addLot(doc, p, lat, lon, tags);
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
      capacity: drawn.capacity,
      capacityDisabled: drawn.capacityDisabled,
      capacityCharging: drawn.capacityCharging,
      hours: p.hours,
      payments: p.payments,
      rates: drawn.rates,
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

/** What a lot draws from the random stream: its capacities and rate plan. */
interface DrawnLot {
  capacity: number;
  capacityDisabled: number;
  capacityCharging: number;
  rates: RatePlan;
}

/** Draws a lot's capacities and prices within its plan's ranges. */
function drawLot(p: LotPlan, rng: Prng): DrawnLot {
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
  return { capacity, capacityDisabled, capacityCharging, rates };
}

/** The OSM tags of a lot (a multi-storey garage draws its number of levels). */
function lotTags(p: LotPlan, d: DrawnLot, phone: string, website: string, rng: Prng): OsmTags {
  const tags: OsmTags = {
    amenity: 'parking',
    name: p.name,
    operator: p.operator,
    parking: p.parking,
    access: p.access,
    fee: p.fee ? 'yes' : 'no',
    capacity: String(d.capacity),
    'capacity:disabled': String(d.capacityDisabled),
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
    tags.charge = `${d.rates.weekdayPerHourUsd.toFixed(2)} USD/hour`;
    tags['payment:cash'] ??= 'no';
  }
  if (d.capacityCharging > 0) tags['capacity:charging'] = String(d.capacityCharging);
  if (p.parkRide) tags.park_ride = 'yes';
  if (p.maxHeightM) tags.maxheight = p.maxHeightM.toFixed(2);
  if (p.parking !== 'surface') tags.covered = 'yes';
  if (p.access === 'customers') tags.maxstay = '2 hours';
  if (p.parking === 'multi-storey') tags['building:levels'] = String(rng.int(4, 7));
  if (p.parking === 'multi-storey') tags.building = 'parking';
  if (p.parking === 'underground') tags.layer = '-1';
  return tags;
}

/** Writes a lot into `doc`: an area as a closed way of new nodes, else a node at (lat, lon). */
function addLot(
  doc: OsmDocument,
  p: LotPlan,
  lat: number,
  lon: number,
  tags: OsmTags,
): Pick<DemoLot, 'osmType' | 'osmId' | 'outline'> {
  if (!p.ring) return { osmType: 'node', osmId: doc.addNode(lat, lon, tags), outline: null };
  const ringIds = p.ring.map(([x, y]) => doc.addNode(...toLatLon(x, y)));
  const osmId = doc.addWay([...ringIds, ringIds[0]], tags);
  const outline = [...ringIds, ringIds[0]].map((id) => {
    const nd = doc.getNode(id);
    return [nd.lat, nd.lon] as [number, number];
  });
  return { osmType: 'way', osmId, outline };
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
