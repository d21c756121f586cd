/**
 * The operator admin API (admin app token): what the CLI does through a running server that owns
 * the embedded database — applications and signing keys, parking documents, processing stored
 * probes, rebuilding intersection facts. Every route is also usable by any admin client.
 * Errors: `{ error: { code, statusId, userMessage } }` (codes ADMIN_*, see docs/errors.md).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { loadParkingDocument } from '../../app/parking-upload.js';
import { summarizeTraces, waitProcessed } from '../../app/ingestion/intake.js';
import { pendingNow } from '../../probes/ingest/pending.js';
import { rebuildFacts } from '../../analytics/index.js';
import { announceChange, latestChangeSeq } from '../../store/changes.js';
import { AdminHttpError } from './errors.js';
import { processedProperties } from '../probes/plugin.js';
import { clientProblemOf } from '../request-errors.js';
import { registerAppRoutes, registerSigningKeyRoutes } from './apps.js';
import { bodyObject, errors, optionalTime, requireAdmin, security } from './guard.js';

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

/** Answers every admin error in the `{ error: { code, statusId, userMessage } }` shape. */
function setAdminErrorHandler(app: FastifyInstance): void {
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
}

/** `POST /v1/admin/parking/load`. */
function registerParkingRoutes(app: FastifyInstance, ctx: AppContext): void {
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
}

/** `POST /v1/admin/probes/process`. */
function registerProbeRoutes(app: FastifyInstance, ctx: AppContext): void {
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
}

/** `POST /v1/admin/analytics/refresh`. */
function registerAnalyticsRoutes(app: FastifyInstance, ctx: AppContext): void {
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
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  setAdminErrorHandler(app);
  registerAppRoutes(app, ctx);
  registerSigningKeyRoutes(app, ctx);
  registerParkingRoutes(app, ctx);
  registerProbeRoutes(app, ctx);
  registerAnalyticsRoutes(app, ctx);
};

export default plugin;
