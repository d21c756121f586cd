import { describe, expect, it } from 'vitest';
import { generateDemoCity } from './city.js';
import type { UploadLot } from './parking-upload.js';

const city = generateDemoCity({ seed: 42 });
const upload = city.parkingUpload;

/** OSM tags of the element an upload lot points at (parsed straight from the XML text). */
function osmTagsOf(lot: UploadLot): Record<string, string> {
  const re = new RegExp(`<${lot.osm_type} id="${lot.osm_id}"[^>]*>([\\s\\S]*?)</${lot.osm_type}>`);
  const m = re.exec(city.osmXml);
  if (!m) throw new Error(`no ${lot.osm_type} ${lot.osm_id} in the XML`);
  return Object.fromEntries(
    [...m[1].matchAll(/<tag k="([^"]*)" v="([^"]*)"\/>/g)].map((t) => [t[1], t[2].replace(/&amp;/g, '&')]),
  );
}

const isMoney = (x: number): boolean => Number.isFinite(x) && Math.abs(Math.round(x * 100) - x * 100) < 1e-9;
const CLOCK = /^([01]\d|2[0-4]):[0-5]\d$/;

describe('demo parking upload', () => {
  it('has exactly the top-level keys lots and products', () => {
    expect(Object.keys(upload)).toEqual(['lots', 'products']);
    expect(upload.lots.length).toBe(9);
    expect(upload.products.length).toBe(10);
  });

  it('keys every lot to its OSM lot by alias, osm_type/osm_id and the imported lot id', () => {
    const aliases = new Set(upload.lots.map((l) => l.alias));
    expect(aliases.size).toBe(upload.lots.length);
    for (const lot of upload.lots) {
      expect(lot.alias).toMatch(/^demo\|[a-z0-9-]+$/);
      const tags = osmTagsOf(lot);
      expect(tags.amenity).toBe('parking');
      expect(tags.name).toBe(lot.name);
      expect(tags.operator).toBe(lot.operator);
      expect(Number(tags.capacity)).toBe(lot.spacesTotal);
      expect(Number(tags['capacity:disabled'])).toBe(lot.handicapSpacesTotal);
      expect(lot.id).toBe(lot.osm_type === 'way' ? lot.osm_id * 10 + 1 : lot.osm_id);
      expect(lot.format).toBe(
        { surface: 'Surface', 'multi-storey': 'Structure', underground: 'Subterranean' }[tags.parking],
      );
    }
  });

  it('uses only the contract values for category, format, type, phones and entrances', () => {
    for (const lot of upload.lots) {
      expect([
        'Unknown',
        'University',
        'Airport Adjacent',
        'Park N Ride',
        'Public Parking',
        'Venue Lot',
        'Hospital',
        'Hotel',
      ]).toContain(lot.lotCategory);
      expect(['Surface', 'Structure', 'Subterranean']).toContain(lot.format);
      expect(['Non-restricted', 'Restricted']).toContain(lot.type);
      expect(lot.costIndex).toBeGreaterThanOrEqual(1);
      expect(lot.costIndex).toBeLessThanOrEqual(5);
      for (const p of lot.phones) expect(['Lot', 'Central Office', 'Monthly', 'Tow', 'Unlock']).toContain(p.type);
      expect(lot.peps.filter((p) => p.pepPrimary).length).toBe(1);
      for (const p of lot.peps) {
        expect(['IN', 'OUT', 'IN/OUT']).toContain(p.pepType);
        expect(p.pepAz).toBeGreaterThanOrEqual(0);
        expect(p.pepAz).toBeLessThan(360);
      }
      expect(lot.navigationAddress.type).toBe('NAVIGATION');
      expect(lot.buildingAddress.type).toBe('LEGAL');
      expect(lot.point.type).toBe('Point');
      expect(lot.tz).toBe('America/New_York');
      expect(lot.currencyIso).toBe('USD');
      expect(lot.hrs.length).toBeGreaterThan(0);
      const ids = lot.amenities.map((a) => a.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('writes structured rates with valid days, clock windows and cent amounts, mirrored by the rate card', () => {
    for (const lot of upload.lots) {
      expect(lot.structured_rates.length).toBeGreaterThan(0);
      expect(lot.rateCard).toEqual(lot.structured_rates.map((r) => r.rate_line));
      for (const r of lot.structured_rates) {
        expect(r.dow_start).toBeGreaterThanOrEqual(1);
        expect(r.dow_end).toBeLessThanOrEqual(7);
        expect(r.dow_start).toBeLessThanOrEqual(r.dow_end);
        expect(r.time_in).toMatch(CLOCK);
        expect(r.time_out).toMatch(CLOCK);
        expect(r.increment).toBeGreaterThan(0);
        expect(isMoney(r.rate) && r.rate >= 0).toBe(true);
        expect(isMoney(r.max)).toBe(true);
        expect([-1, 0, 1]).toContain(r.holidays);
      }
      const free = osmTagsOf(lot).fee === 'no';
      expect(lot.structured_rates.every((r) => r.rate === 0)).toBe(free);
    }
    // the 24/7 garage: hourly by day, a flat evening rate past midnight, a holiday rate
    const garage = upload.lots.find((l) => l.alias === 'demo|harborplace-garage')!;
    expect(garage.structured_rates.map((r) => [r.time_in, r.time_out, r.repeats, r.holidays])).toEqual([
      ['06:00', '18:00', true, -1],
      ['18:00', '06:00', false, -1],
      ['00:00', '24:00', false, 1],
    ]);
  });

  it('describes EV chargers with one port per charging space of the OSM lot', () => {
    const withChargers = upload.lots.filter((l) => l.ev_chargers.length > 0);
    expect(withChargers.length).toBe(3);
    for (const lot of withChargers) {
      const ports = lot.ev_chargers.flatMap((c) => c.ports);
      expect(ports.length).toBe(Number(osmTagsOf(lot)['capacity:charging']));
      expect(lot.amenities.some((a) => a.name === 'EV Charging')).toBe(true);
    }
  });

  it('gives reservation products to the public paid lots with consistent price tables and stable ids', () => {
    const byAlias = new Map(upload.lots.map((l) => [l.alias, l]));
    const ids = upload.products.map((p) => p.pk_reservation_product);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of upload.products) {
      expect(p.pk_reservation_product).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const lot = byAlias.get(p.lot_alias)!;
      expect(lot).toBeDefined();
      expect(p.f_id).toBe(lot.id);
      expect(p.type).toBe('PREPAY');
      expect(p.rates.length).toBeGreaterThan(0);
      for (let k = 1; k < p.rates.length; k++) {
        expect(p.rates[k].duration).toBeGreaterThan(p.rates[k - 1].duration);
        expect(p.rates[k].rate).toBeGreaterThanOrEqual(p.rates[k - 1].rate);
      }
      for (const r of p.rates) expect(isMoney(r.rate) && r.rate > 0).toBe(true);
      expect(p.max_duration).toBe(p.rates[p.rates.length - 1].duration);
      expect(p.days_available.every((d) => d >= 1 && d <= 7)).toBe(true);
      expect(p.start_time).toMatch(/^\d{1,2}:\d{2}(am|pm)$/);
      expect(p.end_time).toMatch(/^\d{1,2}:\d{2}(am|pm)$/);
      expect(p.capacity).toBeGreaterThan(0);
      expect(p.capacity).toBeLessThanOrEqual(lot.spacesTotal);
      expect(isMoney(p.service_fee)).toBe(true);
      expect(osmTagsOf(lot).fee).toBe('yes');
    }
    // the Courthouse Lot is closed at weekends: its product cannot start on Saturday or Sunday
    const courthouse = upload.products.find((p) => p.lot_alias === 'demo|courthouse-lot')!;
    expect(courthouse.days_available).toEqual([1, 2, 3, 4, 5]);
    const other = generateDemoCity({ seed: 7 }).parkingUpload;
    expect(other.products.map((p) => p.pk_reservation_product)).toEqual(ids);
  });
});
