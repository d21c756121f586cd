/**
 * Probe ingestion API: `POST /v1/probes` accepts a batch of GPS pings (admin app token), stores
 * them idempotently, matches the traces that got new pings and updates learned and live speeds.
 * Malformed pings are reported by index and never reject the rest of the batch.
 * Errors: `{ error: { code, statusId, userMessage } }` (codes PROBES_*, see docs/probes.md).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError } from '../../auth/auth-service.js';
import { ingestRecordsAndProcess } from '../../probes/pipeline.js';
import { refreshFactsAfterIngest } from '../../app/facts-after-ingest.js';
import { ProbesHttpError } from './errors.js';
import { recordFromObject } from '../../probes/ingest/jsonl.js';
import type { ProbeRecord } from '../../probes/ingest/records.js';
import { bearerToken } from '../tokens.js';

/** Most pings accepted in one request. */
export const MAX_PINGS_PER_REQUEST = 10_000;


const pingSchema = {
  type: 'object',
  description: 'one GPS ping; aliases trace_id/id, time/t, lng/longitude, speed, heading are accepted',
  properties: {
    traceId: { type: 'string', description: 'vehicle / trip identifier (pings are unique per traceId and timestamp)' },
    timestamp: { type: ['number', 'string'], description: 'unix seconds, unix milliseconds (≥ 1e11) or ISO 8601 (UTC when no offset)' },
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lon: { type: 'number', minimum: -180, maximum: 180 },
    speedKph: { type: 'number', description: 'reported speed, km/h (optional)' },
    headingDeg: { type: 'number', description: 'reported heading, degrees clockwise from north (optional)' },
  },
} as const;

const errorSchema = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, statusId: { type: 'integer' }, userMessage: { type: 'string' } } } },
} as const;

const routeSchema = {
  tags: ['probes'],
  summary: 'Ingest a batch of probe (GPS) pings',
  description: 'Stores pings idempotently by (traceId, timestamp), map-matches the traces that received new pings, and updates learned and live edge speeds. Requires an admin app token (Authorization: Bearer). Malformed pings are listed in `issues` by array index and do not reject the batch.',
  security: [{ bearer: [] }],
  body: {
    type: 'object',
    required: ['pings'],
    properties: { pings: { type: 'array', maxItems: MAX_PINGS_PER_REQUEST, items: pingSchema } },
  },
  response: {
    200: {
      type: 'object',
      properties: {
        received: { type: 'integer', description: 'pings in the request' },
        inserted: { type: 'integer', description: 'pings newly stored' },
        duplicates: { type: 'integer', description: 'pings already stored (same traceId and timestamp)' },
        malformed: { type: 'integer' },
        issues: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, message: { type: 'string' } } } },
        matched: {
          type: 'object',
          properties: {
            traces: { type: 'integer' }, trajectories: { type: 'integer' }, traversals: { type: 'integer' },
            unmatchedPings: { type: 'integer' }, edgesUpdated: { type: 'integer' }, liveEdges: { type: 'integer' },
          },
        },
      },
    },
    400: errorSchema, 401: errorSchema, 403: errorSchema, 413: errorSchema,
  },
};

/** Checks the admin app token; throws ProbesHttpError 401/403. */
async function requireAdmin(ctx: AppContext, req: FastifyRequest): Promise<void> {
  const token = bearerToken(req);
  if (token === undefined) throw new ProbesHttpError(401, 'PROBES_AUTH_MISSING', 'Authorization: Bearer <app token> is required');
  try {
    const claims = await ctx.auth.verifyAppToken(token);
    if (!claims.admin) throw new ProbesHttpError(403, 'PROBES_FORBIDDEN', 'probe ingestion requires an admin application token');
  } catch (err) {
    if (err instanceof AuthError) throw new ProbesHttpError(401, err.code === 'AUTH_TOKEN_EXPIRED' ? 'PROBES_AUTH_EXPIRED' : 'PROBES_AUTH_INVALID', err.message);
    throw err;
  }
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, opts) => {
  const { ctx } = opts;
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply: FastifyReply) => {
    if (err instanceof ProbesHttpError) {
      return reply.code(err.statusCode).send({ error: { code: err.code, statusId: err.statusCode, userMessage: err.message } });
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'probe ingestion failed');
    const code = status === 413 ? 'PROBES_BODY_TOO_LARGE' : status === 500 ? 'PROBES_INTERNAL' : 'PROBES_BAD_REQUEST';
    return reply.code(status).send({ error: { code, statusId: status, userMessage: status === 500 ? 'Internal server error' : err.message } });
  });

  app.post('/v1/probes', {
    schema: routeSchema,
    bodyLimit: 16 * 1024 * 1024,
    // The schema documents the body; rows are validated one by one below so that one bad ping
    // is reported by index instead of rejecting the batch.
    validatorCompiler: () => () => true,
  }, async (req) => {
    await requireAdmin(ctx, req);
    const body = req.body as { pings?: unknown } | null;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', 'body must be a JSON object with a "pings" array');
    if (!Array.isArray(body.pings)) throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', 'pings: required, must be an array of ping objects');
    if (body.pings.length > MAX_PINGS_PER_REQUEST) throw new ProbesHttpError(413, 'PROBES_TOO_MANY_PINGS', `pings: at most ${MAX_PINGS_PER_REQUEST} per request, got ${body.pings.length}`);
    const records: ProbeRecord[] = [];
    const issues: Array<{ index: number; message: string }> = [];
    body.pings.forEach((p, index) => {
      const r = recordFromObject(p);
      if (typeof r === 'string') issues.push({ index, message: r });
      else records.push(r);
    });
    const nowS = ctx.now() / 1000;
    const { ingest, process } = await ingestRecordsAndProcess({
      db: ctx.db, graph: ctx.region.graph, mapVersion: ctx.region.meta.mapVersion, timeZone: ctx.region.meta.timeZone,
      feeds: ctx.speeds, nowS,
    }, records);
    // intersection analytics sees the new trajectories at once
    const facts = await refreshFactsAfterIngest(ctx.db, ctx.region, ingest);
    return {
      received: body.pings.length, inserted: ingest.inserted, duplicates: ingest.duplicates, malformed: issues.length,
      issues: issues.slice(0, 1000), matched: process, intersectionFacts: facts.facts,
    };
  });
};

export default plugin;
