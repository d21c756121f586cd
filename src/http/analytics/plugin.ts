/**
 * HTTP plugin of the intersection analytics service: metrics, metadata,
 * availability (a GET carrying a JSON principal body), namespaces and signal controller logs. Every route needs a Bearer
 * app token. Handlers only translate; the work happens in `analytics/`.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import {
  AVAILABILITY_PARAMS,
  DIMENSION_NAMES,
  METRIC_NAMES,
  METADATA_REQUEST_FIELDS,
  METRIC_REQUEST_FIELDS,
  NAMESPACE_SEARCH_FIELDS,
  NAMESPACE_UPDATE_FIELDS,
  PRINCIPAL_FIELDS,
  catalogOf,
  checkNamespaceName,
  checkPrincipal,
  deleteNamespace,
  invalid,
  parseAvailabilityQuery,
  parseMetadataRequest,
  parseMetricRequest,
  parseNamespaceSearch,
  parseNamespaceUpdate,
  queryAvailability,
  queryMetadata,
  queryMetrics,
  searchNamespaces,
  updateNamespace,
} from '../../analytics/index.js';
import { AuthError } from '../../auth/auth-service.js';
import { DOCUMENTATION_ONLY, documentedBody, documentedStrings } from '../openapi.js';
import { envelope } from '../envelope.js';
import { bearerToken } from '../tokens.js';
import { makeAnalyticsErrorHandler } from './errors.js';
import { registerSignalRoutes } from './signals.js';

const TAGS = ['analytics'];
const SECURITY = [{ bearer: [] }];

const arr = (items: string) => ({ type: 'array', description: items });
const dateRanges = { ...arr('array of { startDate, endDate } (YYYY-MM-DD, inclusive)') };
const paging = {
  nextCursor: {
    type: 'object',
    description: 'cursor of the previous page (its nextCursor), for the next page of the same request',
  },
  offset: { type: 'integer', description: 'rows to skip (0-based)' },
  pageSize: { type: 'integer', description: 'rows per page (see docs/analytics.md for default and maximum)' },
};
const geometry = {
  type: 'object',
  description:
    'GeoJSON object (Point, Polygon, MultiPolygon, Feature, FeatureCollection, …; bbox honoured): intersections inside it',
};
/** Body fields of every analytics request, by request (the parsers' lists pick the fields). */
const BODY_DOCS: Record<string, string | Record<string, unknown>> = {
  ...paging,
  dateRanges,
  geometry,
  noPaging: { type: 'boolean', description: 'true: every row in one page (bounded)' },
  dimensions: arr(`array of { name, ranges? }; names: ${DIMENSION_NAMES.join(', ')}`),
  metrics: arr(`array of { name, ranges? }; names: ${METRIC_NAMES.join(', ')}`),
  dimensionFilters: arr('array of { name, operator, not?, expressions }'),
  metadata: { description: 'MetricRequest: array of { key, value, valueList? }; metadata request: one such object' },
  orderBys: arr('array of { name, sortOrder: ASCENDING | DESCENDING }'),
  fields: arr('array of { name }: the metadata fields to return'),
  fieldFilters: arr('array of { name, operator, not?, expressions }'),
  locations: arr('array of { geometry, radiusInMeters? }'),
  includeGeometry: { type: 'boolean', description: "return each intersection's geometry" },
  includeMovements: { type: 'boolean', description: "return each intersection's movements" },
  maxRank: {
    type: 'integer',
    description: 'return movements of rank at most this (default: rank-1 movements only, U-turns excluded)',
  },
  mapVersion: { type: 'string', description: 'YYYYMMDD map version' },
  region: { type: 'object', description: '{ country, state }' },
  namespace: { type: 'string', description: 'must equal the path parameter when given' },
  provisioned: { type: 'object', description: '{ add?, remove?, replace? }: arrays of intersection ids' },
  pending: { type: 'object', description: '{ add?, remove?, replace? }: arrays of intersection ids' },
  reviewRequired: { type: 'object', description: '{ add?, remove?, replace? }: arrays of intersection ids' },
  namespaces: arr('array of namespace names (empty: all)'),
  accessToken: { type: 'string', description: 'must equal the bearer token when given' },
  userId: { type: 'string', description: 'UUID' },
  appId: { type: 'string', description: 'UUID' },
  name: { type: 'string', description: 'principal name' },
  anonymous: { type: 'boolean', description: 'anonymous principal' },
};
const body = (where: string, fields: readonly string[], required: readonly string[] = []) => ({
  ...documentedBody(where, fields, BODY_DOCS, required),
  description: 'JSON (Content-Type: application/json)',
});
const NAMESPACE_PARAM = {
  type: 'object',
  properties: { namespace: { type: 'string', description: 'namespace name (letters, digits, - _ .)' } },
};
const AVAILABILITY_DOCS: Record<string, string> = {
  startDate: 'YYYY-MM-DD: first day of the windows asked for',
  endDate: 'YYYY-MM-DD: last day',
  intersectionOutputMode: 'none (default), all, namespace: list the intersections with data',
  namespaces: 'comma-separated namespace names (with intersectionOutputMode=namespace)',
  travelTimeType: 'historical (only historical probe data is served)',
};

/** Reads a GET request's body (Fastify does not parse bodies of GET requests). */
async function readGetBody(req: FastifyRequest, limitBytes: number): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req.raw) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > limitBytes) throw Object.assign(new Error('body too large'), { statusCode: 413 });
    chunks.push(b);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return undefined;
  const ct = String(req.headers['content-type'] ?? 'application/json');
  if (!/^application\/(.+\+)?json\b/i.test(ct))
    throw Object.assign(new Error(`Unsupported Media Type: ${ct} (the principal body is JSON)`), { statusCode: 415 });
  try {
    return JSON.parse(text);
  } catch {
    throw invalid('body', 'is not valid JSON');
  }
}

/** The response head of every analytics answer: when it was created and its id. */
type Head = () => { createdDate: string; responseId: string };

/** Metrics, metadata and availability of intersections. */
function registerMetricRoutes(app: FastifyInstance, ctx: AppContext, head: Head): void {
  app.post(
    '/v1/metrics/intersections',
    {
      ...DOCUMENTATION_ONLY,
      config: { successStatus: 201 },
      schema: {
        tags: TAGS,
        summary: 'Intersection metrics (dimensions × metrics table)',
        body: body('MetricRequest', METRIC_REQUEST_FIELDS, ['dateRanges', 'dimensions', 'metrics']),
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const data = await queryMetrics(ctx.db, catalogOf(ctx.region), parseMetricRequest(req.body));
      return reply.code(201).send({ ...head(), data });
    },
  );

  app.post(
    '/v1/metadata/intersections',
    {
      ...DOCUMENTATION_ONLY,
      config: { successStatus: 201 },
      schema: {
        tags: TAGS,
        summary: 'Intersection metadata and movements',
        body: body('IntersectionMetadataRequest', METADATA_REQUEST_FIELDS),
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const catalog = catalogOf(ctx.region);
      const r = parseMetadataRequest(req.body, catalog.mapVersion);
      const result = await queryMetadata(ctx.db, catalog, r);
      const meta = ctx.region.meta;
      const locations = (r.locations ?? [{}]).map((l) => ({
        region: meta.name,
        country: l.country ?? meta.country,
        state: l.state ?? '',
        mapVersion: catalog.mapVersion,
      }));
      return reply.code(201).send({
        ...head(),
        locations,
        totalCount: result.totalCount,
        data: result.data,
        nextCursor: result.nextCursor,
      });
    },
  );

  app.get(
    '/v1/metrics/intersections/availability',
    {
      ...DOCUMENTATION_ONLY,
      config: { successStatus: 201 },
      schema: {
        tags: TAGS,
        summary: 'Date windows and intersections with data',
        description: `An optional JSON principal body (${PRINCIPAL_FIELDS.join(', ')}) is accepted on this GET.`,
        querystring: documentedStrings('availability', AVAILABILITY_PARAMS, AVAILABILITY_DOCS),
        security: SECURITY,
      },
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const body = await readGetBody(req, ctx.config.server.bodyLimitBytes);
      checkPrincipal(body, bearerToken(req)!);
      const q = parseAvailabilityQuery(req.query as Record<string, string | string[] | undefined>);
      const data = await queryAvailability(ctx.db, catalogOf(ctx.region), q);
      return reply.code(201).send({ ...head(), data });
    },
  );
}

/** Namespaces: delete, update subscriptions, search. */
function registerNamespaceRoutes(app: FastifyInstance, ctx: AppContext, head: Head): void {
  app.delete<{ Params: { namespace: string } }>(
    '/v1/namespace/:namespace',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a namespace and its subscriptions (no body)',
        params: NAMESPACE_PARAM,
        security: SECURITY,
      },
    },
    async (req, reply) => {
      await deleteNamespace(ctx.db, req.params.namespace);
      return reply.code(200).send();
    },
  );

  app.patch<{ Params: { namespace: string } }>(
    '/v1/namespace/:namespace',
    {
      ...DOCUMENTATION_ONLY,
      schema: {
        tags: TAGS,
        summary: 'Update intersection subscriptions of a namespace',
        params: NAMESPACE_PARAM,
        body: body('NamespaceUpdateRequest', NAMESPACE_UPDATE_FIELDS),
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const name = req.params.namespace;
      checkNamespaceName(name);
      const update = parseNamespaceUpdate(req.body, name);
      const catalog = catalogOf(ctx.region);
      const { data, message } = await updateNamespace(ctx.db, name, update, {
        isKnownIntersection: (k) => catalog.byKey.has(k),
        defaultMapVersion: catalog.mapVersion,
        defaultRegion: { country: ctx.region.meta.country, state: '' },
      });
      return reply.code(200).send({ ...head(), result: [data], message });
    },
  );

  app.post(
    '/v1/namespace/search',
    {
      ...DOCUMENTATION_ONLY,
      schema: {
        tags: TAGS,
        summary: 'Search namespaces',
        body: body('NamespaceSearchRequest', NAMESPACE_SEARCH_FIELDS),
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const result = await searchNamespaces(ctx.db, parseNamespaceSearch(req.body));
      return reply.code(200).send({ ...head(), result });
    },
  );
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.setErrorHandler(makeAnalyticsErrorHandler(ctx.now));
  const head: Head = () => {
    const e = envelope(ctx.now());
    return { createdDate: e.createdDate, responseId: e.responseId };
  };

  // Auth on every route of this plugin, before the body is read: 401 with the error body when
  // missing, invalid or expired.
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const token = bearerToken(req);
    if (!token)
      throw new AuthError('AUTH_TOKEN_MISSING', 'Missing bearer token: send Authorization: Bearer <app token>');
    await ctx.auth.verifyAppToken(token);
  });

  registerMetricRoutes(app, ctx, head);
  registerNamespaceRoutes(app, ctx, head);
  await registerSignalRoutes(app, ctx);
};
export default plugin;
