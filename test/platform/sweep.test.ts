/**
 * Malformed-input sweep: requests generated from `/openapi.json` for every operation — missing and
 * wrong-typed parameters, empty, huge, negative, NaN, 10k-character and unicode strings, invalid
 * JSON, wrong JSON shapes, deep nesting, wrong content types, oversized bodies, duplicated query
 * parameters, invalid dates, out-of-range coordinates, degenerate polygons, radius / limit /
 * pageSize at 0 and 1e9 — and every way of presenting a bad token. Every answer must come in
 * bounded time, never be a 5xx, and be in the owning API's documented error shape; the server
 * must still answer normally afterwards. Seeded (fast-check), so a failure reproduces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { hashTokenFor } from '../../src/auth/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { apiOf, shapeProblem, type Res } from '../helpers/error-shapes.js';

const SEED = 20261125;
/** Fixed clock: Monday 2026-11-23 08:00 UTC. */
const NOW_MS = Date.UTC(2026, 10, 23, 8, 0, 0);
/** Body limit of the app under test (small, so oversized bodies are cheap to send). */
const BODY_LIMIT = 64 * 1024;
/** Longest any answer may take. */
const MAX_MS = 10_000;

interface Op {
  method: string;
  path: string;
  query: string[];
  pathParams: string[];
  bodyFields: string[];
  admin: boolean;
  /** the operation needs no credentials */
  open: boolean;
}

interface Req {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

const TEN_K = 'x'.repeat(10_000);
const UNICODE = '🚗 Straße 東京 \u202e\u0301 \uFFFD';
/** Hostile values for any string parameter. */
const HOSTILE = [
  '',
  ' ',
  '-1',
  '0',
  '1e9',
  '-1e9',
  '1000000000',
  'NaN',
  'Infinity',
  '-0',
  '1.5',
  'null',
  'true',
  '[]',
  '{}',
  TEN_K,
  UNICODE,
  '\u0000',
  '2026-02-30T25:61:00Z',
  '0000-00-00',
  '9999-12-31T23:59:59Z',
  '1970-01-01T00:00:00Z',
  '2026-13-01',
  'yesterday',
  '91,181',
  '-91,-181',
  '91|181',
  '-90.0000001|180.0000001',
  '1|2,1|2,1|2',
  '0|0,0|0,0|0,0|0',
  '39.29|-76.61',
  '1|2',
  ',',
  '|',
  '||||',
  '<a>&amp;</a>',
  "' OR '1'='1",
  '../../etc/passwd',
  '\r\nX-Injected: 1',
  'a,b,c',
  '%',
  '+',
];
/** Plausible values, so generated requests also reach the parsers' deeper checks. */
const PLAUSIBLE: Record<string, string[]> = {
  action: ['FindRoute', 'GetRoute', 'GetRouteTravelTimes'],
  format: ['JSON', 'XML'],
  wp: ['39.2909,-76.6094', '39.2918,-76.6077', '39.29,-76.61,90'],
  departuretime: ['2026-11-23T08:00:00Z', '2025-01-06T08:00:00-05:00'],
  arrivaltime: ['2026-11-23T09:00:00Z'],
  point: ['39.2909|-76.6094'],
  box: ['39.292|-76.61,39.29|-76.607'],
  polygon: ['39.29|-76.61,39.292|-76.61,39.292|-76.607'],
  polyline: ['39.29|-76.61,39.292|-76.607', '_p~iF~ps|U_ulLnnqC'],
  radius: ['0', '1', '500', '1e9', '1000000000'],
  limit: ['0', '1', '1000000000'],
  pagesize: ['0', '1', '1000000000'],
  entry_time: ['2026-11-23T08:00', '2026-11-23T08:00Z'],
  duration: ['60', '60|120', '0'],
  clat: ['392909000', '39.2909'],
  clon: ['-766094000', '-76.6094'],
  routeid: ['00000000-0000-0000-0000-000000000000'],
  traveltimecount: ['4', '0', '97'],
  traveltimeinterval: ['15', '0'],
  startdate: ['2026-11-16', '2026-11-23'],
  enddate: ['2026-11-22'],
};
/** JSON body fields the services read (sent with hostile values next to the documented ones). */
const BODY_FIELDS = [
  'pageSize',
  'radius',
  'dateRanges',
  'startDate',
  'endDate',
  'metrics',
  'dimensions',
  'filters',
  'polygon',
  'geometry',
  'pings',
  'lots',
  'blocks',
  'products',
  'publishers',
  'lat',
  'lon',
  'type',
  'severity',
  'startTime',
  'locations',
  'intersections',
  'cursor',
  'action',
  'entry_time',
  'duration',
];
/** JSON values for body fields: wrong types, extremes, degenerate geometry. */
const JSON_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e9,
  -1e9,
  1e308,
  1.5,
  '',
  'NaN',
  TEN_K,
  UNICODE,
  [],
  {},
  [null],
  [[]],
  { a: { b: { c: {} } } },
  [{ startDate: '2026-02-30', endDate: '2026-13-01' }],
  [{ startDate: '2026-11-20', endDate: '2026-11-14' }],
  {
    type: 'Polygon',
    coordinates: [
      [
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
      ],
    ],
  },
  {
    type: 'Polygon',
    coordinates: [
      [
        [200, 100],
        [1, 1],
      ],
    ],
  },
  [{ lat: 91, lon: 181 }],
  [{ name: 'nope' }],
  [{ traceId: 'a', timestamp: 'NaN', lat: 'x', lon: null }],
];
const INVALID_JSON = [
  '{',
  '{"a":}',
  '[1,2',
  'nul',
  '{"a":1}}',
  "{'a':1}",
  '\u0000',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '"unterminated',
];
const WRONG_TYPES = [
  'text/csv',
  'application/xml',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/x-ndjson',
  'image/png',
  'application/json; charset=latin1',
  'nonsense',
];

function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}
function deepObject(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function b64url(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}

function plausible(name: string): string[] {
  const l = name.toLowerCase();
  if (/^wp_\d+$/.test(l)) return PLAUSIBLE.wp;
  return PLAUSIBLE[l] ?? ['1', 'true', 'JSON'];
}

function pathValue(name: string): string[] {
  if (name === 'handler') return ['api.ashx', 'x.ASHX', 'nope'];
  if (name === 'z' || name === 'x') return ['0', '1', '25', '-1', '99999999', 'a', UNICODE, '%zz'];
  if (name === 'y') return ['0.pbf', '1.pbf', '1', '9999999.pbf', '-1.pbf', '.pbf', UNICODE, '%zz'];
  return [
    '1',
    '0',
    '-1',
    'abc',
    '00000000-0000-0000-0000-000000000000',
    'demo-ns',
    TEN_K.slice(0, 99),
    'y'.repeat(2000),
    UNICODE,
    '%zz',
    '%00',
    '%2e%2e',
    '1e9',
  ];
}

function encodePath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, k: string) => {
    const v = values[k] ?? '1';
    // values starting with % are sent raw (bad percent-encoding on purpose)
    return v.startsWith('%') ? v : encodeURIComponent(v);
  });
}

function queryString(pairs: Array<[string, string]>): string {
  if (pairs.length === 0) return '';
  return `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v === '%' ? '%' : encodeURIComponent(v)}`).join('&')}`;
}

/** Operations of the OpenAPI document. */
function operationsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ in: string; name: string }>;
        requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
        security?: unknown[];
      }
    >
  >;
}): Op[] {
  const ops: Op[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const bodySchema = Object.values(op.requestBody?.content ?? {})[0]?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        query: params.filter((p) => p.in === 'query').map((p) => p.name),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        bodyFields: Object.keys(bodySchema?.properties ?? {}),
        admin: /^\/v1\/(admin|incidents|probes)/.test(path),
        // the basemap tiles are public map data, like the OSM extract they come from
        open:
          ['/healthz', '/v1/AppToken', '/tiles/{z}/{x}/{y}', '/tiles/tiles.json'].includes(path) ||
          (path === '/user/' && method === 'post'),
      });
    }
  }
  return ops;
}

describe('malformed-input sweep over every operation of /openapi.json', () => {
  let t: TestContext;
  let clock = NOW_MS;
  let ops: Op[];
  let expiredToken = '';
  const stats = { requests: 0, serverErrors: 0, shapeFailures: 0, slowest: 0 };
  const failures: string[] = [];

  beforeAll(async () => {
    t = await makeTestContext({ now: () => clock, config: { 'server.bodyLimitBytes': String(BODY_LIMIT) } });
    // a token issued 25 h ago has expired (tokens live 24 h)
    clock = NOW_MS - 25 * 3600_000;
    expiredToken = (await t.ctx.auth.issueAppToken(t.appId, hashTokenFor(t.appId, t.appKey))).token;
    clock = NOW_MS;
    ops = operationsOf((await t.app.inject({ url: '/openapi.json' })).json());
  });
  afterAll(async () => {
    console.log(
      `sweep: ${stats.requests} requests sent, ${stats.serverErrors} 5xx, ${stats.shapeFailures} errors outside the API's shape, slowest ${stats.slowest} ms`,
    );
    await t?.close();
  });

  /** Sends one request and records what is wrong with its answer. */
  async function send(req: Req, expectStatus?: (s: number) => boolean): Promise<Res> {
    stats.requests++;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const res = await Promise.race([
      t.app.inject({
        method: req.method as 'GET',
        url: req.url,
        headers: req.headers,
        ...(req.payload !== undefined ? { payload: req.payload } : {}),
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${MAX_MS} ms: ${req.method} ${req.url.slice(0, 200)}`)),
          MAX_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const ms = Math.round(performance.now() - started);
    stats.slowest = Math.max(stats.slowest, ms);
    const what = `${req.method} ${req.url.slice(0, 160)} [${Object.entries(req.headers)
      .map(([k, v]) => `${k}: ${v.slice(0, 40)}`)
      .join('; ')}] body ${String(req.payload ?? '').slice(0, 80)}`;
    if (res.statusCode >= 500) {
      stats.serverErrors++;
      failures.push(`${res.statusCode} for ${what}: ${res.body.slice(0, 200)}`);
    } else if (res.statusCode >= 400) {
      const problem = shapeProblem(apiOf(req.url), res);
      if (problem) {
        stats.shapeFailures++;
        failures.push(`${res.statusCode} ${problem} — for ${what}`);
      }
    }
    if (expectStatus && !expectStatus(res.statusCode))
      failures.push(`unexpected status ${res.statusCode} for ${what}: ${res.body.slice(0, 200)}`);
    return res;
  }

  /** Fails with the first failures listed (and clears the list for the next test). */
  function expectNoFailures(): void {
    const found = failures.splice(0);
    if (found.length > 0) console.log(found.join('\n'));
    expect(`${found.length} failures${found.length ? `:\n${found.slice(0, 15).join('\n')}` : ''}`).toBe('0 failures');
  }

  function baseQuery(op: Op): Array<[string, string]> {
    return op.path.startsWith('/traffic/')
      ? [
          ['Action', 'FindRoute'],
          ['Format', 'JSON'],
        ]
      : [];
  }

  function authHeaders(op: Op): Record<string, string> {
    return { authorization: `Bearer ${op.admin ? t.adminToken : t.token}` };
  }

  it("answers every hostile value of every documented parameter in the API's error shape", async () => {
    expect(ops.length).toBeGreaterThan(30);
    for (const op of ops) {
      const pathParams = Object.fromEntries(op.pathParams.map((p) => [p, pathValue(p)[0]]));
      for (const name of op.query) {
        for (const v of HOSTILE) {
          await send({
            method: op.method,
            url:
              encodePath(op.path, pathParams) +
              queryString([...baseQuery(op).filter(([k]) => k.toLowerCase() !== name.toLowerCase()), [name, v]]),
            headers: authHeaders(op),
          });
        }
        // the same parameter twice
        await send({
          method: op.method,
          url:
            encodePath(op.path, pathParams) +
            queryString([...baseQuery(op), [name, plausible(name)[0]], [name, plausible(name)[0]]]),
          headers: authHeaders(op),
        });
      }
      for (const p of op.pathParams) {
        for (const v of pathValue(p))
          await send({
            method: op.method,
            url: encodePath(op.path, { ...pathParams, [p]: v }) + queryString(baseQuery(op)),
            headers: authHeaders(op),
          });
      }
    }
    expectNoFailures();
  });

  it("answers broken, empty, deep, oversized and mistyped bodies in the API's error shape", async () => {
    const bodies: Array<{ type?: string; payload: string | Buffer }> = [
      { type: 'application/json', payload: '' },
      { type: 'application/json', payload: '   ' },
      ...INVALID_JSON.map((payload) => ({ type: 'application/json', payload })),
      { type: 'application/json', payload: deepArray(100_000) },
      { type: 'application/json', payload: deepObject(10_000) },
      { type: 'application/json', payload: JSON.stringify('x'.repeat(BODY_LIMIT + 10)) },
      { type: 'application/json', payload: Buffer.alloc(BODY_LIMIT * 2, 0x20) },
      { type: 'application/json', payload: '[]' },
      { type: 'application/json', payload: '"a string"' },
      { type: 'application/json', payload: '12' },
      { type: 'application/json', payload: 'null' },
      { type: 'application/x-www-form-urlencoded', payload: 'a=1&a=2&b=%zz&=&&c' },
      { type: 'application/x-www-form-urlencoded', payload: `x=${TEN_K}` },
      ...WRONG_TYPES.map((type) => ({ type, payload: 'a,b\n1,2' })),
      { payload: '{"no":"content-type"}' },
    ];
    for (const op of ops) {
      if (op.method === 'GET' && op.path !== '/v1/metrics/intersections/availability') continue;
      const url =
        encodePath(op.path, Object.fromEntries(op.pathParams.map((p) => [p, pathValue(p)[0]]))) +
        queryString(baseQuery(op));
      for (const b of bodies)
        await send({
          method: op.method,
          url,
          headers: { ...authHeaders(op), ...(b.type ? { 'content-type': b.type } : {}) },
          payload: b.payload,
        });
    }
    expectNoFailures();
  });

  it("answers generated combinations (seeded) in the API's error shape", async () => {
    const value = (name: string) =>
      fc.oneof(
        fc.constantFrom(...plausible(name)),
        fc.constantFrom(...HOSTILE),
        fc.string({ maxLength: 30 }),
        fc.integer().map(String),
        fc.double().map(String),
      );
    const jsonField = fc.oneof(fc.constantFrom(...JSON_VALUES), fc.jsonValue({ maxDepth: 3 }));
    for (const op of ops) {
      const fields = [...new Set([...op.bodyFields, ...BODY_FIELDS])];
      const arb = fc.record({
        query: fc
          .subarray(op.query)
          .chain((names) => fc.tuple(...names.map((n) => value(n).map((v): [string, string] => [n, v])))),
        extra: fc.option(
          fc.constantFrom<[string, string]>(['zz_undocumented', '1'], ['', ''], ['a[b]', '1'], ['__proto__', 'x']),
        ),
        path: fc.tuple(...op.pathParams.map((p) => fc.constantFrom(...pathValue(p)))),
        body: fc.option(
          fc.oneof(
            fc
              .dictionary(fc.constantFrom(...fields), jsonField, { maxKeys: 6 })
              .map((o) => ({ type: 'application/json', payload: JSON.stringify(o) })),
            fc.jsonValue({ maxDepth: 4 }).map((v) => ({ type: 'application/json', payload: JSON.stringify(v) })),
            fc.constantFrom(...INVALID_JSON).map((payload) => ({ type: 'application/json', payload })),
            fc
              .dictionary(
                fc.constantFrom(...fields, 'password', 'card-number'),
                fc.constantFrom(...HOSTILE.filter((h) => h.length < 100)),
                { maxKeys: 5 },
              )
              .map((o) => ({ type: 'application/x-www-form-urlencoded', payload: new URLSearchParams(o).toString() })),
            fc.constantFrom(...WRONG_TYPES).map((type) => ({ type, payload: '<x/>' })),
          ),
        ),
        auth: fc.constantFrom('valid', 'valid', 'valid', 'other', 'none'),
        xml: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(arb, async (g) => {
          const pathValues = Object.fromEntries(op.pathParams.map((p, i) => [p, g.path[i]]));
          const query: Array<[string, string]> = [
            ...(g.query.some(([k]) => k.toLowerCase() === 'action') ? [] : baseQuery(op)),
            ...g.query,
            ...(g.extra ? [g.extra] : []),
          ];
          const headers: Record<string, string> = {};
          if (g.auth === 'valid') Object.assign(headers, authHeaders(op));
          if (g.auth === 'other') headers.authorization = `Bearer ${op.admin ? t.token : t.adminToken}`;
          if (g.xml) headers.accept = 'application/xml';
          if (g.body) headers['content-type'] = g.body.type;
          await send({
            method: op.method,
            url: encodePath(op.path, pathValues) + queryString(query),
            headers,
            payload: g.body?.payload,
          });
          return true;
        }),
        { seed: SEED, numRuns: 25, endOnFailure: true },
      );
    }
    expectNoFailures();
  });

  it("refuses missing, forged, unsigned, expired and non-admin tokens with 401/403 in the API's shape", async () => {
    const [head, payload, signature] = t.token.split('.');
    const forged = `${head}.${b64url({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), admin: true })}.${signature}`;
    const wrongKey = `${head}.${payload}.${createHmac('sha256', 'not-the-key').update(`${head}.${payload}`).digest('base64url')}`;
    const algNone = `${b64url({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    const cases: Array<[string, Record<string, string>]> = [
      ['no token', {}],
      ['forged claims', { authorization: `Bearer ${forged}` }],
      ['signed with another key', { authorization: `Bearer ${wrongKey}` }],
      ['alg none', { authorization: `Bearer ${algNone}` }],
      ['expired', { authorization: `Bearer ${expiredToken}` }],
      ['not a JWT', { authorization: 'Bearer abc' }],
      ['wrong scheme', { authorization: `Token ${t.token}` }],
    ];
    for (const op of ops) {
      if (op.open) continue;
      const url =
        encodePath(op.path, Object.fromEntries(op.pathParams.map((p) => [p, pathValue(p)[0]]))) +
        queryString(baseQuery(op));
      const routing = op.path.startsWith('/traffic/');
      for (const [, headers] of cases) {
        // routing's contract answers token errors 400 (NoToken 41, BadToken 42) and 401 (TokenExpired 43)
        const res = await send({ method: op.method, url, headers }, (s) =>
          routing ? s === 400 || s === 401 : s === 401,
        );
        if (routing) {
          const id = (JSON.parse(res.body) as { statusId?: number }).statusId;
          if (![41, 42, 43].includes(id ?? -1))
            failures.push(`routing token error statusId ${id} for ${JSON.stringify(headers).slice(0, 60)}`);
        }
      }
      if (op.admin)
        await send({ method: op.method, url, headers: { authorization: `Bearer ${t.token}` } }, (s) => s === 403);
    }
    expectNoFailures();
  });

  it('is healthy afterwards: health check and a valid route', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toMatchObject({ status: 'ok' });
    const route = await t.app.inject({
      url: `/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=39.29,-76.61&WP_2=39.2918,-76.6077&DepartureTime=2026-11-23T08:00:00Z&Token=${t.token}`,
    });
    expect(route.statusCode).toBe(200);
    expect(route.json().statusId).toBe(0);
    expect(stats.serverErrors).toBe(0);
  });
});
