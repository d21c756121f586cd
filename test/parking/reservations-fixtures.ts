/**
 * Fixtures of the reservations tests: a lot and its products built in code, a fixed clock, and a
 * database with the reservations migrations (PGlite in memory, or a fresh PostgreSQL schema).
 *
 *   lot 9001 "Harbor Garage" (America/New_York)
 *     product A "All Day"     24 h, every day, capacity 10, 1 h $8 · 2 h $14 · 24 h $32, fee $1.50
 *     product B "Early Bird"  6:00am–11:00am Mon–Fri, capacity 2, 5 h $12, phone + licence required
 */
import { migrations } from '../../src/parking/reservations/migrations.js';
import {
  loadParkingFile,
  type Caller,
  TestPaymentProcessor,
  type ReservationDeps,
} from '../../src/parking/reservations/index.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';

/** Monday 2026-11-23 12:00 UTC (07:00 in New York): the fixed clock of these tests. */
export const NOW_MS = Date.UTC(2026, 10, 23, 12, 0, 0);

/** Id of product A (All Day). */
export const PRODUCT_ALL_DAY = '11111111-1111-4111-8111-111111111111';
/** Id of product B (Early Bird). */
export const PRODUCT_EARLY_BIRD = '22222222-2222-4222-8222-222222222222';
/** The lot of both products. */
export const LOT_ID = 9001;

/** The upload file of the fixtures (contract shapes: lots + products + one publisher). */
export function fixtureFile(capacityAllDay = 10): Record<string, unknown> {
  return {
    lots: [
      {
        id: LOT_ID,
        alias: 'harbor|HG-1',
        name: 'Harbor Garage',
        point: { type: 'Point', coordinates: [-76.6122, 39.2851] },
        navigationAddress: {
          street: '100 Light St',
          city: 'Baltimore',
          state: 'MD',
          postal: '21202',
          country: 'US',
          type: 'NAVIGATION',
        },
      },
    ],
    products: [
      {
        pk_reservation_product: PRODUCT_ALL_DAY,
        f_id: LOT_ID,
        name: 'All Day',
        rates: [
          { duration: 60, rate: 8 },
          { duration: 120, rate: 14 },
          { duration: 1440, rate: 32 },
        ],
        max_duration: 1440,
        capacity: capacityAllDay,
        service_fee: 1.5,
      },
      {
        pk_reservation_product: PRODUCT_EARLY_BIRD,
        lot_alias: 'harbor|HG-1',
        name: 'Early Bird',
        rates: [12],
        durations: [300],
        start_time: '6:00am',
        end_time: '11:00am',
        days_available: 'Mon,Tue,Wed,Thu,Fri',
        capacity: 2,
        phone_required: true,
        license_required: true,
      },
    ],
    publishers: [{ pub_id: 'acme', name: 'Acme Maps', private_key: 'acme-private-key' }],
  };
}

/** Migrates `db` (reservations tables only) and loads the fixture file. */
export async function seed(db: Db, capacityAllDay = 10): Promise<void> {
  await runMigrations(db, migrations);
  await loadParkingFile(db, fixtureFile(capacityAllDay));
}

/** A fresh in-memory PGlite with the fixtures. */
export async function seededPglite(capacityAllDay = 10): Promise<Db> {
  const db = await openPglite();
  await seed(db, capacityAllDay);
  return db;
}

/** An application caller. */
export function appCaller(appId = 'app-1', admin = false): Caller {
  return { kind: 'app', appId, admin };
}

/** Service dependencies with the test processor and the fixed clock. */
export function deps(nowMs = NOW_MS): ReservationDeps {
  return { processor: new TestPaymentProcessor(), nowMs };
}
