/**
 * The HTTP edge answers framework-level problems in each API's own shape: an empty JSON body where
 * an operation takes none is no body; invalid JSON, a wrong Content-Type, a bad URL are 4xx with
 * our message and never the framework's error codes; reservation fields may all come in the query
 * string and a missing one is named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { makeTestContext, type TestContext } from '../helpers/context.js';

let t: TestContext;
beforeAll(async () => {
  t = await makeTestContext();
});
afterAll(async () => t.close());

describe('edge errors', () => {
  it('DELETE /v1/namespace/{ns} with Content-Type: application/json and no body deletes the namespace', async () => {
    const auth = { authorization: `Bearer ${t.token}` };
    const made = await t.app.inject({
      method: 'PATCH',
      url: '/v1/namespace/ops-east',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ provisioned: { add: [] } }),
    });
    expect(made.statusCode, made.body).toBe(200);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/v1/namespace/ops-east',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(del.statusCode, del.body).toBe(200);
    const again = await t.app.inject({
      method: 'DELETE',
      url: '/v1/namespace/ops-east',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({
      status: 404,
      error: 'Not Found',
      code: 'ANALYTICS_NAMESPACE_NOT_FOUND',
      path: '/v1/namespace/ops-east',
    });
  });

  it("answers invalid JSON, a wrong Content-Type and a bad URL in the owning API's shape, without framework codes", async () => {
    const auth = { authorization: `Bearer ${t.token}` };
    const json = await t.app.inject({
      method: 'POST',
      url: '/v1/metrics/intersections',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"dateRanges":',
    });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({
      status: 400,
      error: 'Bad Request',
      message: 'body: not valid JSON',
      path: '/v1/metrics/intersections',
    });
    const type = await t.app.inject({
      method: 'POST',
      url: '/reservation/',
      headers: { ...auth, 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(type.statusCode).toBe(400);
    expect(type.json()).toMatchObject({ ErrorCode: 1, code: 'PARKING_PARAM_INVALID', parameter: 'Content-Type' });
    const url = await t.app.inject({ method: 'GET', url: '/reservation/%zz', headers: auth });
    expect(url.statusCode).toBe(400);
    expect(url.json()).toMatchObject({ ErrorCode: 1, code: 'PARKING_PARAM_INVALID', parameter: 'path' });
    const long = await t.app.inject({ method: 'DELETE', url: `/v1/namespace/${'n'.repeat(200)}`, headers: auth });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toMatchObject({ status: 414, error: 'URI Too Long' });
    const nul = await t.app.inject({ method: 'GET', url: '/lots?point=39.29%7C-76.61&operator=a%00b', headers: auth });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toMatchObject({ code: 'PARKING_PARAM_INVALID', parameter: 'operator' });
    for (const r of [json, type, url, long, nul]) expect(r.body).not.toMatch(/FST_/);
  });

  it('POST /reservation/ with every field in the query string names what is missing instead of "body must be object"', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/reservation/?entry_time=2026-12-01T09:00&duration=60',
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      ErrorCode: 1,
      code: 'PARKING_PARAM_MISSING',
      parameter: 'pk_reservation_product',
    });
    const card = await t.app.inject({
      method: 'POST',
      url: '/reservation/?cardNumber=4000777319552134',
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(card.json()).toMatchObject({
      parameter: 'cardNumber',
      ErrorDescription: expect.stringContaining('request body, never in the URL'),
    });
  });
});

describe('docs', () => {
  const files = [
    'README.md',
    ...readdirSync('docs', { recursive: true })
      .map((f) => `docs/${String(f)}`)
      .filter((f) => f.endsWith('.md')),
  ];
  it('describe the system, not its history, and point at nothing outside the repository but the test extracts', () => {
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toMatch(/\bsessions?\b/i);
      expect(text, f).not.toMatch(/shared\/(spec|reference)|shared\/DESIGN|an earlier run/i);
    }
  });
});
