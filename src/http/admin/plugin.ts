/**
 * The operator admin API (admin app token): what the CLI does through a running server that owns
 * the embedded database — applications and signing keys, parking documents, processing stored
 * probes, rebuilding intersection facts. Every route is also usable by any admin client.
 * Errors: `{ error: { code, statusId, userMessage } }` (codes ADMIN_*, see docs/errors.md).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError, createApp, hashTokenFor, listApps, rotateSigningKey, setAppStatus } from '../../auth/index.js';
import { loadParkingDocument } from '../../app/parking-upload.js';
import { summarizeTraces, waitProcessed } from '../../app/ingestion/intake.js';
import { pendingNow } from '../../probes/ingest/pending.js';
import { rebuildFacts } from '../../analytics/index.js';
import { announceChange, latestChangeSeq } from '../../store/changes.js';
import { parseTimestampS } from '../../probes/ingest/records.js';
import { bearerToken } from '../tokens.js';
import { AdminHttpError } from './errors.js';
import { processedProperties } from '../probes/plugin.js';
import { clientProblemOf } from '../request-errors.js';

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, statusId: { type: 'integer' }, userMessage: { type: 'string' } },
    },
  },
} as const;
const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 503: errorSchema };
const security = [{ bearer: [] }];
const processedSchema = {
  type: 'object',
  properties: {
    ...processedProperties,
    pendingTraces: {
      type: 'integer',
      description: 'traces still pending (no ingestion worker runs, or PROBES_WAIT_S passed)',
    },
  },
} as const;

/** Checks the admin app token; throws AdminHttpError 401/403. */
async function requireAdmin(ctx: AppContext, req: FastifyRequest): Promise<void> {
  const token = bearerToken(req);
  if (token === undefined)
    throw new AdminHttpError('ADMIN_AUTH_MISSING', 'Authorization: Bearer <admin app token> is required');
  try {
    const claims = await ctx.auth.verifyAppToken(token);
    if (!claims.admin) throw new AdminHttpError('ADMIN_FORBIDDEN', 'this operation needs an admin application token');
  } catch (err) {
    if (err instanceof AuthError)
      throw new AdminHttpError(
        err.code === 'AUTH_TOKEN_EXPIRED' ? 'ADMIN_AUTH_EXPIRED' : 'ADMIN_AUTH_INVALID',
        err.message,
      );
    throw err;
  }
}

/** The body as an object with only `allowed` keys; throws ADMIN_BAD_REQUEST naming the key. */
function bodyObject(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new AdminHttpError('ADMIN_BAD_REQUEST', 'body must be a JSON object');
  const o = body as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!allowed.includes(k))
      throw new AdminHttpError('ADMIN_BAD_REQUEST', `${k}: unknown field (accepted: ${allowed.join(', ')})`);
  return o;
}

/** An optional ISO 8601 or unix time field, unix seconds. */
function optionalTime(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const s = parseTimestampS(v);
  if (!Number.isFinite(s))
    throw new AdminHttpError('ADMIN_BAD_REQUEST', `${key}: ${JSON.stringify(v)} is not ISO 8601 or unix time`);
  return s;
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply: FastifyReply) => {
    if (err instanceof AdminHttpError)
      return reply
        .code(err.statusCode)
        .send({ error: { code: err.code, statusId: err.statusCode, userMessage: err.message } });
    if (err.name === 'ParkingError')
      return reply.code(400).send({ error: { code: 'ADMIN_BAD_REQUEST', statusId: 400, userMessage: err.message } });
    // edge errors (body, Content-Type, schema): our message (request-errors.ts), no framework code
    const problem = clientProblemOf(err);
    const status = problem?.status ?? 500;
    if (status === 500) req.log.error({ err }, 'admin operation failed');
    return reply.code(status).send({
      error: {
        code: status === 500 ? 'ADMIN_INTERNAL' : 'ADMIN_BAD_REQUEST',
        statusId: status,
        userMessage: problem?.message ?? 'Internal server error',
      },
    });
  });

  app.post(
    '/v1/admin/apps',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create an application (its appKey is shown only in this answer)',
        security,
        body: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            admin: { type: 'boolean' },
            tokenHours: { type: 'integer', minimum: 1, maximum: 720 },
          },
          required: ['name'],
        },
        response: {
          201: {
            type: 'object',
            properties: {
              appId: { type: 'string' },
              appKey: { type: 'string' },
              hashToken: { type: 'string' },
              name: { type: 'string' },
              admin: { type: 'boolean' },
            },
          },
          ...errors,
        },
      },
      validatorCompiler: () => () => true,
    },
    async (req, reply) => {
      await requireAdmin(ctx, req);
      const b = bodyObject(req.body, ['name', 'admin', 'tokenHours']);
      if (typeof b.name !== 'string' || b.name.trim() === '' || b.name.length > 200)
        throw new AdminHttpError('ADMIN_BAD_REQUEST', 'name: required, 1–200 characters');
      if (b.admin !== undefined && typeof b.admin !== 'boolean')
        throw new AdminHttpError('ADMIN_BAD_REQUEST', 'admin: true or false');
      const hours = b.tokenHours ?? 24;
      if (typeof hours !== 'number' || !Number.isInteger(hours) || hours < 1 || hours > 720)
        throw new AdminHttpError('ADMIN_BAD_REQUEST', 'tokenHours: an integer in 1..720');
      const a = await createApp(ctx.db, { name: b.name, admin: b.admin === true, tokenExpirationHours: hours });
      return reply.code(201).send({
        appId: a.appId,
        appKey: a.appKey,
        hashToken: hashTokenFor(a.appId, a.appKey),
        name: a.name,
        admin: a.admin,
      });
    },
  );

  app.get(
    '/v1/admin/apps',
    {
      schema: {
        tags: ['admin'],
        summary: 'List applications (never their keys)',
        security,
        response: {
          200: {
            type: 'object',
            properties: {
              apps: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    appId: { type: 'string' },
                    name: { type: 'string' },
                    admin: { type: 'boolean' },
                    status: { type: 'string' },
                    createdAt: { type: 'string' },
                  },
                },
              },
            },
          },
          ...errors,
        },
      },
    },
    async (req) => {
      await requireAdmin(ctx, req);
      const apps = await listApps(ctx.db);
      return {
        apps: apps.map((a) => ({
          appId: a.appId,
          name: a.name,
          admin: a.admin,
          status: a.status === 2 ? 'active' : 'disabled',
          createdAt: a.createdAt.toISOString(),
        })),
      };
    },
  );

  app.post(
    '/v1/admin/apps/:appId/disable',
    {
      schema: {
        tags: ['admin'],
        summary: 'Disable an application (its new token requests fail)',
        security,
        params: { type: 'object', properties: { appId: { type: 'string' } } },
        response: errors,
      },
    },
    async (req) => {
      await requireAdmin(ctx, req);
      const { appId } = req.params as { appId: string };
      if (!(await setAppStatus(ctx.db, appId, 0)))
        throw new AdminHttpError('ADMIN_NOT_FOUND', `no application ${appId}`);
      return { appId, status: 'disabled' };
    },
  );

  app.post(
    '/v1/admin/signing-keys',
    {
      schema: {
        tags: ['admin'],
        summary: 'Start signing tokens with a new key (tokens signed before stay valid until they expire)',
        security,
        response: errors,
      },
    },
    async (req) => {
      await requireAdmin(ctx, req);
      return { kid: await rotateSigningKey(ctx.db) };
    },
  );

  app.post(
    '/v1/admin/parking/load',
    {
      bodyLimit: 64 * 1024 * 1024,
      schema: {
        tags: ['admin'],
        summary:
          'Load a parking document: { lots, blocks, products, publishers }, a bare array of lots, or a GeoJSON FeatureCollection (what `streetwise parking load` reads)',
        security,
        body: {
          description: 'the document',
          anyOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }],
        },
        response: errors,
      },
      validatorCompiler: () => () => true,
    },
    async (req) => {
      await requireAdmin(ctx, req);
      if (req.body === undefined || req.body === null)
        throw new AdminHttpError('ADMIN_BAD_REQUEST', 'body: a parking document is required');
      const res = await loadParkingDocument(ctx.db, ctx.region.meta.name, req.body);
      await announceChange(ctx.db, 'parking', '');
      return res;
    },
  );

  app.post(
    '/v1/admin/probes/process',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Wait until every probe ping of the served region stored so far is processed by its ingestion workers (after POST /v1/probes?defer=true); answers with what is stored for those traces',
        security,
        response: { 200: processedSchema, ...errors },
      },
      validatorCompiler: () => () => true,
    },
    async (req) => {
      await requireAdmin(ctx, req);
      bodyObject(req.body, []);
      const region = ctx.region.meta.name;
      const refs = await pendingNow(ctx.db, region);
      const pendingTraces = await waitProcessed(ctx.db, region, refs, {
        workers: ctx.ingestion?.workers ?? (async () => 0),
        maxWaitMs: ctx.config.probes.waitS * 1000,
      });
      if (ctx.changes && pendingTraces < refs.length) await ctx.changes.catchUp(await latestChangeSeq(ctx.db));
      const ids = refs.map((r) => r.traceId);
      const { intersectionFacts, ...matched } = await summarizeTraces(ctx.db, ctx.region, ids, ctx.now() / 1000);
      return { matched, intersectionFacts, pendingTraces };
    },
  );

  app.post(
    '/v1/admin/analytics/refresh',
    {
      schema: {
        tags: ['admin'],
        summary: 'Rebuild intersection facts from the stored trajectories (all, or those overlapping since…until)',
        security,
        body: {
          type: 'object',
          properties: {
            since: { type: 'string', description: 'ISO 8601 or unix seconds' },
            until: { type: 'string', description: 'ISO 8601 or unix seconds' },
          },
        },
        response: {
          200: { type: 'object', properties: { trajectories: { type: 'integer' }, facts: { type: 'integer' } } },
          ...errors,
        },
      },
      validatorCompiler: () => () => true,
    },
    async (req) => {
      await requireAdmin(ctx, req);
      const b = bodyObject(req.body, ['since', 'until']);
      return rebuildFacts(ctx.db, ctx.region, { sinceS: optionalTime(b, 'since'), untilS: optionalTime(b, 'until') });
    },
  );
};

export default plugin;
