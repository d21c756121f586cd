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
import { IngestJobError, type IngestJobSpec } from '../../app/ingestion/ingest-job.js';
import { releaseRequest } from '../../app/ingestion/step-aside.js';
import { probeFormatFromRequest } from '../../probes/ingest/request-format.js';
import { ProbesHttpError, type ProbesErrorCode } from './errors.js';
import { bearerToken } from '../tokens.js';

/** Query parameters of the formats (see `probeFormatFromRequest`). */
const KNOWN_PARAMS = new Set(['columns', 'header', 'fcdStart', 'tracePrefix']);

const pingSchema = {
  type: 'object',
  description: 'one GPS ping; aliases trace_id/id, time/t, lng/longitude, speed, heading are accepted',
  properties: {
    traceId: { type: 'string', description: 'vehicle / trip identifier (pings are unique per traceId and timestamp)' },
    timestamp: {
      type: ['number', 'string'],
      description: 'unix seconds, unix milliseconds (≥ 1e11) or ISO 8601 (UTC when no offset)',
    },
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lon: { type: 'number', minimum: -180, maximum: 180 },
    speedKph: { type: 'number', description: 'reported speed, km/h (optional)' },
    headingDeg: { type: 'number', description: 'reported heading, degrees clockwise from north (optional)' },
  },
} as const;

/** What processing did, as `POST /v1/probes` and `POST /v1/admin/probes/process` report it. */
export const processedProperties = {
  matched: {
    type: 'object',
    properties: {
      traces: { type: 'integer' },
      trajectories: { type: 'integer' },
      traversals: { type: 'integer' },
      unmatchedPings: { type: 'integer' },
      edgesUpdated: { type: 'integer' },
      liveEdges: { type: 'integer' },
    },
  },
  intersectionFacts: { type: 'integer' },
} as const;

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, statusId: { type: 'integer' }, userMessage: { type: 'string' } },
    },
  },
} as const;

const routeSchema = {
  tags: ['probes'],
  summary: 'Ingest probe (GPS) pings: JSON, NDJSON, CSV or SUMO FCD, streamed',
  description:
    'Stores pings idempotently by (traceId, timestamp), map-matches the traces that received new pings (and any a failed earlier batch left unprocessed), and updates learned and live edge speeds and intersection facts. Requires an admin app token (Authorization: Bearer). The body type is chosen by Content-Type: application/json (`{"pings":[…]}` or an array of pings), application/x-ndjson, text/csv (header names or a `columns` mapping with units), application/xml (SUMO FCD); any other type is answered 415. Every format is read as a stream: memory stays bounded whatever the body size. Malformed pings are listed in `issues` (by array index for JSON, by line otherwise) and do not reject the rest.',
  security: [{ bearer: [] }],
  querystring: {
    type: 'object',
    properties: {
      defer: {
        type: 'string',
        enum: ['true', 'false'],
        description:
          'true: answer once the pings are stored (safe to acknowledge); they are processed by POST /v1/admin/probes/process or within about 30 s by the ingestion thread. Default false: answer after processing',
      },
      columns: {
        type: 'string',
        description:
          'CSV only: column mapping `field=column[:unit]`, e.g. `trace=vehicle,time=ts:ms,lat=y,lon=x,speed=v:mps` (see docs/probes.md)',
      },
      header: {
        type: 'string',
        enum: ['true', 'false'],
        description: 'CSV only: whether the first row is a header (default: detected)',
      },
      fcdStart: {
        type: 'string',
        description: 'FCD only: ISO 8601 or unix time of simulation second 0 (default 2026-01-05T00:00:00Z)',
      },
      tracePrefix: { type: 'string', description: 'FCD only: prefix for vehicle ids' },
    },
  },
  body: {
    content: {
      'application/json': {
        schema: { type: 'object', required: ['pings'], properties: { pings: { type: 'array', items: pingSchema } } },
      },
      'application/x-ndjson': { schema: { type: 'string', description: 'one ping object per line' } },
      'text/csv': {
        schema: {
          type: 'string',
          description: 'a header line, then one ping per line (see docs/probes.md for the columns)',
        },
      },
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
        issues: {
          type: 'array',
          items: {
            type: 'object',
            properties: { index: { type: 'integer' }, line: { type: 'integer' }, message: { type: 'string' } },
          },
        },
        ...processedProperties,
      },
    },
    400: errorSchema,
    401: errorSchema,
    403: errorSchema,
    413: errorSchema,
    415: errorSchema,
    503: errorSchema,
  },
};

/** Checks the admin app token; throws ProbesHttpError 401/403. */
async function requireAdmin(ctx: AppContext, req: FastifyRequest): Promise<void> {
  const token = bearerToken(req);
  if (token === undefined)
    throw new ProbesHttpError(401, 'PROBES_AUTH_MISSING', 'Authorization: Bearer <app token> is required');
  try {
    const claims = await ctx.auth.verifyAppToken(token);
    if (!claims.admin)
      throw new ProbesHttpError(403, 'PROBES_FORBIDDEN', 'probe ingestion requires an admin application token');
  } catch (err) {
    if (err instanceof AuthError)
      throw new ProbesHttpError(
        401,
        err.code === 'AUTH_TOKEN_EXPIRED' ? 'PROBES_AUTH_EXPIRED' : 'PROBES_AUTH_INVALID',
        err.message,
      );
    throw err;
  }
}

/** The job a request asks for: its format from Content-Type, options from the query. */
function jobSpec(req: FastifyRequest): IngestJobSpec {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const f = probeFormatFromRequest(req.headers['content-type'], q);
  if ('status' in f)
    throw new ProbesHttpError(f.status, f.status === 415 ? 'PROBES_UNSUPPORTED_TYPE' : 'PROBES_BAD_REQUEST', f.message);
  const spec: IngestJobSpec = { format: f.format, ...f.options };
  for (const [k, v] of Object.entries(q)) {
    if (KNOWN_PARAMS.has(k)) continue;
    if (k !== 'defer')
      throw new ProbesHttpError(
        400,
        'PROBES_BAD_REQUEST',
        `${k}: unknown parameter (accepted: ${[...KNOWN_PARAMS, 'defer'].join(', ')})`,
      );
    if (v !== 'true' && v !== 'false')
      throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', `defer: true or false, got ${String(v)}`);
    spec.defer = v === 'true';
  }
  return spec;
}

/** Passes `body` through, failing it with PROBES_BODY_TOO_LARGE beyond `limit` bytes. */
function limited(body: Readable, limit: number): Readable {
  let n = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      n += chunk.length;
      if (n > limit)
        done(
          new IngestJobError(413, 'PROBES_BODY_TOO_LARGE', `the body exceeds ${limit} bytes (PROBES_BODY_LIMIT_BYTES)`),
        );
      else done(null, chunk);
    },
  });
  body.on('error', (err) => t.destroy(err));
  body.on('aborted', () => t.destroy(new Error('the client closed the connection')));
  return body.pipe(t);
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, opts) => {
  const { ctx } = opts;
  const local: Ingestion | undefined = ctx.ingestion
    ? undefined
    : inThreadIngestion(() => ({ db: ctx.db, region: ctx.region, feeds: ctx.speeds, nowS: ctx.now() / 1000 }));
  const ingestion = ctx.ingestion ?? local!;
  if (local) app.addHook('onClose', async () => local.close());

  // Bodies are streamed to the ingestion thread as they arrive, whatever their type; the
  // handler picks the format (or answers 415).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply: FastifyReply) => {
    if (err instanceof ProbesHttpError) {
      return reply
        .code(err.statusCode)
        .send({ error: { code: err.code, statusId: err.statusCode, userMessage: err.message } });
    }
    if (err instanceof IngestJobError) {
      return reply
        .code(err.status)
        .send({ error: { code: err.code as ProbesErrorCode, statusId: err.status, userMessage: err.message } });
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'probe ingestion failed');
    const code = status === 413 ? 'PROBES_BODY_TOO_LARGE' : status === 500 ? 'PROBES_INTERNAL' : 'PROBES_BAD_REQUEST';
    return reply
      .code(status)
      .send({ error: { code, statusId: status, userMessage: status === 500 ? 'Internal server error' : err.message } });
  });

  app.post(
    '/v1/probes',
    {
      schema: routeSchema,
      // The schema documents the body; pings are validated one by one as they are read so that
      // one bad ping is reported by index or line instead of rejecting the rest.
      validatorCompiler: () => () => true,
    },
    async (req) => {
      await requireAdmin(ctx, req);
      const spec = jobSpec(req);
      const body = req.body as Readable | undefined | null;
      if (body === undefined || body === null || typeof (body as Readable).pipe !== 'function') {
        throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', 'the body is empty: send pings');
      }
      releaseRequest(req.raw);
      const { changeSeq, ...report } = await ingestion.submit(spec, limited(body, ctx.config.probes.bodyLimitBytes));
      // this process's routing sees the new speeds before the client hears back
      if (ctx.changes && changeSeq > 0) await ctx.changes.catchUp(changeSeq);
      return report;
    },
  );
};

export default plugin;
