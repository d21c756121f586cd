/**
 * Users over HTTP: registration, Basic authentication, updates with payment data (token + last
 * four only), lots of a user, and the Users error codes (1 parameter, 3 credentials, 1004 email
 * exists, 1005 login error).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadParkingFile } from '../../src/parking/reservations/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { fixtureFile, LOT_ID, NOW_MS, PRODUCT_ALL_DAY } from './reservations-fixtures.js';

let t: TestContext;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (user: string, pw: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`,
});

beforeAll(async () => {
  t = await makeTestContext({ now: () => NOW_MS });
  await loadParkingFile(t.ctx.db, fixtureFile(10));
});
afterAll(async () => {
  await t.close();
});

const register = (fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: '/user/', headers: FORM, payload: form(fields) });

describe('users', () => {
  it('registers with form fields and answers the User response with the user at index 0', async () => {
    const res = await register({
      email: 'Ann@Example.com',
      password: 'pa55word!',
      pub_id: 'acme',
      source: 'ios',
      first_name: 'Ann',
      gender: 'female',
      birthday: '1990-04-01',
      str_license_plate: '7ABC123',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.UserCount).toBe(1);
    expect(body.Users[0]).toMatchObject({
      email: 'Ann@Example.com',
      username: 'Ann@Example.com',
      first_name: 'Ann',
      gender: 'female',
      is_active: true,
      is_staff: false,
      date_joined: '2026-11-23T12:00:00Z',
      last_login: null,
    });
    expect(body.Users[0].pk_user_profile).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(body)).not.toContain('pa55word');
    const row = await t.ctx.db.query<{ password_hash: string }>(
      "SELECT password_hash FROM pk_user WHERE email = 'Ann@Example.com'",
    );
    expect(row.rows[0].password_hash).toMatch(/^scrypt\$/);
  });

  it('refuses a second account with the same email (any case): ErrorCode 1004', async () => {
    const res = await register({ email: 'ann@example.COM', password: 'another-pass', pub_id: 'acme', source: 'web' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      ErrorCode: 1004,
      ErrorDescription: 'an account with this email already exists',
    });
  });

  it('names the missing or bad field with ErrorCode 1', async () => {
    for (const [fields, parameter] of [
      [{ email: 'b@example.com', password: 'pa55word!', source: 'web' }, 'pub_id'],
      [{ email: 'b@example.com', pub_id: 'acme', source: 'web' }, 'password'],
      [{ email: 'not-an-email', password: 'pa55word!', pub_id: 'acme', source: 'web' }, 'email'],
      [{ email: 'b@example.com', password: 'pa55word!', pub_id: 'acme', source: 'web', gender: 'other' }, 'gender'],
      [{ email: 'b@example.com', password: 'pa55word!', pub_id: 'acme', source: 'web', shoe_size: '44' }, 'shoe_size'],
    ] as Array<[Record<string, string>, string]>) {
      const res = await register(fields);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorCode: 1, parameter });
    }
  });

  it('authenticates with Basic credentials (1005 on a wrong password or unknown email, 3 without credentials)', async () => {
    const ok = await t.app.inject({ url: '/user/', headers: basic('ann@example.com', 'pa55word!') });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().Users[0]).toMatchObject({ email: 'Ann@Example.com', last_login: '2026-11-23T12:00:00Z' });
    const wrong = await t.app.inject({ url: '/user/', headers: basic('ann@example.com', 'nope-nope') });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().ErrorCode).toBe(1005);
    const unknown = await t.app.inject({ url: '/user/', headers: basic('nobody@example.com', 'pa55word!') });
    expect(unknown.json().ErrorCode).toBe(1005);
    const none = await t.app.inject({ url: '/user/' });
    expect(none.statusCode).toBe(401);
    expect(none.json().ErrorCode).toBe(3);
  });

  it('updates the profile and stores a card as processor token + last four digits, never the number or CVC', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/user/',
      headers: { ...basic('ann@example.com', 'pa55word!'), ...FORM },
      payload: form({
        'card-number': '4242424242424242',
        'card-expiry': '08/2031',
        'card-cvc': '321',
        phone: '+1 410 555 0100',
        str_postal_code1: '21202',
      }),
    });
    expect(res.statusCode).toBe(200);
    const u = res.json().Users[0];
    expect(u).toMatchObject({
      card_last4: '4242',
      card_expiry_month: 8,
      card_expiry_year: 2031,
      phone: '+1 410 555 0100',
      postal_code: '21202',
    });
    expect(JSON.stringify(res.json())).not.toContain('4242424242424242');
    const row = await t.ctx.db.query('SELECT * FROM pk_user');
    const dump = JSON.stringify(row.rows);
    expect(dump).not.toContain('4242424242424242');
    expect(dump).not.toContain('"321"');
    expect(dump).toMatch(/tok_test_ok_4242_/);
    const badCard = await t.app.inject({
      method: 'PUT',
      url: '/user/',
      headers: { ...basic('ann@example.com', 'pa55word!'), ...FORM },
      payload: form({ 'card-number': '4242424242424241', card_expiry_month: '1', card_expiry_year: '2031' }),
    });
    expect(badCard.json()).toMatchObject({ ErrorCode: 1, parameter: 'card-number' });
    const noExpiry = await t.app.inject({
      method: 'PUT',
      url: '/user/',
      headers: { ...basic('ann@example.com', 'pa55word!'), ...FORM },
      payload: form({ 'card-number': '4242424242424242' }),
    });
    expect(noExpiry.json().parameter).toBe('card_expiry_month');
    const viaToken = await t.app.inject({
      method: 'PUT',
      url: '/user/',
      headers: { ...basic('ann@example.com', 'pa55word!'), 'content-type': 'application/json' },
      payload: { token: 'tok_mastercard' },
    });
    expect(viaToken.json().Users[0].card_last4).toBe('4444');
  });

  it('reserves with the saved card and lists the lot among the user lots; other users may not see them', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/reservation/',
      headers: { ...basic('ann@example.com', 'pa55word!'), ...FORM },
      payload: form({
        f_id: String(LOT_ID),
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-11-24T09:00',
        duration: '60',
        action: 'Reserve',
      }),
    });
    expect(res.statusCode).toBe(200);
    const r = res.json().Reservations[0];
    expect(r).toMatchObject({ pk_reservation_status: 1, card_last4: '4444', first_name: 'Ann' });
    expect(res.json().Token).toMatch(/^[0-9a-f]{48}$/);
    const me = (await t.app.inject({ url: '/user/', headers: basic('ann@example.com', 'pa55word!') })).json().Users[0];
    const lots = await t.app.inject({
      url: `/user/${me.pk_user_profile}/lots/`,
      headers: basic('ann@example.com', 'pa55word!'),
    });
    expect(lots.json()).toEqual({
      LotCount: 1,
      Lots: [
        {
          f_id: LOT_ID,
          address: '100 Light St, Baltimore, MD 21202',
          pk_lot: r.pk_lot,
          name: 'Harbor Garage',
          point: [-76.6122, 39.2851],
        },
      ],
    });
    await register({ email: 'bob@example.com', password: 'bobs-password', pub_id: 'acme', source: 'web' });
    const other = await t.app.inject({
      url: `/user/${me.pk_user_profile}/lots/`,
      headers: basic('bob@example.com', 'bobs-password'),
    });
    expect(other.statusCode).toBe(403);
    const missing = await t.app.inject({
      url: '/user/00000000-0000-4000-8000-000000000000/lots/',
      headers: basic('bob@example.com', 'bobs-password'),
    });
    expect(missing.statusCode).toBe(404);
  });

  it('staff users (set by an admin app) see every reservation', async () => {
    const bob = (await t.app.inject({ url: '/user/', headers: basic('bob@example.com', 'bobs-password') })).json()
      .Users[0];
    expect(
      (await t.app.inject({ url: '/reservation/', headers: basic('bob@example.com', 'bobs-password') })).json()
        .ReservationCount,
    ).toBe(0);
    const forbidden = await t.app.inject({
      method: 'PUT',
      url: `/v1/admin/parking/users/${bob.pk_user_profile}`,
      headers: { authorization: `Bearer ${t.token}`, ...FORM },
      payload: form({ is_staff: 'true' }),
    });
    expect(forbidden.statusCode).toBe(403);
    const set = await t.app.inject({
      method: 'PUT',
      url: `/v1/admin/parking/users/${bob.pk_user_profile}`,
      headers: { authorization: `Bearer ${t.adminToken}`, ...FORM },
      payload: form({ is_staff: 'true' }),
    });
    expect(set.json().Users[0].is_staff).toBe(true);
    expect(
      (await t.app.inject({ url: '/reservation/', headers: basic('bob@example.com', 'bobs-password') })).json()
        .ReservationCount,
    ).toBe(1);
  });
});
