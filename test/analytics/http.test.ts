import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFacts, storeFacts } from '../../src/analytics/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { N } from './fixture.js';
import { buildStory, KEY_C, KEY_D, movementIdOf } from './story.js';

const { fx, trajectories } = buildStory();
const NOW = Date.parse('2027-02-01T12:00:00Z');
let t: TestContext;
let clock = NOW;

beforeAll(async () => {
  t = await makeTestContext({ region: fx.region, now: () => clock });
  await storeFacts(t.ctx.db, buildFacts(fx.region, trajectories), { mapVersion: '20261101' });
});
afterAll(async () => t?.close());

const auth = () => ({ authorization: `Bearer ${t.token}` });
const post = (url: string, payload: unknown, headers: Record<string, string> = auth()) =>
  t.app.inject({ method: 'POST', url, payload: payload as object, headers });

describe('auth', () => {
  const ops: Array<[string, string, unknown]> = [
    ['POST', '/v1/metrics/intersections', {}],
    ['POST', '/v1/metadata/intersections', {}],
    ['GET', '/v1/metrics/intersections/availability', undefined],
    ['DELETE', '/v1/namespace/x', undefined],
    ['PATCH', '/v1/namespace/x', {}],
    ['POST', '/v1/namespace/search', {}],
  ];
  for (const [method, url, payload] of ops) {
    it(`answers 401 with a body on ${method} ${url} without or with a bad token`, async () => {
      for (const headers of [{}, { authorization: 'Bearer not.a.jwt' }]) {
        const r = await t.app.inject({
          method: method as 'GET',
          url,
          headers,
          ...(payload ? { payload: payload as object } : {}),
        });
        expect(r.statusCode).toBe(401);
        expect(r.json()).toMatchObject({ status: 401, error: 'Unauthorized', path: url });
        expect(r.json().message).toBeTruthy();
      }
    });
  }
});

describe('OpenAPI', () => {
  it('documents the six analytics operations', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/metrics/intersections',
        '/v1/metadata/intersections',
        '/v1/metrics/intersections/availability',
        '/v1/namespace/{namespace}',
        '/v1/namespace/search',
      ]),
    );
    expect(Object.keys(doc.paths['/v1/namespace/{namespace}']).sort()).toEqual(['delete', 'patch']);
  });
});

describe('expired tokens', () => {
  it('answers 401 once the app token has expired', async () => {
    clock = NOW + 400 * 86_400_000;
    try {
      const r = await post('/v1/namespace/search', {});
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ status: 401, code: 'AUTH_TOKEN_EXPIRED' });
    } finally {
      clock = NOW;
    }
  });
});

describe('POST /v1/metrics/intersections', () => {
  it('answers 201 with the envelope and rows of strings', async () => {
    const r = await post('/v1/metrics/intersections', {
      dateRanges: [{ startDate: '2026-11-01', endDate: '2026-11-30' }],
      dimensions: [{ name: 'intersectionId' }, { name: 'hourOfDay' }],
      metrics: [{ name: 'totalVehicleCount' }, { name: 'avgControlDelay' }, { name: 'LOS' }],
      orderBys: [{ name: 'hourOfDay', sortOrder: 'ASCENDING' }],
    });
    expect(r.statusCode).toBe(201);
    const b = r.json();
    expect(b.createdDate).toBe('2027-02-01T12:00:00Z');
    expect(b.responseId).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.data.columnHeader.dimensionHeaderEntries).toEqual([
      { name: 'intersectionId', type: 'STRING' },
      { name: 'hourOfDay', type: 'INTEGER' },
    ]);
    // 08h: A 40, B 0, F 0 → 13.33 (B); 09h: C 20 (B); 17h: D 200 (F) — plus 0.31 s for each of the two
    // turning vehicles, whose free flow is the arc's, 3.11 m shorter than the legs they drove
    expect(b.data.rows).toEqual([
      [KEY_C, '8', '3', '13.44', 'B'],
      [KEY_C, '9', '1', '20', 'B'],
      [KEY_C, '17', '1', '200.31', 'F'],
    ]);
    expect(b.data.nextCursor).toEqual({});
  });

  it('answers 400 naming the parameter', async () => {
    const r = await post('/v1/metrics/intersections', {
      dateRanges: [{ startDate: '2026-11-01', endDate: '2026-11-30' }],
      dimensions: [{ name: 'colour' }],
      metrics: [{ name: 'totalVehicleCount' }],
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request', code: 'ANALYTICS_INVALID_PARAMETER' });
    expect(r.json().message).toMatch(/^dimensions\[0\]\.name/);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/metrics/intersections',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '{oops',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().status).toBe(400);
  });
});

describe('POST /v1/metadata/intersections', () => {
  it('lists intersections with rank-1 movements and no U-turns by default', async () => {
    const r = await post('/v1/metadata/intersections', {});
    expect(r.statusCode).toBe(201);
    const b = r.json();
    expect(b.totalCount).toBe(2);
    expect(b.locations).toEqual([{ region: 'fixture', country: 'US', state: '', mapVersion: '20261101' }]);
    const c = b.data.find((x: { intersectionId: string }) => x.intersectionId === KEY_C);
    expect(c.name).toBe('Main St & 1st Ave');
    expect(c.coordinates).toEqual([{ lat: 39.29, lon: -76.61 }]);
    // four approaches, each with its straight-on movement as rank 1
    expect(c.movements.map((m: { turnManeuvers: string; rank: number }) => `${m.turnManeuvers}${m.rank}`)).toEqual([
      'T1',
      'T1',
      'T1',
      'T1',
    ]);
    const we = c.movements.find((m: { id: string }) => m.id === movementIdOf(fx, N.W, N.C, N.E));
    expect(we).toMatchObject({
      name: 'EB Main St through to Main St',
      movementType: 0,
      inbound: { name: 'Main St', direction: 'E', heading: 90, altName: [] },
      outbound: { direction: 'E' },
    });
    expect(we.inbound.geometry).toBeUndefined();
  });

  it('filters by field filters, maxRank, locations with radius, geometry, and projects fields', async () => {
    const r = await post('/v1/metadata/intersections', {
      fields: [
        { name: 'intersectionId' },
        { name: 'movements.id' },
        { name: 'movements.inbound.direction' },
        { name: 'movements.inbound.geometry' },
      ],
      fieldFilters: [
        { name: 'movements.turnManeuvers', operator: 'EQUALS', expressions: ['L'] },
        { name: 'movements.inbound.direction', operator: 'IN_LIST', expressions: ['S'] },
      ],
      locations: [{ geometry: { type: 'Point', coordinates: [-76.6101, 39.2901] }, radiusInMeters: 30 }],
      includeGeometry: true,
    });
    expect(r.statusCode).toBe(201);
    const b = r.json();
    expect(b.totalCount).toBe(1);
    expect(b.data).toHaveLength(1);
    expect(Object.keys(b.data[0])).toEqual(['intersectionId', 'movements']);
    expect(b.data[0].movements).toEqual([
      {
        id: movementIdOf(fx, N.N, N.C, N.E),
        inbound: { direction: 'S', geometry: { type: 'LineString', coordinates: expect.any(Array) } },
      },
    ]);
    const ranks = await post('/v1/metadata/intersections', {
      maxRank: 2,
      fieldFilters: [{ name: 'movements.rank', operator: 'GREATER_THAN', expressions: ['1'] }],
      fields: [{ name: 'movements.rank' }],
      includeMovements: true,
    });
    expect(
      ranks.json().data.flatMap((x: { movements: Array<{ rank: number }> }) => x.movements.map((m) => m.rank)),
    ).toSatisfy((a: number[]) => a.length > 0 && a.every((v) => v === 2));
    const none = await post('/v1/metadata/intersections', {
      includeMovements: false,
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-76.609, 39.289],
            [-76.607, 39.289],
            [-76.607, 39.291],
            [-76.609, 39.291],
            [-76.609, 39.289],
          ],
        ],
      },
    });
    expect(none.json().data).toEqual([
      {
        intersectionId: KEY_D,
        name: 'Main St & 2nd Ave',
        coordinates: [{ lat: 39.29, lon: expect.closeTo(-76.60837, 5) }],
      },
    ]);
  });

  it('pages, restricts to intersections with data in dateRanges, and rejects bad fields', async () => {
    const p1 = (await post('/v1/metadata/intersections', { pageSize: 1 })).json();
    expect(p1.data).toHaveLength(1);
    const p2 = (await post('/v1/metadata/intersections', { pageSize: 1, nextCursor: p1.nextCursor })).json();
    expect(p2.data[0].intersectionId).not.toBe(p1.data[0].intersectionId);
    expect(p2.nextCursor).toEqual({});
    const nov = (
      await post('/v1/metadata/intersections', { dateRanges: [{ startDate: '2026-11-01', endDate: '2026-11-30' }] })
    ).json();
    expect(nov.data.map((x: { intersectionId: string }) => x.intersectionId)).toEqual([KEY_C]);
    expect((await post('/v1/metadata/intersections', { offset: 10_000 })).json().data).toEqual([]);
    const bad = await post('/v1/metadata/intersections', { fields: [{ name: 'movements.colour' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/fields\[0\]\.name/);
    const mv = await post('/v1/metadata/intersections', {
      metadata: { key: 'locations', valueList: true, value: [{ country: 'US', state: 'MD', mapVersion: '19990101' }] },
    });
    expect(mv.statusCode).toBe(400);
  });
});

describe('GET /v1/metrics/intersections/availability', () => {
  const get = (query: string, payload?: unknown) =>
    t.app.inject({
      method: 'GET',
      url: `/v1/metrics/intersections/availability${query}`,
      headers: { ...auth(), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });

  it('lists windows of consecutive days with data and their map version', async () => {
    const r = await get('', { appId: '0f6b0c5e-7d1a-4a49-9a77-1b9a3f4c2e10', anonymous: false, name: 'client' });
    expect(r.statusCode).toBe(201);
    expect(r.json().data.rows).toEqual([
      ['2026-11-16', '2026-11-16', '20261101'],
      ['2026-11-21', '2026-11-21', '20261101'],
      ['2027-01-05', '2027-01-05', '20261101'],
    ]);
  });

  it('honours startDate, endDate and intersectionOutputMode=all', async () => {
    const r = await get(
      '?startDate=2026-12-01&endDate=2027-12-31&intersectionOutputMode=all&travelTimeType=historical',
    );
    expect(r.json().data.columnHeader.metricHeaderEntries).toEqual([{ name: 'intersectionIds', type: 'STRING' }]);
    expect(r.json().data.rows).toEqual([['2027-01-05', '2027-01-05', '20261101', `${KEY_D},${KEY_C}`]]);
  });

  it('rejects a malformed principal, bad parameters and unknown namespaces', async () => {
    expect((await get('', { userId: 'not-a-uuid' })).json().message).toMatch(/principal\.userId/);
    expect((await get('', { accessToken: 'someone-else' })).statusCode).toBe(400);
    expect((await get('?intersectionOutputMode=some')).json().message).toMatch(/intersectionOutputMode/);
    expect((await get('?travelTimeType=realtime')).json().message).toMatch(/travelTimeType/);
    expect((await get('?startDate=2026-13-01')).json().message).toMatch(/startDate/);
    expect((await get('?namespaces=ghost')).statusCode).toBe(404);
  });
});

describe('namespaces', () => {
  const patch = (name: string, payload: unknown) =>
    t.app.inject({ method: 'PATCH', url: `/v1/namespace/${name}`, headers: auth(), payload: payload as object });

  it('creates, updates with replace → remove → add, and moves ids between lists', async () => {
    let r = await patch('city', {
      mapVersion: '20261101',
      region: { country: 'US', state: 'MD' },
      provisioned: { add: [KEY_C, KEY_D] },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      message: 'Namespace created',
      result: [
        {
          namespace: 'city',
          mapVersion: '20261101',
          provisioned: [KEY_C, KEY_D],
          pending: [],
          reviewRequired: [],
          region: { country: 'US', state: 'MD' },
        },
      ],
    });
    // replace pending with D (moves D out of provisioned), remove C from provisioned, add C to pending
    r = await patch('city', { pending: { replace: [KEY_D], add: [KEY_C] }, provisioned: { remove: [KEY_C] } });
    expect(r.json().result[0]).toMatchObject({ provisioned: [], pending: [KEY_D, KEY_C], reviewRequired: [] });
    r = await patch('city', { provisioned: { add: [KEY_D, '1.00000_2.00000'] } });
    expect(r.json().result[0]).toMatchObject({
      provisioned: [KEY_D],
      pending: [KEY_C],
      reviewRequired: ['1.00000_2.00000'],
    });
    expect(r.json().message).toMatch(/1 unknown intersection id\(s\) moved to reviewRequired/);
  });

  it('scopes metrics to the provisioned intersections', async () => {
    const r = await post('/v1/metrics/intersections', {
      dateRanges: [{ startDate: '2026-01-01', endDate: '2027-12-31' }],
      dimensions: [{ name: 'intersectionId' }],
      metrics: [{ name: 'totalVehicleCount' }],
      metadata: [{ key: 'namespace', value: 'city' }],
    });
    expect(r.json().data.rows).toEqual([[KEY_D, '1']]);
    const m = await post('/v1/metadata/intersections', { metadata: { key: 'namespace', value: 'city' } });
    expect(m.json().data.map((x: { intersectionId: string }) => x.intersectionId)).toEqual([KEY_D]);
  });

  it('searches by names, mapVersion and region', async () => {
    await patch('other', { mapVersion: '20250101', region: { country: 'FR', state: '' } });
    const all = await post('/v1/namespace/search', {});
    expect(all.statusCode).toBe(200);
    expect(all.json().result.map((n: { namespace: string }) => n.namespace)).toEqual(['city', 'other']);
    expect(
      (await post('/v1/namespace/search', { mapVersion: '20250101' }))
        .json()
        .result.map((n: { namespace: string }) => n.namespace),
    ).toEqual(['other']);
    expect(
      (await post('/v1/namespace/search', { region: { country: 'us' } }))
        .json()
        .result.map((n: { namespace: string }) => n.namespace),
    ).toEqual(['city']);
    expect((await post('/v1/namespace/search', { namespaces: ['other', 'nope'] })).json().result).toHaveLength(1);
    expect((await post('/v1/namespace/search', { namespaces: 'city' })).statusCode).toBe(400);
  });

  it('uses the contract status codes', async () => {
    expect((await patch('city', { provisioned: { add: 'x' } })).statusCode).toBe(400);
    expect((await patch('city', { provisioned: { add: [KEY_C] }, pending: { add: [KEY_C] } })).statusCode).toBe(400);
    expect((await patch('city', { mapVersion: '2026' })).statusCode).toBe(400);
    expect((await patch('bad%20name', { provisioned: { add: [] } })).statusCode).toBe(400);
    const del = await t.app.inject({ method: 'DELETE', url: '/v1/namespace/other', headers: auth() });
    expect(del.statusCode).toBe(200);
    expect(del.body).toBe('');
    expect((await t.app.inject({ method: 'DELETE', url: '/v1/namespace/other', headers: auth() })).statusCode).toBe(
      404,
    );
    expect(
      (await t.app.inject({ method: 'DELETE', url: '/v1/namespace/bad%20name', headers: auth() })).statusCode,
    ).toBe(400);
  });
});
