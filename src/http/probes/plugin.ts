/**
 * Probe ingestion API: `POST /v1/probes` (admin app token) takes a body of GPS pings as JSON
 * (`{ "pings": [ … ] }`), NDJSON, CSV or SUMO FCD XML, streamed: the body goes to the ingestion
 * thread as it arrives (memory stays bounded), where pings are stored idempotently, the traces
 * that got new pings are map-matched and learned and live speeds and intersection facts updated.
 * The answer comes when that is done, and this process's routing already uses the new speeds.
 * Malformed pings are reported by index (JSON) or line and never reject the rest of the body.
 * Errors: `{ error: { code, statusId, userMessage } }` (codes PROBES_*, see docs/probes.md).
 */
import { Transform, type Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError } from '../../auth/auth-service.js';
import { inThreadIngestion, type Ingestion } from '../../app/ingestion/ingestion.js';
import { DEFAULT_MAX_JSON_PINGS, IngestJobError, type IngestJobSpec, type JobFormat } from '../../app/ingestion/ingest-job.js';
import { parseTimestampS } from '../../probes/ingest/records.js';
import { ProbesHttpError, type ProbesErrorCode } from './errors.js';
import { bearerToken } from '../tokens.js';

/** Most pings in one JSON document (`{ "pings": [ … ] }`); stream larger feeds as NDJSON or CSV. */
export const MAX_PINGS_PER_REQUEST = DEFAULT_MAX_JSON_PINGS;

/** Content types → job formats. */
const FORMATS: Record<string, JobFormat> = {
  'application/json': 'json',
  'application/x-ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
  'application/json-lines': 'jsonl',
  'text/csv': 'csv',
  'application/xml': 'fcd',
  'text/xml': 'fcd',
};

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
  summary: 'Ingest probe (GPS) pings: JSON, NDJSON, CSV or SUMO FCD, streamed',
  description: 'Stores pings idempotently by (traceId, timestamp), map-matches the traces that received new pings (and any a failed earlier batch left unprocessed), and updates learned and live edge speeds and intersection facts. Requires an admin app token (Authorization: Bearer). The body type is chosen by Content-Type: application/json (`{"pings":[…]}`, at most 10 000 pings), application/x-ndjson, text/csv, application/xml (SUMO FCD); any other type is answered 415. Malformed pings are listed in `issues` (by array index for JSON, by line otherwise) and do not reject the rest.',
  security: [{ bearer: [] }],
  querystring: {
    type: 'object',
    properties: {
      defer: { type: 'string', enum: ['true', 'false'], description: 'true: answer once the pings are stored (safe to acknowledge); they are processed by POST /v1/admin/probes/process or within about 30 s by the ingestion thread. Default false: answer after processing' },
      fcdStart: { type: 'string', description: 'FCD only: ISO 8601 or unix time of simulation second 0 (default 2026-01-05T00:00:00Z)' },
      tracePrefix: { type: 'string', description: 'FCD only: prefix for vehicle ids' },
    },
  },
  body: {
    content: {
      'application/json': { schema: { type: 'object', required: ['pings'], properties: { pings: { type: 'array', maxItems: MAX_PINGS_PER_REQUEST, items: pingSchema } } } },
      'application/x-ndjson': { schema: { type: 'string', description: 'one ping object per line' } },
      'text/csv': { schema: { type: 'string', description: 'a header line, then one ping per line (see docs/probes.md for the columns)' } },
      'application/xml': { schema: { type: 'string', description: 'SUMO --fcd-output with --fcd-output.geo' } },
    },
  },
  response: {
    200: {
      type: 'object',
      properties: {
        received: { type: 'integer', description: 'pings in the body, well-formed or not' },
        inserted: { type: 'integer', description: 'pings newly stored' },
        duplicates: { type: 'integer', description: 'pings already stored (same traceId and timestamp)' },
        malformed: { type: 'integer' },
        issues: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, line: { type: 'integer' }, message: { type: 'string' } } } },
        matched: {
          type: 'object',
          properties: {
            traces: { type: 'integer' }, trajectories: { type: 'integer' }, traversals: { type: 'integer' },
            unmatchedPings: { type: 'integer' }, edgesUpdated: { type: 'integer' }, liveEdges: { type: 'integer' },
          },
        },
        intersectionFacts: { type: 'integer' },
      },
    },
    400: errorSchema, 401: errorSchema, 403: errorSchema, 413: errorSchema, 415: errorSchema, 503: errorSchema,
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

/** The job a request asks for: its format from Content-Type, options from the query. */
function jobSpec(req: FastifyRequest): IngestJobSpec {
  const raw = req.headers['content-type'];
  const type = (raw ?? '').split(';')[0].trim().toLowerCase();
  const format = FORMATS[type];
  if (format === undefined) {
    throw new ProbesHttpError(415, 'PROBES_UNSUPPORTED_TYPE', `${raw ? `Content-Type ${type} is not accepted` : 'Content-Type is missing'}: send application/json ({"pings":[…]}), application/x-ndjson, text/csv or application/xml (SUMO FCD)`);
  }
  const q = (req.query ?? {}) as Record<string, unknown>;
  const spec: IngestJobSpec = { format };
  for (const [k, v] of Object.entries(q)) {
    if (Array.isArray(v)) throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', `${k}: give it once`);
    if (k === 'defer') {
      if (v !== 'true' && v !== 'false') throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', `defer: true or false, got ${String(v)}`);
      spec.defer = v === 'true';
    } else if (k === 'fcdStart' || k === 'tracePrefix') {
      if (format !== 'fcd') throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', `${k}: only for SUMO FCD bodies (application/xml)`);
      if (k === 'tracePrefix') spec.tracePrefix = String(v);
      else {
        const s = parseTimestampS(String(v));
        if (!Number.isFinite(s)) throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', `fcdStart: ${String(v)} is not ISO 8601 or unix time`);
        spec.fcdStartS = s;
      }
    } else {
      throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', `${k}: unknown parameter (accepted: defer, fcdStart, tracePrefix)`);
    }
  }
  return spec;
}

/** Passes `body` through, failing it with PROBES_BODY_TOO_LARGE beyond `limit` bytes. */
function limited(body: Readable, limit: number): Readable {
  let n = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      n += chunk.length;
      if (n > limit) done(new IngestJobError(413, 'PROBES_BODY_TOO_LARGE', `the body exceeds ${limit} bytes (PROBES_BODY_LIMIT_BYTES)`));
      else done(null, chunk);
    },
  });
  body.on('error', (err) => t.destroy(err));
  body.on('aborted', () => t.destroy(new Error('the client closed the connection')));
  return body.pipe(t);
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, opts) => {
  const { ctx } = opts;
  const local: Ingestion | undefined = ctx.ingestion ? undefined : inThreadIngestion(() => ({ db: ctx.db, region: ctx.region, feeds: ctx.speeds, nowS: ctx.now() / 1000 }));
  const ingestion = ctx.ingestion ?? local!;
  if (local) app.addHook('onClose', async () => local.close());

  // Bodies are streamed to the ingestion thread as they arrive, whatever their type; the
  // handler picks the format (or answers 415).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply: FastifyReply) => {
    if (err instanceof ProbesHttpError) {
      return reply.code(err.statusCode).send({ error: { code: err.code, statusId: err.statusCode, userMessage: err.message } });
    }
    if (err instanceof IngestJobError) {
      return reply.code(err.status).send({ error: { code: err.code as ProbesErrorCode, statusId: err.status, userMessage: err.message } });
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'probe ingestion failed');
    const code = status === 413 ? 'PROBES_BODY_TOO_LARGE' : status === 500 ? 'PROBES_INTERNAL' : 'PROBES_BAD_REQUEST';
    return reply.code(status).send({ error: { code, statusId: status, userMessage: status === 500 ? 'Internal server error' : err.message } });
  });

  app.post('/v1/probes', {
    schema: routeSchema,
    // The schema documents the body; pings are validated one by one as they are read so that
    // one bad ping is reported by index or line instead of rejecting the rest.
    validatorCompiler: () => () => true,
  }, async (req) => {
    await requireAdmin(ctx, req);
    const spec = jobSpec(req);
    const body = req.body as Readable | undefined | null;
    if (body === undefined || body === null || typeof (body as Readable).pipe !== 'function') {
      throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', 'the body is empty: send pings');
    }
    const { changeSeq, ...report } = await ingestion.submit(spec, limited(body, ctx.config.probes.bodyLimitBytes));
    // this process's routing sees the new speeds before the client hears back
    if (ctx.changes && changeSeq > 0) await ctx.changes.catchUp(changeSeq);
    return report;
  });
};

export default plugin;
