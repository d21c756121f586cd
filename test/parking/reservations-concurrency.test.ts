/**
 * 50 simultaneous reservations of a product with capacity 10 for the same window: exactly 10
 * succeed and the other 40 are refused as sold out, on PGlite and on PostgreSQL. Also: 10
 * simultaneous retries with one idempotency key create one reservation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openTestPostgres } from '../helpers/context.js';
import { createReservation, ReservationsError } from '../../src/parking/reservations/index.js';
import type { Db } from '../../src/store/index.js';
import { appCaller, deps, PRODUCT_ALL_DAY, seed, seededPglite } from './reservations-fixtures.js';

async function fiftyAtOnce(db: Db): Promise<{ ok: number; soldOut: number; other: unknown[]; stored: number }> {
  const attempts = Array.from({ length: 50 }, (_, i) =>
    createReservation(
      db,
      appCaller(`app-${i % 5}`),
      // Tuesday 2026-11-24 09:00–11:00 New York time
      {
        productId: PRODUCT_ALL_DAY,
        entryAt: () => Date.UTC(2026, 10, 24, 14),
        durationMin: 120,
        quoteOnly: false,
        payment: { token: 'tok_visa' },
        contact: {},
      },
      deps(),
    ),
  );
  const results = await Promise.allSettled(attempts);
  const other: unknown[] = [];
  let ok = 0;
  let soldOut = 0;
  for (const r of results) {
    if (r.status === 'fulfilled') ok++;
    else if (r.reason instanceof ReservationsError && r.reason.code === 'PARKING_PRODUCT_SOLD_OUT') soldOut++;
    else other.push(r.reason);
  }
  const stored = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pk_reservation WHERE status = 1');
  return { ok, soldOut, other, stored: Number(stored.rows[0].n) };
}

async function sameKeyAtOnce(db: Db): Promise<{ ids: Set<string>; replayed: number; stored: number }> {
  const attempts = Array.from({ length: 10 }, () =>
    createReservation(
      db,
      appCaller('retrying-app'),
      {
        productId: PRODUCT_ALL_DAY,
        entryAt: () => Date.UTC(2026, 10, 25, 14),
        durationMin: 60,
        quoteOnly: false,
        payment: { token: 'tok_visa' },
        idempotencyKey: 'checkout-42',
        contact: {},
      },
      deps(),
    ),
  );
  const results = await Promise.all(attempts);
  const stored = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pk_reservation WHERE idempotency_key = 'checkout-42'",
  );
  return {
    ids: new Set(results.map((r) => r.reservation.id)),
    replayed: results.filter((r) => r.replayed).length,
    stored: Number(stored.rows[0].n),
  };
}

describe('reservation capacity under concurrency (PGlite)', () => {
  it('lets exactly 10 of 50 simultaneous reservations through for capacity 10', async () => {
    const db = await seededPglite(10);
    try {
      const r = await fiftyAtOnce(db);
      expect(r.other).toEqual([]);
      expect(r.ok).toBe(10);
      expect(r.soldOut).toBe(40);
      expect(r.stored).toBe(10);
      const k = await sameKeyAtOnce(db);
      expect(k).toEqual({ ids: k.ids, replayed: 9, stored: 1 });
      expect(k.ids.size).toBe(1);
    } finally {
      await db.close();
    }
  });
});

const pg = await openTestPostgres();
if (!pg)
  console.warn(
    'reservations concurrency: PostgreSQL part skipped (set TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test)',
  );

describe.skipIf(!pg)('reservation capacity under concurrency (PostgreSQL)', () => {
  afterAll(async () => {
    await pg?.drop();
  });

  it('lets exactly 10 of 50 simultaneous reservations through for capacity 10', async () => {
    const db = pg!.db;
    await seed(db, 10);
    const r = await fiftyAtOnce(db);
    expect(r.other).toEqual([]);
    expect(r.ok).toBe(10);
    expect(r.soldOut).toBe(40);
    expect(r.stored).toBe(10);
  });

  it('creates one reservation for 10 simultaneous retries with the same idempotency key', async () => {
    const k = await sameKeyAtOnce(pg!.db);
    expect(k.ids.size).toBe(1);
    expect(k.replayed).toBe(9);
    expect(k.stored).toBe(1);
  });
});
