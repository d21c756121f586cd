/**
 * Reservation throughput (reservations/s) on PGlite and, when TEST_DATABASE_URL or DATABASE_URL is
 * set, on PostgreSQL (in a throw-away schema). Each reservation is the full path: product row lock,
 * overlap count, insert, test-processor charge, commit.
 *
 *   sequential   one client, stays spread over 30 days × 10 hours
 *   parallel     8 clients at once on the same product (they queue on the product row lock)
 *   spread       8 clients, each on its own product (no shared lock)
 *   contended    200 simultaneous attempts on capacity 10 (10 must succeed)
 */
import { migrations } from '../src/parking/reservations/migrations.js';
import {
  createReservation,
  loadProducts,
  ReservationsError,
  TestPaymentProcessor,
  type Caller,
} from '../src/parking/reservations/index.js';
import { openPglite, openPostgres, runMigrations, type Db } from '../src/store/index.js';

const NOW_MS = Date.UTC(2026, 10, 23, 12);
const DAY_MS = 86_400_000;
const processor = new TestPaymentProcessor();
const caller: Caller = { kind: 'app', appId: 'bench', admin: false };

function productId(i: number): string {
  return `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

async function seed(db: Db): Promise<void> {
  await runMigrations(db, migrations);
  const products = Array.from({ length: 10 }, (_, i) => ({
    pk_reservation_product: productId(i),
    f_id: 1,
    name: `Bench ${i}`,
    tz: 'UTC',
    rates: [
      { duration: 60, rate: 5 },
      { duration: 1440, rate: 20 },
    ],
    capacity: i === 9 ? 10 : 1_000_000,
    service_fee: 0.5,
  }));
  await loadProducts(db, products);
}

/** The k-th stay: 1 h, over 30 days × 10 hourly slots (so overlap lists stay realistic). */
function entryOf(k: number): number {
  return NOW_MS + DAY_MS + (k % 30) * DAY_MS + (Math.floor(k / 30) % 10) * 3_600_000;
}

async function one(db: Db, product: string, k: number): Promise<boolean> {
  try {
    await createReservation(
      db,
      caller,
      {
        productId: product,
        entryAt: () => entryOf(k),
        durationMin: 60,
        quoteOnly: false,
        payment: { token: 'tok_visa' },
        contact: {},
      },
      { processor, nowMs: NOW_MS },
    );
    return true;
  } catch (e) {
    if (e instanceof ReservationsError && e.code === 'PARKING_PRODUCT_SOLD_OUT') return false;
    throw e;
  }
}

async function timed(label: string, count: number, run: () => Promise<void>): Promise<void> {
  const t0 = performance.now();
  await run();
  const s = (performance.now() - t0) / 1000;
  console.log(
    `  ${label.padEnd(44)} ${String(count).padStart(5)} in ${s.toFixed(2)} s = ${(count / s).toFixed(0).padStart(5)} reservations/s`,
  );
}

async function benchOne(name: string, db: Db, n: number): Promise<void> {
  console.log(`${name}:`);
  await seed(db);
  // calibration: the bare round trip of this backend on this machine (a reservation is 4 statements + BEGIN/COMMIT)
  const t0 = performance.now();
  for (let i = 0; i < 500; i++) await db.query('SELECT 1');
  console.log(`  baseline: ${(500 / ((performance.now() - t0) / 1000)).toFixed(0)} "SELECT 1" round trips/s`);
  let k = 0;
  await timed('sequential, one client', n, async () => {
    for (let i = 0; i < n; i++) await one(db, productId(0), k++);
  });
  await timed('parallel, 8 clients, same product', n, async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) {
          next++;
          await one(db, productId(1), k++);
        }
      }),
    );
  });
  await timed('parallel, 8 clients, 8 products', n, async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        while (next < n) {
          next++;
          await one(db, productId(1 + w), k++);
        }
      }),
    );
  });
  let ok = 0;
  await timed('contended: 200 at once for capacity 10', 200, async () => {
    const results = await Promise.all(Array.from({ length: 200 }, () => one(db, productId(9), 0)));
    ok = results.filter(Boolean).length;
  });
  console.log(`  contended: ${ok} succeeded (capacity 10)${ok === 10 ? '' : '  <-- WRONG'}`);
}

/** Prints reservation throughput on PGlite and (when configured) PostgreSQL. */
export async function benchReservations(): Promise<void> {
  const pglite = await openPglite();
  try {
    await benchOne('PGlite (in memory)', pglite, 300);
  } finally {
    await pglite.close();
  }
  const url = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!url) {
    console.log('PostgreSQL: skipped (set TEST_DATABASE_URL or DATABASE_URL)');
    return;
  }
  const schema = `bench_resv_${process.pid}`;
  const admin = await openPostgres(url);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const sep = url.includes('?') ? '&' : '?';
  const db = await openPostgres(`${url}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`, { max: 10 });
  try {
    await benchOne(`PostgreSQL (${url.replace(/\/\/[^@]*@/, '//')})`, db, 1000);
  } finally {
    await db.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchReservations();
