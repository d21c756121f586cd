/**
 * The reservation flow over HTTP on PostgreSQL (same app, same migrations as PGlite): register,
 * reserve with a saved card, idempotent retry, Scan → Redeem, Cancel refused, products estimate.
 * Skipped with a message when TEST_DATABASE_URL is unset; fails under CI=true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadParkingFile } from '../../src/parking/reservations/index.js';
import { makeTestContext, openTestPostgres, type TestContext } from '../helpers/context.js';
import { fixtureFile, LOT_ID, NOW_MS, PRODUCT_ALL_DAY } from './reservations-fixtures.js';

const pg = await openTestPostgres();
if (!pg)
  console.warn(
    'reservations on PostgreSQL: skipped (set TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test)',
  );

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = { authorization: `Basic ${Buffer.from('pg@example.com:pg-password').toString('base64')}` };

describe.skipIf(!pg)('reservations over HTTP on PostgreSQL', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await makeTestContext({ db: pg!.db, now: () => NOW_MS });
    await loadParkingFile(t.ctx.db, fixtureFile(2));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await pg?.drop();
  });

  it('runs register → reserve (saved card, idempotent) → Scan → Redeem, and enforces capacity', async () => {
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/user/',
          headers: FORM,
          payload: form({ email: 'pg@example.com', password: 'pg-password', pub_id: 'acme', source: 'test' }),
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: '/user/',
          headers: { ...basic, ...FORM },
          payload: form({ token: 'tok_visa' }),
        })
      ).json().Users[0].card_last4,
    ).toBe('4242');
    const fields = {
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_ALL_DAY,
      entry_time: '2026-11-24T09:00',
      duration: '120',
    };
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: '/reservation/',
        headers: { ...basic, ...FORM, 'idempotency-key': 'pg-1' },
        payload: form(fields),
      });
    const first = (await post()).json().Reservations[0];
    expect(first).toMatchObject({ pk_reservation_status: 1, d_amount_paid: 15.5, card_last4: '4242' });
    const again = await post();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().Reservations[0]).toEqual(first);
    const act = (action: string) =>
      t.app.inject({
        method: 'PUT',
        url: `/reservation/${first.pk_reservation}`,
        headers: { authorization: `Bearer ${t.token}`, ...FORM },
        payload: form({ action }),
      });
    // the app did not create it: not visible to it
    expect((await act('Scan')).statusCode).toBe(404);
    const staffAct = (action: string) =>
      t.app.inject({
        method: 'PUT',
        url: `/reservation/${first.pk_reservation}`,
        headers: { authorization: `Bearer ${t.adminToken}`, ...FORM },
        payload: form({ action }),
      });
    expect((await staffAct('Scan')).json().Reservations[0].pk_reservation_status).toBe(3);
    expect((await staffAct('Redeem')).json().Reservations[0].pk_reservation_status).toBe(2);
    expect((await staffAct('Cancel')).statusCode).toBe(409);
    // capacity 2: one more fits in that window, the third is sold out
    const other = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/reservation/',
        headers: { ...basic, ...FORM, 'idempotency-key': key },
        payload: form(fields),
      });
    expect((await other('pg-2')).statusCode).toBe(200);
    const full = await other('pg-3');
    expect(full.statusCode).toBe(409);
    expect(full.json().code).toBe('PARKING_PRODUCT_SOLD_OUT');
    const estimate = (
      await t.app.inject({
        url: `/product/?f_id=${LOT_ID}&entry_dt=2026-11-24T09:00&duration=120`,
        headers: { authorization: `Bearer ${t.token}` },
      })
    ).json();
    expect(
      estimate.Products.find((p: { pk_reservation_product: string }) => p.pk_reservation_product === PRODUCT_ALL_DAY)
        .days_available,
    ).toEqual({ '2026-11-24': 0 });
  });
});
