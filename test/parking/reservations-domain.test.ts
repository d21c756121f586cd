/**
 * Domain tests on one PGlite: the demo city's operator upload (docs/demo.md) loads into the
 * reservations module (every product with its lot's name and time zone; one reserved end to end),
 * and the spaces held per lot at an instant (input of the occupancy model) on the fixtures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoCity } from '../../src/demo/city.js';
import {
  actOnReservation,
  createReservation,
  fitStay,
  getProduct,
  heldSpacesOfLots,
  loadParkingFile,
  queryProducts,
  TestPaymentProcessor,
} from '../../src/parking/reservations/index.js';
import { migrations } from '../../src/parking/reservations/migrations.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { appCaller, deps, fixtureFile, LOT_ID, NOW_MS, PRODUCT_ALL_DAY } from './reservations-fixtures.js';

let db: Db;
const upload = generateDemoCity({ seed: 42 }).parkingUpload;

beforeAll(async () => {
  db = await openPglite();
  await runMigrations(db, migrations);
  await loadParkingFile(db, fixtureFile(10));
});
afterAll(async () => {
  await db.close();
});

describe('demo parking upload', () => {
  it('loads every product with its lot name and time zone', async () => {
    const r = await loadParkingFile(db, upload);
    expect(r.products).toBe(upload.products.length);
    for (const p of upload.products) {
      const stored = await getProduct(db, p.pk_reservation_product);
      const lot = upload.lots.find((l) => l.id === p.f_id);
      expect(stored.lotId).toBe(p.f_id);
      expect(stored.lotName).toBe(lot?.name);
      expect(stored.tz).toBe(lot?.tz);
      expect(stored.rateTable.length).toBe(p.rates.length);
    }
  });

  it('quotes and reserves a demo product end to end', async () => {
    const p = upload.products[0];
    const product = await getProduct(db, p.pk_reservation_product);
    // the first hour of the product window, two days from the fixed clock, on a day it runs
    let entryMs = 0;
    for (let d = 2; d < 9 && entryMs === 0; d++) {
      const candidate = NOW_MS + d * 86_400_000;
      const day = new Date(candidate).toISOString().slice(0, 10);
      const local = Date.parse(`${day}T00:00:00Z`);
      for (let h = 0; h < 24; h++) {
        const at = local + h * 3_600_000 + 6 * 3_600_000;
        if (fitStay(product, at, 60).ok) {
          entryMs = at;
          break;
        }
      }
    }
    expect(entryMs).toBeGreaterThan(0);
    const view = await queryProducts(db, { lotId: p.f_id, entryAt: () => entryMs, durationsMin: [60], nowMs: NOW_MS });
    const listed = view.Products.find((x) => x.pk_reservation_product === p.pk_reservation_product);
    expect(listed?.rates[0]).toBe(p.rates[0].rate);
    const res = await createReservation(
      db,
      appCaller(),
      {
        productId: p.pk_reservation_product,
        entryAt: () => entryMs,
        durationMin: 60,
        quoteOnly: false,
        payment: { token: 'tok_visa' },
        contact: { phone: '555', licensePlate: 'DEMO1' },
      },
      { processor: new TestPaymentProcessor(), nowMs: NOW_MS },
    );
    expect(res.reservation.status).toBe(1);
    expect(res.reservation.amountPaidCents).toBe(Math.round(p.rates[0].rate * 100) + Math.round(p.service_fee * 100));
  });
});

describe('held spaces', () => {
  it('counts paid stays covering the instant; quotes and cancellations hold nothing', async () => {
    const at = (h: number) => Date.UTC(2026, 10, 24, h);
    const make = (startH: number, hours: number, pay = true) =>
      createReservation(
        db,
        appCaller(),
        {
          productId: PRODUCT_ALL_DAY,
          entryAt: () => at(startH),
          durationMin: hours * 60,
          quoteOnly: !pay,
          payment: { token: 'tok_visa' },
          contact: {},
        },
        deps(),
      );
    await make(14, 2);
    await make(15, 2);
    await make(15, 1, false);
    const cancelled = await make(14, 3);
    await actOnReservation(db, appCaller(), cancelled.reservation.id, 'Cancel', deps());
    expect((await heldSpacesOfLots(db, [LOT_ID, 1], at(15) + 1)).get(LOT_ID)).toBe(2);
    expect((await heldSpacesOfLots(db, [LOT_ID], at(16))).get(LOT_ID)).toBe(1);
    expect((await heldSpacesOfLots(db, [LOT_ID], at(17))).has(LOT_ID)).toBe(false);
    expect((await heldSpacesOfLots(db, [], at(15))).size).toBe(0);
  });
});
