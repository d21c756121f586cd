import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import probesPlugin from '../../src/http/probes/plugin.js';
import { edgeGeometry } from '../../src/network/graph.js';

describe('POST /v1/probes', () => {
  let t: TestContext;
  const nowMs = Date.UTC(2026, 0, 5, 8, 10);
  beforeAll(async () => {
    t = await makeTestContext({ now: () => nowMs, ingestion: true });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Pings along the first edge of the test region with a real length, 1 per second. */
  function pingsAlongAnEdge(traceId: string) {
    const g = t.ctx.region.graph;
    let e = 0;
    while (e < g.edgeCount && g.edgeLengthM[e] < 60) e++;
    const geom = edgeGeometry(g, e);
    const [a, b] = [geom[0], geom[geom.length - 1]];
    const n = 6;
    return Array.from({ length: n }, (_, i) => {
      const f = 0.1 + (0.8 * i) / (n - 1);
      return {
        traceId,
        timestamp: nowMs / 1000 - 120 + i * 2,
        lat: a[0] + (b[0] - a[0]) * f,
        lon: a[1] + (b[1] - a[1]) * f,
      };
    });
  }

  it('rejects a request without a token (401) and a non-admin token (403) with the probes error shape', async () => {
    const r1 = await t.app.inject({ method: 'POST', url: '/v1/probes', payload: { pings: [] } });
    expect(r1.statusCode).toBe(401);
    expect(r1.json().error.code).toBe('PROBES_AUTH_MISSING');
    const r2 = await t.app.inject({
      method: 'POST',
      url: '/v1/probes',
      payload: { pings: [] },
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(r2.statusCode).toBe(403);
    expect(r2.json().error.code).toBe('PROBES_FORBIDDEN');
  });

  it('names the missing parameter when pings is absent', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/probes',
      payload: { points: [] },
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toMatchObject({
      code: 'PROBES_JSON_SHAPE',
      userMessage: expect.stringMatching(/no "pings" key/),
    });
  });

  it('stores, matches and reports malformed pings by index; a repeat inserts nothing', async () => {
    const pings: unknown[] = pingsAlongAnEdge('http-1');
    pings.splice(2, 0, { traceId: 'http-1', timestamp: 'soon', lat: 1, lon: 2 });
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/probes',
        payload: { pings },
        headers: { authorization: `Bearer ${t.adminToken}` },
      });
    const r = await send();
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ received: 7, inserted: 6, duplicates: 0, malformed: 1 });
    expect(body.issues).toEqual([{ index: 2, message: expect.stringMatching(/timestamp/) }]);
    expect(body.matched.trajectories).toBe(1);
    expect(body.matched.traversals).toBeGreaterThanOrEqual(1);
    expect(t.ctx.speeds.learnedEdgeCount).toBeGreaterThanOrEqual(1);
    const again = (await send()).json();
    expect(again).toMatchObject({ inserted: 0, duplicates: 6 });
  });

  it('is documented in the OpenAPI document (route schema with body, security and responses)', async () => {
    // Built with only this plugin so the check does not depend on other services' route schemas.
    const app = Fastify();
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: { title: 't', version: '0' },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      },
    });
    await app.register(probesPlugin, { ctx: t.ctx });
    await app.ready();
    const doc = app.swagger() as {
      paths: Record<
        string,
        {
          post: {
            requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
            security: unknown;
            responses: Record<string, unknown>;
          };
        }
      >;
    };
    const op = doc.paths['/v1/probes'].post;
    expect(op.requestBody.content['application/json'].schema.properties.pings).toBeDefined();
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403']));
    await app.close();
  });
});

describe('POST /v1/probes body types', () => {
  let t: TestContext;
  const nowMs = Date.UTC(2026, 0, 5, 8, 10);
  beforeAll(async () => {
    t = await makeTestContext({ now: () => nowMs, ingestion: true });
  });
  afterAll(async () => {
    await t.close();
  });
  const post = (contentType: string | undefined, payload: string, query = '') =>
    t.app.inject({
      method: 'POST',
      url: `/v1/probes${query}`,
      payload,
      headers: { authorization: `Bearer ${t.adminToken}`, ...(contentType ? { 'content-type': contentType } : {}) },
    });
  const t0 = nowMs / 1000 - 100;

  it('answers 415 naming the accepted types for another Content-Type', async () => {
    const r = await post('text/plain', 'trace_id,timestamp,lat,lon\n');
    expect(r.statusCode).toBe(415);
    expect(r.json().error).toMatchObject({ code: 'PROBES_UNSUPPORTED_TYPE', statusId: 415 });
    expect(r.json().error.userMessage).toMatch(/application\/json.*application\/x-ndjson.*text\/csv.*application\/xml/);
  });

  it('reads CSV with a speed column in m/s, and a bare speed column as km/h (as JSON pings)', async () => {
    const ok = await post(
      'text/csv',
      `vehicle_id,timestamp_iso_utc,latitude,longitude,speed_mps\nv1,${new Date(t0 * 1000).toISOString()},39.29,-76.61,10\n`,
    );
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ received: 1, inserted: 1, malformed: 0 });
    const bare = await post('text/csv', `trace_id,timestamp,lat,lon,speed\nv2,${t0},39.29,-76.61,10\n`);
    expect(bare.statusCode, bare.body).toBe(200);
    const stored = await t.ctx.db.query<{ speed_kph: number }>(
      "SELECT speed_kph FROM probe_pings WHERE trace_id = 'v2'",
    );
    expect(Number(stored.rows[0].speed_kph)).toBe(10);
    const missing = await post('text/csv', `trace_id;timestamp;lat;lon\nv2;${t0};39.29;-76.61\n`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.userMessage).toMatch(/splits columns on commas only/);
  });

  it('takes an explicit column mapping with units from the query', async () => {
    const csv = `v,ts,y,x,kmh\nv3,${t0 * 1000},39.29,-76.61,36\nv3,${(t0 + 5) * 1000},39.2901,-76.61,36\n`;
    const r = await post(
      'text/csv',
      csv,
      `?columns=${encodeURIComponent('trace=v,time=ts:ms,lat=y,lon=x,speed=kmh:kph')}`,
    );
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ received: 2, inserted: 2 });
    const stored = await t.ctx.db.query<{ t_s: number; speed_kph: number }>(
      "SELECT t_s, speed_kph FROM probe_pings WHERE trace_id = 'v3' ORDER BY t_s",
    );
    expect(stored.rows.map((x) => [Number(x.t_s), Number(x.speed_kph)])).toEqual([
      [t0, 36],
      [t0 + 5, 36],
    ]);
    const wrong = await post('application/x-ndjson', '{}', `?columns=${encodeURIComponent('trace=v')}`);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.userMessage).toMatch(/^columns/);
  });

  it('reads NDJSON, reporting malformed lines by number', async () => {
    const body = [
      JSON.stringify({ traceId: 'n1', timestamp: t0, lat: 39.29, lon: -76.61 }),
      'not json',
      JSON.stringify({ traceId: 'n1', timestamp: t0 + 3, lat: 39.2901, lon: -76.61 }),
    ].join('\n');
    const r = await post('application/x-ndjson', body);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ received: 3, inserted: 2, malformed: 1, issues: [{ line: 2 }] });
  });
});
