import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { generateDemoCity } from '../../src/demo/city.js';
import { mergeLot, validateLotUpload } from '../../src/parking/inventory/lot-upload.js';
import { quoteStay } from '../../src/parking/rates/quote.js';
import { productFromInput, type LotRef } from '../../src/parking/reservations/products/product.js';

// The demo's parking-upload.json is read by the parking service (`streetwise parking load`):
// every lot and product must pass its validators, and the rates must price stays as the rate
// card says.

const upload = generateDemoCity({ seed: 42 }).parkingUpload;
const TZ = 'America/New_York';
const noHolidays = { tz: TZ, isHoliday: () => false, permits: new Set<string>() };

function entryS(iso: string): number {
  return DateTime.fromISO(iso, { zone: TZ }).toSeconds();
}

describe('demo parking upload read by the parking service', () => {
  it('passes the lot upload validation without ignored fields and merges into new lots', () => {
    upload.lots.forEach((lot, i) => {
      const up = validateLotUpload(lot, `lots[${i}]`);
      expect(up.ignored).toEqual([]);
      expect(up.alias).toBe(lot.alias);
      const merged = mergeLot(null, up, 'USD', `lots[${i}]`);
      expect(merged.id).toBe(lot.id);
      expect(merged.spacesTotal).toBe(lot.spacesTotal);
      expect(merged.frames!.length).toBeGreaterThan(0);
    });
  });

  it('prices the garage by the hour in the day, flat in the evening and at the daily maximum', () => {
    const lot = upload.lots.find((l) => l.alias === 'demo|harborplace-garage')!;
    const frames = mergeLot(null, validateLotUpload(lot, 'lot'), 'USD').frames!;
    const [day, evening] = lot.structured_rates;
    // Wednesday 18 Nov 2026, 10:00 local, three hours
    const threeHours = quoteStay(frames, entryS('2026-11-18T10:00'), 180, noHolidays);
    expect(threeHours).toEqual({
      kind: 'priced',
      costCents: Math.round(Math.min(3 * day.rate, day.max) * 100),
      quotedMin: 180,
    });
    const eveningStay = quoteStay(frames, entryS('2026-11-18T19:00'), 240, noHolidays);
    expect(eveningStay.kind === 'priced' && eveningStay.costCents).toBe(Math.round(evening.rate * 100));
    const allDay = quoteStay(frames, entryS('2026-11-18T06:00'), 12 * 60, noHolidays);
    expect(allDay.kind === 'priced' && allDay.costCents).toBe(Math.round(day.max * 100));
    expect(day.max).toBeLessThan(12 * day.rate);
  });

  it('turns every product into a reservation product of its lot', () => {
    const lots = upload.lots as unknown as LotRef[];
    upload.products.forEach((p, i) => {
      const product = productFromInput(p, lots, i);
      const lot = upload.lots.find((l) => l.alias === p.lot_alias)!;
      expect(product.id).toBe(p.pk_reservation_product);
      expect(product.lotId).toBe(lot.id);
      expect(product.tz).toBe(TZ);
      expect(product.rateTable).toEqual(
        p.rates.map((r) => ({ durationMin: r.duration, priceCents: Math.round(r.rate * 100) })),
      );
      expect(product.daysOfWeek).toEqual(p.days_available);
      expect(product.capacity).toBe(p.capacity);
      expect(product.serviceFeeCents).toBe(Math.round(p.service_fee * 100));
    });
  });
});
