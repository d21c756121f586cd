/**
 * No secret reaches the log or the database: every operation (and the hidden spellings of its
 * path) is called with a distinctive secret under ~30 plausible names in the query string, a form
 * body, a JSON body and headers, plus the legitimate flows that do take secrets (registering with a
 * password, Basic login, paying with a card number, getting an app token); then the captured log
 * and every row of every table are searched for the secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashTokenFor } from '../../src/auth/index.js';
import { loadParkingFile } from '../../src/parking/reservations/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { fixtureFile, NOW_MS, PRODUCT_ALL_DAY } from '../parking/reservations-fixtures.js';

/** A string that appears nowhere unless something copied it. */
const SECRET = 'Zq7-SECRET-v9Kx3mW2';

/** A Luhn-valid card number (the test processor accepts it), as distinctive as the secret. */
function luhnCard(prefix: string): string {
  for (let d = 0; d <= 9; d++) {
    const n = prefix + d;
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let v = n.charCodeAt(n.length - 1 - i) - 48;
      if (i % 2 === 1) {
        v *= 2;
        if (v > 9) v -= 9;
      }
      sum += v;
    }
    if (sum % 10 === 0) return n;
  }
  throw new Error('unreachable');
}
const CARD = luhnCard('400077731955213');

/** Names a client might put a secret under. */
const NAMES = [
  'password',
  'pass',
  'pwd',
  'passwd',
  'secret',
  'client_secret',
  'apiKey',
  'api_key',
  'appKey',
  'key',
  'token',
  'Token',
  'access_token',
  'accessToken',
  'hashToken',
  'auth',
  'authorization',
  'refresh_token',
  'session',
  'private_key',
  'pin',
  'ssn',
  'cardNumber',
  'card_number',
  'card-number',
  'card-cvc',
  'cvc',
  'cvv',
  'WP_1description',
];

describe('secrets never reach the log or the database', () => {
  let t: TestContext;
  const lines: string[] = [];
  let requests = 0;

  beforeAll(async () => {
    t = await makeTestContext({
      now: () => NOW_MS,
      logStream: {
        write: (line: string) => {
          lines.push(line);
        },
      },
      config: { 'server.logLevel': 'trace' },
    });
    await loadParkingFile(t.ctx.db, fixtureFile(10));
  });
  afterAll(async () => t?.close());

  async function send(
    method: string,
    url: string,
    headers: Record<string, string>,
    payload?: string,
  ): Promise<{ statusCode: number; body: string }> {
    requests++;
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    return { statusCode: res.statusCode, body: res.body };
  }

  it('logs and stores none of them', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const ops: Array<[string, string]> = [];
    for (const [path, methods] of Object.entries(doc.paths))
      for (const m of Object.keys(methods)) ops.push([m.toUpperCase(), path]);
    ops.push(['GET', '/Traffic/{handler}'], ['GET', '/v1/apptoken']);
    expect(ops.length).toBeGreaterThan(35);

    const query = [
      ...NAMES.map((n) => `${encodeURIComponent(n)}=${SECRET}`),
      `card=${CARD}`,
      `cardNumber=${CARD}`,
    ].join('&');
    const jsonBody = JSON.stringify(Object.fromEntries([...NAMES.map((n) => [n, SECRET]), ['card-number', CARD]]));
    const formBody = new URLSearchParams([
      ...NAMES.map((n): [string, string] => [n, SECRET]),
      ['card-number', CARD],
    ]).toString();
    const secretHeaders: Array<Record<string, string>> = [
      { authorization: `Bearer ${SECRET}` },
      { authorization: `Basic ${Buffer.from(`someone@example.org:${SECRET}`).toString('base64')}` },
      {
        'x-api-key': SECRET,
        'x-auth-token': SECRET,
        cookie: `session=${SECRET}; token=${SECRET}`,
        'proxy-authorization': `Basic ${SECRET}`,
        'x-access-token': SECRET,
      },
    ];
    for (const [method, path] of ops) {
      const url = path.replace('{handler}', 'api.ashx').replace(/\{\w+\}/g, '1');
      const admin = {
        authorization: `Bearer ${/^\/v1\/(admin|incidents|probes)/.test(path) ? t.adminToken : t.token}`,
      };
      const routing = /^\/traffic\//i.test(path) ? 'Action=FindRoute&WP_1=39.29,-76.61&WP_2=39.2918,-76.6077&' : '';
      await send(method, `${url}?${routing}${query}`, admin);
      await send(method, `${url}?${routing}${query}`, {});
      if (method !== 'GET') {
        await send(method, `${url}?${routing}`, { ...admin, 'content-type': 'application/json' }, jsonBody);
        await send(
          method,
          `${url}?${routing}`,
          { ...admin, 'content-type': 'application/x-www-form-urlencoded' },
          formBody,
        );
      }
      for (const h of secretHeaders) await send(method, `${url}?${routing}`, h);
    }

    // the legitimate flows that carry secrets succeed, and still leave no trace
    const register = await send(
      'POST',
      '/user/',
      { 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ email: 'driver@example.org', password: SECRET, pub_id: 'acme', source: 'app' }).toString(),
    );
    expect(register.statusCode, register.body).toBe(200);
    const basic = { authorization: `Basic ${Buffer.from(`driver@example.org:${SECRET}`).toString('base64')}` };
    expect((await send('GET', '/user/', basic)).statusCode).toBe(200);
    const card = await send(
      'PUT',
      '/user/',
      { ...basic, 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({
        'card-number': CARD,
        card_expiry_month: '12',
        card_expiry_year: '2030',
        'card-cvc': '737',
      }).toString(),
    );
    expect(card.statusCode, card.body).toBe(200);
    const paid = await send(
      'POST',
      '/reservation/',
      { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      JSON.stringify({
        pk_reservation_product: PRODUCT_ALL_DAY,
        entry_time: '2026-11-24T09:00',
        duration: 60,
        'card-number': CARD,
        card_expiry_month: '12',
        card_expiry_year: '2030',
        'card-cvc': '737',
      }),
    );
    expect(paid.statusCode, paid.body).toBe(200);
    const app = await send('GET', `/v1/AppToken?appId=${t.appId}&hashToken=${hashTokenFor(t.appId, t.appKey)}`, {});
    expect(app.statusCode).toBe(200);
    const appToken = (JSON.parse(app.body) as { result: { token: string } }).result.token;
    expect((await send('GET', `/lots?point=39.29|-76.61&accesstoken=${appToken}`, {})).statusCode).toBe(200);
    expect(
      (
        await send(
          'GET',
          `/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=39.29,-76.61&WP_2=39.2918,-76.6077&Token=${appToken}`,
          {},
        )
      ).statusCode,
    ).toBe(200);

    // search the log and every row of every table
    const log = lines.join('');
    const tables = (
      await t.ctx.db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
      )
    ).rows.map((r) => r.table_name);
    expect(tables.length).toBeGreaterThan(10);
    let rows = 0;
    const dbHits: string[] = [];
    for (const table of tables) {
      const res = await t.ctx.db.query<{ row: string }>(`SELECT t::text AS row FROM "${table}" t`);
      rows += res.rows.length;
      for (const r of res.rows)
        for (const s of [SECRET, CARD, t.appKey])
          if (r.row.includes(s)) dbHits.push(`${table}: ${r.row.slice(0, 160)}`);
    }
    const forms = [
      SECRET,
      CARD,
      encodeURIComponent(SECRET),
      Buffer.from(`someone@example.org:${SECRET}`).toString('base64'),
      hashTokenFor(t.appId, t.appKey),
      appToken,
      t.token,
      t.adminToken,
    ];
    const logHits = forms.filter((s) => log.includes(s));
    console.log(
      `secrets: ${requests} requests sent over ${ops.length} operations, ${lines.length} log lines and ${rows} rows in ${tables.length} tables searched, ${logHits.length + dbHits.length} leaks`,
    );
    expect(lines.length).toBeGreaterThan(requests); // the log did capture the traffic
    expect(log).toContain('"url":"/user/?password=***');
    expect(logHits).toEqual([]);
    expect(dbHits).toEqual([]);
  });
});
