/**
 * HTTP plugin of the intersection analytics service (spec/analytics.txt): metrics, metadata,
 * availability (a GET carrying a JSON principal body) and namespaces. Every route needs a Bearer
 * app token. Handlers only translate; the work happens in `analytics/`.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import {
  catalogOf, checkNamespaceName, checkPrincipal, deleteNamespace, invalid, parseAvailabilityQuery, parseMetadataRequest,
  parseMetricRequest, parseNamespaceSearch, parseNamespaceUpdate, queryAvailability, queryMetadata, queryMetrics,
  searchNamespaces, updateNamespace,
} from '../../analytics/index.js';
import { AuthError } from '../../auth/auth-service.js';
import { envelope } from '../envelope.js';
import { bearerToken } from '../tokens.js';
import { makeAnalyticsErrorHandler } from './errors.js';

const TAGS = ['analytics'];
const SECURITY = [{ bearer: [] }];

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
  if (!/^application\/(.+\+)?json\b/i.test(ct)) throw Object.assign(new Error(`Unsupported Media Type: ${ct} (the principal body is JSON)`), { statusCode: 415 });
  try {
    return JSON.parse(text);
  } catch {
    throw invalid('body', 'is not valid JSON');
  }
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.setErrorHandler(makeAnalyticsErrorHandler(ctx.now));
  const head = () => {
    const e = envelope(ctx.now());
    return { createdDate: e.createdDate, responseId: e.responseId };
  };

  // Auth on every route of this plugin, before the body is read: 401 with the error body when
  // missing, invalid or expired.
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const token = bearerToken(req);
    if (!token) throw new AuthError('AUTH_TOKEN_MISSING', 'Missing bearer token: send Authorization: Bearer <app token>');
    await ctx.auth.verifyAppToken(token);
  });

  app.post('/v1/metrics/intersections', { schema: { tags: TAGS, summary: 'Intersection metrics (dimensions × metrics table)', security: SECURITY } }, async (req, reply) => {
    const data = await queryMetrics(ctx.db, catalogOf(ctx.region), parseMetricRequest(req.body));
    return reply.code(201).send({ ...head(), data });
  });

  app.post('/v1/metadata/intersections', { schema: { tags: TAGS, summary: 'Intersection metadata and movements', security: SECURITY } }, async (req, reply) => {
    const catalog = catalogOf(ctx.region);
    const r = parseMetadataRequest(req.body, catalog.mapVersion);
    const result = await queryMetadata(ctx.db, catalog, r);
    const meta = ctx.region.meta;
    const locations = (r.locations ?? [{}]).map((l) => ({
      region: meta.name, country: l.country ?? meta.country, state: l.state ?? '', mapVersion: catalog.mapVersion,
    }));
    return reply.code(201).send({ ...head(), locations, totalCount: result.totalCount, data: result.data, nextCursor: result.nextCursor });
  });

  app.get('/v1/metrics/intersections/availability', { schema: { tags: TAGS, summary: 'Date windows and intersections with data (JSON principal body accepted)', security: SECURITY } }, async (req: FastifyRequest, reply: FastifyReply) => {
    const body = await readGetBody(req, ctx.config.server.bodyLimitBytes);
    checkPrincipal(body, bearerToken(req)!);
    const q = parseAvailabilityQuery(req.query as Record<string, string | undefined>);
    const data = await queryAvailability(ctx.db, catalogOf(ctx.region), q);
    return reply.code(201).send({ ...head(), data });
  });

  app.delete<{ Params: { namespace: string } }>('/v1/namespace/:namespace', { schema: { tags: TAGS, summary: 'Delete a namespace and its subscriptions', security: SECURITY } }, async (req, reply) => {
    await deleteNamespace(ctx.db, req.params.namespace);
    return reply.code(200).send();
  });

  app.patch<{ Params: { namespace: string } }>('/v1/namespace/:namespace', { schema: { tags: TAGS, summary: 'Update intersection subscriptions of a namespace', security: SECURITY } }, async (req, reply) => {
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
  });

  app.post('/v1/namespace/search', { schema: { tags: TAGS, summary: 'Search namespaces', security: SECURITY } }, async (req, reply) => {
    const result = await searchNamespaces(ctx.db, parseNamespaceSearch(req.body));
    return reply.code(200).send({ ...head(), result });
  });
};
export default plugin;
