import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { createApp, hashTokenFor, setAppStatus } from '../../src/auth/index.js';
import { redactUrl } from '../../src/http/request-log.js';

describe('platform HTTP', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await makeTestContext();
  });
  afterAll(async () => t.close());

  it('issues an app token for the right hashToken, in the reference JSON shape', async () => {
    const res = await t.app.inject({
      url: `/v1/AppToken?appId=${t.appId}&hashToken=${hashTokenFor(t.appId, t.appKey)}`,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['copyright', 'createdDate', 'responseId', 'result', 'versionNumber']);
    expect(body.result.token.split('.')).toHaveLength(3);
    expect(Date.parse(body.result.expiry) - Date.parse(body.createdDate)).toBeGreaterThanOrEqual(86399_000);
    expect((await t.ctx.auth.verifyAppToken(body.result.token)).appId).toBe(t.appId);
  });

  it('answers the lower-case path and XML on request', async () => {
    const res = await t.app.inject({
      url: `/v1/appToken?appId=${t.appId}&hashToken=${hashTokenFor(t.appId, t.appKey)}`,
      headers: { accept: 'application/xml' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/xml/);
    expect(res.body).toMatch(/<AppTokenResponse [^>]*copyright=.*<Token>[\w-]+\.[\w-]+\.[\w-]+<\/Token><Expiry>/);
  });

  it('gives 400 for a missing parameter and 403 for a wrong hash', async () => {
    const missing = await t.app.inject({ url: `/v1/AppToken?appId=${t.appId}` });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ error: { statusId: 41, userMessage: 'Missing parameter: hashToken' } });
    const wrong = await t.app.inject({ url: `/v1/AppToken?appId=${t.appId}&hashToken=${'0'.repeat(40)}` });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.statusId).toBe(26);
    expect(wrong.json().error.userMessage).toMatch(
      /^User Authentication Failed: unknown appId or wrong hashToken \(hashToken = lower-case hex SHA-1/,
    );
  });

  it('tells a disabled application from a wrong hashToken (only to a caller with the right hash)', async () => {
    const app = await createApp(t.ctx.db, { name: 'to disable' });
    await setAppStatus(t.ctx.db, app.appId, 0);
    const disabled = await t.app.inject({
      url: `/v1/AppToken?appId=${app.appId}&hashToken=${hashTokenFor(app.appId, app.appKey)}`,
    });
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json().error).toMatchObject({ statusId: 26 });
    expect(disabled.json().error.userMessage).toMatch(/^User Authentication Failed: this application is disabled/);
    const wrong = await t.app.inject({ url: `/v1/AppToken?appId=${app.appId}&hashToken=${'0'.repeat(40)}` });
    expect(wrong.json().error.userMessage).toMatch(/unknown appId or wrong hashToken/);
  });

  it('hints at swapped coordinates when a waypoint lies outside the region but its swap inside', async () => {
    const tokenRes = await t.app.inject({
      url: `/v1/AppToken?appId=${t.appId}&hashToken=${hashTokenFor(t.appId, t.appKey)}`,
    });
    const token = tokenRes.json().result.token;
    const r = await t.app.inject({
      url: `/traffic/api.ashx?Action=FindRoute&Format=JSON&Token=${token}&WP_1=-76.6095,39.2901&WP_2=39.2918,-76.6078`,
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().statusId).toBe(121);
    expect(r.json().statusDetail).toMatch(
      /WP_1=-76\.6095,39\.2901 is outside the region but 39\.2901,-76\.6095 is inside: waypoints are latitude,longitude/,
    );
    const far = await t.app.inject({
      url: `/traffic/api.ashx?Action=FindRoute&Format=JSON&Token=${token}&WP_1=10,10&WP_2=39.2918,-76.6078`,
    });
    expect(far.json().statusDetail).not.toMatch(/swapped/);
  });

  it('serves health, metrics, OpenAPI and docs', async () => {
    const h = await t.app.inject({ url: '/healthz' });
    expect(h.json()).toMatchObject({ status: 'ok', region: 'tiny', nodes: 9, edges: 24 });
    const m = await t.app.inject({ url: '/metrics' });
    expect(m.body).toContain('streetwise_http_requests_total');
    const o = await t.app.inject({ url: '/openapi.json' });
    expect(o.json().paths['/v1/AppToken']).toBeDefined();
    const d = await t.app.inject({ url: '/docs/' });
    expect(d.statusCode).toBe(200);
  });

  it('compresses large responses with gzip and echoes a request id', async () => {
    const res = await t.app.inject({
      url: '/docs/static/swagger-ui.css',
      headers: { 'accept-encoding': 'gzip', 'x-request-id': 'abc-123' },
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await t.app.inject({ url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.userMessage).toContain('/nope');
  });

  it('redacts secrets from logged URLs', () => {
    expect(redactUrl('/traffic/x.ashx?Action=FindRoute&Token=abc&WP_1=1,2')).toBe(
      '/traffic/x.ashx?Action=FindRoute&Token=***&WP_1=1,2',
    );
    expect(redactUrl('/v1/AppToken?appId=a&hashToken=b')).toBe('/v1/AppToken?appId=a&hashToken=***');
    // an allowlist: names nobody listed are hidden too, and so are names that look like data
    expect(redactUrl('/user/?pass=p1&pwd=p2&cardNumber=4000&point=1|2')).toBe(
      '/user/?pass=***&pwd=***&cardNumber=***&point=1|2',
    );
    expect(redactUrl('/lots?WP_1description=home&wp_2=1,2&4000777319552134')).toBe(
      '/lots?WP_1description=***&wp_2=1,2&***=***',
    );
    expect(redactUrl('/lots?')).toBe('/lots');
  });
});

describe('bytes that are not HTTP', () => {
  it("are answered 400 in the platform error shape (never Node's default body), headers too large 431", async () => {
    const t = await makeTestContext();
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as { port: number }).port;
      const { connect } = await import('node:net');
      const send = (bytes: string): Promise<string> =>
        new Promise((resolve, reject) => {
          const s = connect({ port, host: '127.0.0.1' }, () => s.write(bytes));
          let out = '';
          s.on('data', (d) => (out += d));
          s.on('end', () => resolve(out));
          s.on('error', reject);
        });
      const garbage = await send('HELLO THERE\r\n\r\n');
      expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(garbage.split('\r\n\r\n')[1])).toEqual({
        error: { statusId: 400, userMessage: 'the request is not well-formed HTTP/1.1' },
      });
      const huge = await send(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(huge).toMatch(/^HTTP\/1\.1 431 /);
      expect(JSON.parse(huge.split('\r\n\r\n')[1]).error.statusId).toBe(431);
    } finally {
      await t.close();
    }
  });
});
