/**
 * Products and reservations over HTTP (app.inject): the three precision rules of GET /product/,
 * JSONP, the pub_id + chk hashed request, compression, the reservation state machine, amounts,
 * idempotency, payments and visibility. Fixtures: test/parking/reservations-fixtures.ts.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, inflateSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import reservationsPlugin from '../../src/http/parking/reservations-plugin.js';
import { OPENAPI_DOCUMENT } from '../../src/http/openapi.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeChk, loadParkingFile, lotUuidOf } from '../../src/parking/reservations/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { fixtureFile, LOT_ID, NOW_MS, PRODUCT_ALL_DAY, PRODUCT_EARLY_BIRD } from './reservations-fixtures.js';

let t: TestContext;
let clock = NOW_MS;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  t = await makeTestContext({ now: () => clock });
  await loadParkingFile(t.ctx.db, fixtureFile(10));
});
afterAll(async () => {
  await t.close();
});

async function reserve(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/reservation/',
    headers: { ...bearer(t.token), ...FORM, ...headers },
    payload: form(fields),
  });
}

const allDay = (body: { Products: Array<{ pk_reservation_product: string }> }) =>
  body.Products.find((p) => p.pk_reservation_product === PRODUCT_ALL_DAY) as Record<string, unknown>;
const earlyBird = (body: { Products: Array<{ pk_reservation_product: string }> }) =>
  body.Products.find((p) => p.pk_reservation_product === PRODUCT_EARLY_BIRD) as Record<string, unknown>;

describe('GET /product/', () => {
  it('without entry gives the generic rate table and the next 7 days the product runs', async () => {
    const res = await t.app.inject({ url: `/product/?f_id=${LOT_ID}`, headers: bearer(t.token) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.ProductCount).toBe(2);
    const a = allDay(body);
    expect(a.rates).toEqual([8, 14, 32]);
    expect(a.durations).toEqual([60, 120, 1440]);
    expect(a.service_fee).toBe(1.5);
    expect(a.start_time).toBe('12:00am');
    expect(a.max_duration).toBe(1440);
    expect(a.f_id).toBe(LOT_ID);
    expect(a.type).toBe('PREPAY');
    expect(Object.keys(a.days_available as object)).toEqual([
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
    ]);
    const b = earlyBird(body);
    expect(b.start_time).toBe('6:00am');
    expect(b.end_time).toBe('11:00am');
    expect(b.phone_required).toBe(true);
    // Mon 23 … Fri 27 November; the weekend is not offered
    expect(b.days_available).toEqual({
      '2026-11-23': 100,
      '2026-11-24': 100,
      '2026-11-25': 100,
      '2026-11-26': 100,
      '2026-11-27': 100,
    });
  });

  it('with entry only estimates that day: availability drops as reservations are taken', async () => {
    const before = (
      await t.app.inject({ url: `/product/?f_id=${LOT_ID}&entry_dt=2026-11-26T09:00`, headers: bearer(t.token) })
    ).json();
    expect(allDay(before).days_available).toEqual({ '2026-11-26': 100 });
    for (let i = 0; i < 3; i++) {
      const r = await reserve({
        f_id: String(LOT_ID),
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-11-26T10:00',
        duration: '60',
        action: 'Reserve',
        token: 'tok_visa',
      });
      expect(r.statusCode).toBe(200);
    }
    const after = (
      await t.app.inject({ url: `/product/?f_id=${LOT_ID}&entry_dt=2026-11-26T09:00`, headers: bearer(t.token) })
    ).json();
    expect(allDay(after).days_available).toEqual({ '2026-11-26': 70 });
  });

  it('with entry and durations gives the exact rate of each stay (null when the product cannot take it)', async () => {
    const res = await t.app.inject({
      url: `/product/?lot=${allDayLotUuid()}&entry_dt=2026-11-24T08:00&duration=60|120|300`,
      headers: bearer(t.token),
    });
    const body = res.json();
    expect(allDay(body).rates).toEqual([8, 14, 32]);
    // Early Bird runs 6:00–11:00: 08:00 + 5 h ends at 13:00
    expect(earlyBird(body).rates).toEqual([12, 12, null]);
    expect(earlyBird(body).days_available).toEqual({ '2026-11-24': 100 });
    const sunday = (
      await t.app.inject({
        url: `/product/?f_id=${LOT_ID}&entry_dt=2026-11-29T08:00&duration=60`,
        headers: bearer(t.token),
      })
    ).json();
    expect(earlyBird(sunday).rates).toEqual([null]);
    expect(earlyBird(sunday).days_available).toEqual({ '2026-11-29': 0 });
  });

  it('reads entry_dt with a trailing Z as UTC and entry as ISO UTC', async () => {
    // 13:00Z = 08:00 in New York
    const z = (
      await t.app.inject({
        url: `/product/?f_id=${LOT_ID}&entry_dt=2026-11-24T13:00Z&duration=300`,
        headers: bearer(t.token),
      })
    ).json();
    expect(earlyBird(z).rates).toEqual([null]);
    const iso = (
      await t.app.inject({
        url: `/product/?f_id=${LOT_ID}&entry=2026-11-24T11:00:00Z&duration=300`,
        headers: bearer(t.token),
      })
    ).json();
    // 11:00Z = 06:00 New York: 6:00–11:00 fits
    expect(earlyBird(iso).rates).toEqual([12]);
  });

  it('answers an unknown lot with an empty list', async () => {
    const res = await t.app.inject({ url: '/product/?f_id=424242', headers: bearer(t.token) });
    expect(res.json()).toEqual({ ProductCount: 0, Products: [] });
  });

  it('wraps the response in a JSONP call with callback and rejects unsafe callback names', async () => {
    const res = await t.app.inject({ url: `/product/?f_id=${LOT_ID}&callback=showProducts`, headers: bearer(t.token) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/javascript/);
    expect(res.body.startsWith('/**/showProducts({"ProductCount":2')).toBe(true);
    const bad = await t.app.inject({ url: `/product/?f_id=${LOT_ID}&callback=alert(1)`, headers: bearer(t.token) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ ErrorCode: 1, parameter: 'callback' });
  });

  it('accepts the legacy pub_id + chk request: md5 of the sorted parameter values and the private key', async () => {
    // parameters other than pub_id/chk/callback sorted by name: duration, entry_dt, f_id
    const chk = createHash('md5').update(`60|2026-11-24T08:00|${LOT_ID}|acme-private-key`).digest('hex');
    expect(
      computeChk(
        { f_id: String(LOT_ID), entry_dt: '2026-11-24T08:00', duration: '60', pub_id: 'acme' },
        'acme-private-key',
      ),
    ).toBe(chk);
    const ok = await t.app.inject({
      url: `/product/?f_id=${LOT_ID}&entry_dt=2026-11-24T08:00&duration=60&pub_id=acme&chk=${chk}`,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().ProductCount).toBe(2);
    const tampered = await t.app.inject({
      url: `/product/?f_id=${LOT_ID}&entry_dt=2026-11-24T08:00&duration=120&pub_id=acme&chk=${chk}`,
    });
    expect(tampered.statusCode).toBe(401);
    expect(tampered.json().code).toBe('PARKING_CHK_INVALID');
    const pt = Math.floor(NOW_MS / 1000);
    const withPt = createHash('md5').update(`${LOT_ID}|${pt}|acme-private-key`).digest('hex');
    expect(
      (await t.app.inject({ url: `/product/?f_id=${LOT_ID}&pt=${pt}&pub_id=acme&chk=${withPt}` })).statusCode,
    ).toBe(200);
    const stalePt = pt - 3600;
    const stale = createHash('md5').update(`${LOT_ID}|${stalePt}|acme-private-key`).digest('hex');
    expect(
      (await t.app.inject({ url: `/product/?f_id=${LOT_ID}&pt=${stalePt}&pub_id=acme&chk=${stale}` })).statusCode,
    ).toBe(401);
  });

  it('requires credentials and one of f_id / lot, and rejects unknown parameters', async () => {
    expect((await t.app.inject({ url: `/product/?f_id=${LOT_ID}` })).statusCode).toBe(401);
    const none = await t.app.inject({ url: '/product/', headers: bearer(t.token) });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ ErrorCode: 1, parameter: 'f_id' });
    const both = await t.app.inject({
      url: `/product/?f_id=${LOT_ID}&lot=${allDayLotUuid()}`,
      headers: bearer(t.token),
    });
    expect(both.json().parameter).toBe('lot');
    const unknown = await t.app.inject({ url: `/product/?f_id=${LOT_ID}&colour=red`, headers: bearer(t.token) });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().parameter).toBe('colour');
    const badDuration = await t.app.inject({
      url: `/product/?f_id=${LOT_ID}&entry_dt=2026-11-24T08:00&duration=60|x`,
      headers: bearer(t.token),
    });
    expect(badDuration.json().parameter).toBe('duration');
    const badEntry = await t.app.inject({
      url: `/product/?f_id=${LOT_ID}&entry_dt=tomorrow`,
      headers: bearer(t.token),
    });
    expect(badEntry.json().parameter).toBe('entry_dt');
  });

  it('compresses with gzip and deflate when asked', async () => {
    const url = `/product/?f_id=${LOT_ID}&duration=${Array.from({ length: 12 }, (_, i) => 30 * (i + 1)).join('|')}`;
    const plain = await t.app.inject({ url, headers: bearer(t.token) });
    expect(plain.body.length).toBeGreaterThan(1024);
    const gz = await t.app.inject({ url, headers: { ...bearer(t.token), 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString('utf8'))).toEqual(plain.json());
    const df = await t.app.inject({ url, headers: { ...bearer(t.token), 'accept-encoding': 'deflate' } });
    expect(df.headers['content-encoding']).toBe('deflate');
    expect(JSON.parse(inflateSync(df.rawPayload).toString('utf8'))).toEqual(plain.json());
  });
});

function allDayLotUuid(): string {
  return lotUuidOf(LOT_ID); // no pk_lot in the upload: derived from the lot id
}

describe('admin API of products', () => {
  const adminPut = (token: string, body: unknown) =>
    t.app.inject({
      method: 'PUT',
      url: '/v1/admin/parking/products',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: body as object,
    });
  const valet = {
    pk_reservation_product: '33333333-3333-4333-8333-333333333333',
    f_id: 9002,
    name: 'Valet',
    rates: [{ duration: 180, rate: 25 }],
    capacity: 4,
    tz: 'America/New_York',
    lot_name: 'Pier Valet',
  };

  it('adds a product with an admin token, refuses other callers, names bad fields, and withdraws it', async () => {
    expect((await adminPut(t.token, { products: [valet] })).statusCode).toBe(403);
    expect(
      (await t.app.inject({ method: 'PUT', url: '/v1/admin/parking/products', payload: { products: [valet] } }))
        .statusCode,
    ).toBe(401);
    const bad = await adminPut(t.adminToken, { products: [{ ...valet, rates: [] }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().parameter).toBe('products[0].rates');
    const ok = await adminPut(t.adminToken, { products: [valet] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      ProductCount: 1,
      Products: [{ pk_reservation_product: valet.pk_reservation_product, rates: [25], durations: [180], f_id: 9002 }],
    });
    const listed = (await t.app.inject({ url: '/product/?f_id=9002', headers: bearer(t.token) })).json();
    expect(listed.ProductCount).toBe(1);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/v1/admin/parking/products/${valet.pk_reservation_product}`,
      headers: bearer(t.adminToken),
    });
    expect(del.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/product/?f_id=9002', headers: bearer(t.token) })).json().ProductCount).toBe(0);
    const reserveWithdrawn = await reserve({
      pk_reservation_product: valet.pk_reservation_product,
      entry_time: '2026-11-24T09:00',
      duration: '60',
      token: 'tok_visa',
    });
    expect(reserveWithdrawn.statusCode).toBe(404);
  });
});

describe('reservations: state machine', () => {
  it('Reserve creates and pays (status 1) with amounts = price + service fee, then Scan → 3, Redeem → 2, and a redeemed reservation cannot be cancelled', async () => {
    const res = await reserve({
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_ALL_DAY,
      entry_time: '2026-11-24T09:00',
      duration: '120',
      action: 'Reserve',
      token: 'tok_visa',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.ReservationCount).toBe(1);
    const r = body.Reservations[0];
    expect(r).toMatchObject({
      pk_reservation_status: 1,
      d_amount_quoted: 15.5,
      d_amount_paid: 15.5,
      d_amount_discounted: 0,
      pk_coupon: null,
      dt_scan_time: null,
      lot_name: 'Harbor Garage',
      lot_address: '100 Light St, Baltimore, MD 21202',
    });
    // 09:00 New York (UTC−5) → 14:00Z
    expect(r.dt_start_time).toBe('2026-11-24T14:00:00Z');
    expect(r.dt_end_time).toBe('2026-11-24T16:00:00Z');
    expect(r.str_reservation_code).toMatch(/^[A-Z2-9]{5}$/);
    // what POST answered is what the database holds
    expect(
      (await t.app.inject({ url: `/reservation/${r.pk_reservation}`, headers: bearer(t.token) })).json()
        .Reservations[0],
    ).toEqual(r);
    const put = (action: string) =>
      t.app.inject({
        method: 'PUT',
        url: `/reservation/${r.pk_reservation}`,
        headers: { ...bearer(t.token), ...FORM },
        payload: form({ action }),
      });
    const scanned = await put('Scan');
    expect(scanned.json().Reservations[0]).toMatchObject({
      pk_reservation_status: 3,
      dt_scan_time: '2026-11-23T12:00:00Z',
    });
    expect((await put('Redeem')).json().Reservations[0].pk_reservation_status).toBe(2);
    const cancel = await put('Cancel');
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json()).toMatchObject({ code: 'PARKING_TRANSITION_INVALID', ErrorCode: -1 });
    expect((await put('Redeem')).statusCode).toBe(409);
  });

  it('Cancel of a reserved stay refunds it; a cancelled reservation accepts no action', async () => {
    const r = (
      await reserve({
        f_id: String(LOT_ID),
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-11-24T12:00',
        duration: '60',
        token: 'tok_visa',
      })
    ).json().Reservations[0];
    const put = (action: string) =>
      t.app.inject({
        method: 'PUT',
        url: `/reservation/${r.pk_reservation}`,
        headers: { ...bearer(t.token), 'content-type': 'application/json' },
        payload: { action },
      });
    const cancelled = (await put('Cancel')).json().Reservations[0];
    expect(cancelled).toMatchObject({ pk_reservation_status: 4, d_amount_paid: 9.5, d_amount_refunded: 9.5 });
    for (const action of ['Cancel', 'Scan', 'Redeem']) expect((await put(action)).statusCode).toBe(409);
  });

  it('without a payment POST gives a quote (status 0, holds no space); Reserve on it pays; an expired quote cannot be reserved', async () => {
    const quote = (
      await reserve({
        f_id: String(LOT_ID),
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-11-25T09:00',
        duration: '60',
      })
    ).json().Reservations[0];
    expect(quote).toMatchObject({ pk_reservation_status: 0, d_amount_quoted: 9.5, d_amount_paid: 0 });
    expect(quote.dt_expiration_date).toBe('2026-11-23T12:15:00Z');
    const scan = await t.app.inject({
      method: 'PUT',
      url: `/reservation/${quote.pk_reservation}`,
      headers: { ...bearer(t.token), ...FORM },
      payload: form({ action: 'Scan' }),
    });
    expect(scan.statusCode).toBe(409);
    const paid = await t.app.inject({
      method: 'PUT',
      url: `/reservation/${quote.pk_reservation}`,
      headers: { ...bearer(t.token), ...FORM },
      payload: form({ action: 'Reserve', token: 'tok_mastercard' }),
    });
    expect(paid.json().Reservations[0]).toMatchObject({
      pk_reservation_status: 1,
      d_amount_paid: 9.5,
      card_last4: '4444',
    });
    const late = (
      await reserve({
        f_id: String(LOT_ID),
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-11-25T09:00',
        duration: '60',
        action: 'Quote',
      })
    ).json().Reservations[0];
    clock = NOW_MS + 16 * 60_000;
    try {
      const got = (await t.app.inject({ url: `/reservation/${late.pk_reservation}`, headers: bearer(t.token) })).json()
        .Reservations[0];
      expect(got.pk_reservation_status).toBe(5);
      const res = await reserve({ pk_reservation: late.pk_reservation, action: 'Reserve', token: 'tok_visa' });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('PARKING_QUOTE_EXPIRED');
    } finally {
      clock = NOW_MS;
    }
  });

  it('a reserved stay never scanned nor redeemed by its end reads as expired (5) and accepts no action', async () => {
    const r = (
      await reserve({
        f_id: String(LOT_ID),
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-11-23T08:00',
        duration: '60',
        token: 'tok_visa',
      })
    ).json().Reservations[0];
    expect(r.pk_reservation_status).toBe(1);
    // the stay ends 09:00 New York = 14:00Z
    clock = Date.UTC(2026, 10, 23, 14, 1);
    try {
      expect(
        (await t.app.inject({ url: `/reservation/${r.pk_reservation}`, headers: bearer(t.token) })).json()
          .Reservations[0].pk_reservation_status,
      ).toBe(5);
      const redeem = await t.app.inject({
        method: 'PUT',
        url: `/reservation/${r.pk_reservation}`,
        headers: { ...bearer(t.token), ...FORM },
        payload: form({ action: 'Redeem' }),
      });
      expect(redeem.statusCode).toBe(409);
      expect(redeem.json().code).toBe('PARKING_TRANSITION_INVALID');
    } finally {
      clock = NOW_MS;
    }
  });

  it('answers in XML when Accept (or Accepts) asks for application/xml', async () => {
    const res = await reserve(
      {
        f_id: String(LOT_ID),
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-11-27T09:00',
        duration: '60',
        token: 'tok_visa',
      },
      { accepts: 'application/xml' },
    );
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    const doc = new XMLParser().parse(res.body);
    expect(doc.ReservationResponse.ReservationCount).toBe(1);
    expect(doc.ReservationResponse.Reservations.Reservation.pk_reservation_status).toBe(1);
    expect(doc.ReservationResponse.Reservations.Reservation.d_amount_paid).toBe(9.5);
    const err = await t.app.inject({
      url: '/reservation/not-a-uuid',
      headers: { ...bearer(t.token), accept: 'application/xml' },
    });
    expect(err.statusCode).toBe(400);
    expect(new XMLParser().parse(err.body).Error.ErrorCode).toBe(1);
  });

  it('refuses stays the product does not offer, declined cards, and missing required fields', async () => {
    const outside = await reserve({
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_EARLY_BIRD,
      entry_time: '2026-11-24T10:00',
      duration: '120',
      token: 'tok_visa',
      phone: '5551234',
      str_license_plate: 'ABC123',
    });
    expect(outside.statusCode).toBe(409);
    expect(outside.json().code).toBe('PARKING_PRODUCT_UNAVAILABLE');
    const noPhone = await reserve({
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_EARLY_BIRD,
      entry_time: '2026-11-24T06:00',
      duration: '300',
      token: 'tok_visa',
    });
    expect(noPhone.statusCode).toBe(400);
    expect(noPhone.json()).toMatchObject({ code: 'PARKING_FIELD_REQUIRED', parameter: 'phone' });
    const before = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pk_reservation');
    const declined = await reserve({
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_ALL_DAY,
      entry_time: '2026-11-24T09:00',
      duration: '60',
      token: 'tok_chargeDeclined',
    });
    expect(declined.statusCode).toBe(402);
    expect(declined.json().code).toBe('PARKING_PAYMENT_DECLINED');
    const card = await reserve({
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_ALL_DAY,
      entry_time: '2026-11-24T09:00',
      duration: '60',
      'card-number': '4000000000000002',
      'card-expiry': '12/30',
      'card-cvc': '123',
    });
    expect(card.statusCode).toBe(402);
    const after = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pk_reservation');
    expect(after.rows[0].n).toBe(before.rows[0].n);
    const wrongLot = await reserve({
      f_id: '1',
      pk_reservation_product: PRODUCT_ALL_DAY,
      entry_time: '2026-11-24T09:00',
      duration: '60',
      token: 'tok_visa',
    });
    expect(wrongLot.json().parameter).toBe('f_id');
    const two = await reserve({
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_ALL_DAY,
      entry_time: '2026-11-24T09:00',
      duration: '60|120',
      token: 'tok_visa',
    });
    expect(two.json().parameter).toBe('duration');
    const cardInUrl = await t.app.inject({
      method: 'POST',
      url: '/reservation/?card-number=4242424242424242',
      headers: { ...bearer(t.token), ...FORM },
      payload: form({ pk_reservation_product: PRODUCT_ALL_DAY }),
    });
    expect(cardInUrl.statusCode).toBe(400);
  });

  it('a paid card reservation stores only the last four digits', async () => {
    const res = await reserve({
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_ALL_DAY,
      entry_time: '2026-11-28T09:00',
      duration: '60',
      'card-number': '4242 4242 4242 4242',
      card_expiry_month: '12',
      card_expiry_year: '2030',
      'card-cvc': '123',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().Reservations[0].card_last4).toBe('4242');
    const dump = await t.ctx.db.query('SELECT * FROM pk_reservation');
    expect(JSON.stringify(dump.rows)).not.toContain('4242424242424242');
    expect(JSON.stringify(dump.rows)).not.toMatch(/"123"/);
  });
});

describe('reservations: JSON bodies and OpenAPI', () => {
  it('accepts a JSON body with numbers and documents the routes in /openapi.json', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/reservation/',
      headers: { ...bearer(t.token), 'content-type': 'application/json' },
      payload: {
        f_id: LOT_ID,
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-12-02T09:00',
        duration: 60,
        token: 'tok_visa',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().Reservations[0].d_amount_paid).toBe(9.5);
    const arrayBody = await t.app.inject({
      method: 'POST',
      url: '/reservation/',
      headers: { ...bearer(t.token), 'content-type': 'application/json' },
      payload: [1, 2],
    });
    expect(arrayBody.statusCode).toBe(400);
    expect(arrayBody.json().ErrorCode).toBe(1);
    // the plugin alone under swagger (the whole document depends on every service's schemas)
    const solo = Fastify();
    await solo.register(swagger, { openapi: OPENAPI_DOCUMENT });
    await solo.register(reservationsPlugin, { ctx: t.ctx });
    await solo.ready();
    const doc = solo.swagger() as { paths: Record<string, { get: { parameters: Array<{ name: string }> } }> };
    await solo.close();
    for (const path of [
      '/product/',
      '/reservation/',
      '/reservation/{reservationId}',
      '/user/',
      '/user/{userId}/lots/',
      '/USS',
    ])
      expect(Object.keys(doc.paths)).toContain(path);
    expect(doc.paths['/product/'].get.parameters.map((p) => p.name)).toContain('chk');
  });
});

describe('reservations: idempotency and visibility', () => {
  it('a retried POST with the same Idempotency-Key creates one reservation; a different request with that key is refused', async () => {
    const fields = {
      f_id: String(LOT_ID),
      pk_reservation_product: PRODUCT_ALL_DAY,
      entry_time: '2026-11-30T09:00',
      duration: '60',
      token: 'tok_visa',
    };
    const first = await reserve(fields, { 'idempotency-key': 'order-77' });
    const again = await reserve(fields, { 'idempotency-key': 'order-77' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().Reservations[0].pk_reservation).toBe(first.json().Reservations[0].pk_reservation);
    const viaBody = await reserve({ ...fields, idempotency_key: 'order-77' });
    expect(viaBody.json().Reservations[0].pk_reservation).toBe(first.json().Reservations[0].pk_reservation);
    const n = await t.ctx.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pk_reservation WHERE idempotency_key = 'order-77'",
    );
    expect(n.rows[0].n).toBe(1);
    const different = await reserve({ ...fields, duration: '120' }, { 'idempotency-key': 'order-77' });
    expect(different.statusCode).toBe(409);
    expect(different.json().code).toBe('PARKING_IDEMPOTENCY_CONFLICT');
  });

  it('lists and returns only what the caller may see; admin apps see everything', async () => {
    const mine = (
      await reserve({
        f_id: String(LOT_ID),
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-12-01T09:00',
        duration: '60',
        token: 'tok_visa',
      })
    ).json().Reservations[0];
    const email = 'visitor@example.com';
    await t.app.inject({
      method: 'POST',
      url: '/user/',
      headers: FORM,
      payload: form({ email, password: 'correct horse', pub_id: 'acme', source: 'test' }),
    });
    const basic = { authorization: `Basic ${Buffer.from(`${email}:correct horse`).toString('base64')}` };
    const hidden = await t.app.inject({ url: `/reservation/${mine.pk_reservation}`, headers: basic });
    expect(hidden.statusCode).toBe(404);
    expect((await t.app.inject({ url: '/reservation/', headers: basic })).json().ReservationCount).toBe(0);
    const listed = (await t.app.inject({ url: '/reservation/', headers: bearer(t.token) })).json();
    expect(listed.Reservations.map((r: { pk_reservation: string }) => r.pk_reservation)).toContain(mine.pk_reservation);
    expect(
      (await t.app.inject({ url: `/reservation/${mine.pk_reservation}`, headers: bearer(t.adminToken) })).statusCode,
    ).toBe(200);
    const noAuth = await t.app.inject({ url: '/reservation/' });
    expect(noAuth.statusCode).toBe(401);
    expect(noAuth.json().ErrorCode).toBe(3);
    // a plain user cannot Scan (gate stations and staff only)
    const own = (
      await t.app.inject({
        method: 'POST',
        url: '/reservation/',
        headers: { ...basic, ...FORM },
        payload: form({
          f_id: String(LOT_ID),
          pk_reservation_product: PRODUCT_ALL_DAY,
          entry_time: '2026-12-01T10:00',
          duration: '60',
          token: 'tok_visa',
        }),
      })
    ).json().Reservations[0];
    expect(own.first_name).toBe('');
    const scan = await t.app.inject({
      method: 'PUT',
      url: `/reservation/${own.pk_reservation}`,
      headers: { ...basic, ...FORM },
      payload: form({ action: 'Scan' }),
    });
    expect(scan.statusCode).toBe(403);
    const redeem = await t.app.inject({
      method: 'PUT',
      url: `/reservation/${own.pk_reservation}`,
      headers: { ...basic, ...FORM },
      payload: form({ action: 'Redeem' }),
    });
    expect(redeem.json().Reservations[0].pk_reservation_status).toBe(2);
  });
});
