/**
 * The OpenAPI document names exactly what the parsers accept: one bearer scheme; every routing
 * parameter; and, probed over HTTP, every parameter name a strict parser accepts is documented for
 * that operation while every documented one is accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { ROUTING_PARAMETERS } from '../../src/http/routing/parameters.js';

interface Param {
  in: string;
  name: string;
}
interface Operation {
  parameters?: Param[];
  responses?: Record<string, { description?: string }>;
  security?: unknown[];
  requestBody?: {
    content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }>;
  };
}
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
};

/** Operations whose parsers reject query parameters they do not take (the others ignore the query). */
const STRICT_QUERY: Array<[string, string]> = [
  ['get', '/product/'],
  ['post', '/reservation/'],
  ['get', '/reservation/'],
  ['get', '/reservation/{reservationId}'],
  ['put', '/reservation/{reservationId}'],
  ['post', '/user/'],
  ['get', '/user/'],
  ['put', '/user/'],
  ['get', '/user/{userId}/lots/'],
  ['put', '/v1/admin/parking/users/{userId}'],
  ['get', '/v1/admin/parking/products'],
  ['get', '/USS'],
  ['get', '/v1/metrics/intersections/availability'],
  ['get', '/v1/incidents'],
];
/**
 * Operations whose parsers reject JSON body fields they do not take. (POST /v1/incidents validates
 * its body against the documented schema itself, additionalProperties false.)
 */
const STRICT_BODY: Array<[string, string]> = [
  ['post', '/v1/metrics/intersections'],
  ['post', '/v1/metadata/intersections'],
  ['patch', '/v1/namespace/{namespace}'],
  ['post', '/v1/namespace/search'],
  ['post', '/reservation/'],
  ['put', '/reservation/{reservationId}'],
  ['post', '/user/'],
  ['put', '/user/'],
  ['put', '/v1/admin/parking/users/{userId}'],
];

/** True when the answer refuses `name` as a parameter or field the operation does not take. */
function refusedAsUnknown(body: string, name: string): boolean {
  const lower = body.toLowerCase();
  return (
    lower.includes(name.toLowerCase()) &&
    /unknown (parameter|field|query parameter)|does not take parameter|not a parameter of/.test(lower)
  );
}

describe('OpenAPI document', () => {
  let t: TestContext;
  let doc: Doc;
  beforeAll(async () => {
    t = await makeTestContext();
    doc = (await t.app.inject({ url: '/openapi.json' })).json();
  });
  afterAll(async () => t.close());

  const fill = (path: string) =>
    path
      .replace('{reservationId}', '00000000-0000-0000-0000-000000000000')
      .replace('{userId}', '1')
      .replace('{namespace}', 'ns-1');
  const auth = (path: string) => ({
    authorization: `Bearer ${/^\/v1\/(admin|incidents)/.test(path) ? t.adminToken : t.token}`,
  });
  const queryNames = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const bodyNames = (op: Operation) =>
    Object.keys(Object.values(op.requestBody?.content ?? {})[0]?.schema?.properties ?? {});

  it('has one bearer scheme (and Basic for parking users), and every operation but the open ones names its credentials', () => {
    const schemes = Object.values(doc.components.securitySchemes);
    expect(schemes.filter((s) => s.type === 'http' && s.scheme === 'bearer')).toHaveLength(1);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['basic', 'bearer']);
    const open = ['get /healthz', 'get /v1/AppToken', 'post /user/', 'get /tiles/{z}/{x}/{y}', 'get /tiles/tiles.json'];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (open.includes(`${method} ${path}`)) continue;
        expect(op.security, `${method} ${path}`).toBeDefined();
      }
    }
  });

  it('declares 201 for metrics, metadata and availability, and the error statuses of every API', () => {
    for (const [method, path] of [
      ['post', '/v1/metrics/intersections'],
      ['post', '/v1/metadata/intersections'],
      ['get', '/v1/metrics/intersections/availability'],
    ] as const) {
      const statuses = Object.keys(doc.paths[path][method].responses ?? {});
      expect(statuses, `${method} ${path}`).toContain('201');
      expect(statuses, `${method} ${path}`).not.toContain('200');
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '401']));
    }
    const metricBody = Object.values(doc.paths['/v1/metrics/intersections'].post.requestBody?.content ?? {})[0];
    expect(metricBody?.schema?.required?.sort()).toEqual(['dateRanges', 'dimensions', 'metrics']);
    expect(Object.keys(doc.paths['/traffic/{handler}'].get.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '500']),
    );
    expect(Object.keys(doc.paths['/lots'].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401']));
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (/^\/(healthz|metrics|console|favicon)/.test(path) || path === '/') continue;
      for (const [method, op] of Object.entries(methods)) {
        const errors = Object.keys(op.responses ?? {}).filter((s) => /^[45]/.test(s));
        expect(errors.length, `${method} ${path} declares its errors`).toBeGreaterThan(0);
      }
    }
  });

  it('lists every routing parameter: all ten waypoints with descriptions and ids, alternates, output fields, units, criteria, travel times', () => {
    const names = queryNames(doc.paths['/traffic/{handler}'].get);
    expect(names.sort()).toEqual(ROUTING_PARAMETERS.map((p) => p.name).sort());
    for (const n of [
      'MaxAlternates',
      'RouteOutputFields',
      'IncidentOutputFields',
      'Units',
      'WP_3',
      'WP_10',
      'WP_7description',
      'WP_10ID',
      'WP_Heading',
      'Criteria',
      'TravelTimeCount',
      'TravelTimeInterval',
      'CollapseManeuvers',
      'SpeedBucketID',
      'GeometryTolerance',
      'IsAmbiguousOrigin',
      'UseTraffic',
      'RouteType',
    ]) {
      expect(names).toContain(n);
    }
    expect(names).toHaveLength(4 + 30 + 17);
  });

  it('routing: each action takes exactly its documented parameters', async () => {
    const candidates = [...ROUTING_PARAMETERS.map((p) => p.name), 'zz_undocumented', 'point', 'radius', 'accesstoken2'];
    for (const action of ['FindRoute', 'GetRoute', 'GetRouteTravelTimes'] as const) {
      for (const name of candidates) {
        if (['Action', 'Format', 'Token', 'accessToken'].includes(name)) continue;
        const value = /^WP_\d+$/.test(name) ? '39.29,-76.61' : '1';
        const res = await t.app.inject({
          url: `/traffic/api.ashx?Action=${action}&Format=JSON&Token=${t.token}&${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
        });
        const documented = ROUTING_PARAMETERS.some((p) => p.name === name && p.actions.includes(action));
        expect(refusedAsUnknown(res.body, name), `${action} ${name}: ${res.body.slice(0, 200)}`).toBe(!documented);
      }
    }
  });

  it('every query parameter a strict parser accepts is documented for that operation, and every documented one is accepted', async () => {
    const all = new Set<string>(['zz_undocumented', 'Token', 'password', 'callback', '_', 'geoId']);
    for (const methods of Object.values(doc.paths))
      for (const op of Object.values(methods)) for (const n of [...queryNames(op), ...bodyNames(op)]) all.add(n);
    let probes = 0;
    for (const [method, path] of STRICT_QUERY) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path} is documented`).toBeDefined();
      const exact = new Set(queryNames(op));
      const lower = new Set(queryNames(op).map((n) => n.toLowerCase()));
      for (const name of all) {
        // another spelling of a documented name: some parsers match names case-insensitively, some not
        if (!exact.has(name) && lower.has(name.toLowerCase())) continue;
        const res = await t.app.inject({
          method: method.toUpperCase() as 'GET',
          url: `${fill(path)}?${encodeURIComponent(name)}=1`,
          headers: auth(path),
        });
        probes++;
        const refused = refusedAsUnknown(res.body, name);
        // payment data and passwords are refused in the URL by design (documented in the body only)
        const bodyOnly = /^(card|token|password)/i.test(name) && path !== '/v1/incidents';
        if (exact.has(name))
          expect(refused, `${method} ${path} refuses documented ${name}: ${res.body.slice(0, 200)}`).toBe(false);
        else if (!bodyOnly)
          expect(refused, `${method} ${path} accepts undocumented ${name}: ${res.body.slice(0, 200)}`).toBe(true);
      }
    }
    expect(probes).toBeGreaterThan(500);
  });

  it('every JSON body field a strict parser accepts is documented for that operation, and every documented one is accepted', async () => {
    const all = new Set<string>(['zz_undocumented', 'Token', 'password', 'pings']);
    for (const methods of Object.values(doc.paths))
      for (const op of Object.values(methods)) for (const n of bodyNames(op)) all.add(n);
    for (const [method, path] of STRICT_BODY) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path} is documented`).toBeDefined();
      const documented = new Set(bodyNames(op));
      expect(documented.size, `${method} ${path} documents its body`).toBeGreaterThan(0);
      for (const name of all) {
        if (!documented.has(name) && [...documented].some((d) => d.toLowerCase() === name.toLowerCase())) continue;
        const res = await t.app.inject({
          method: method.toUpperCase() as 'POST',
          url: fill(path),
          headers: { ...auth(path), 'content-type': 'application/json' },
          payload: JSON.stringify({ [name]: null }),
        });
        const refused = refusedAsUnknown(res.body, name);
        if (documented.has(name))
          expect(refused, `${method} ${path} refuses documented ${name}: ${res.body.slice(0, 200)}`).toBe(false);
        else expect(refused, `${method} ${path} accepts undocumented ${name}: ${res.body.slice(0, 200)}`).toBe(true);
      }
    }
  });
});
