/**
 * Probe ingestion API: `POST /v1/probes` (admin app token) takes a body of GPS pings as JSON
 * (`{ "pings": [ … ] }`), NDJSON, CSV or SUMO FCD XML, streamed as it arrives (memory stays
 * bounded): pings are stored idempotently, each batch with the pending marks of its traces. Unless
 * `defer=true`, the answer waits until the owners of those traces (the ingestion workers of the
 * region, in this process or others) have matched them and updated traversals, learned and live
 * speeds and intersection facts, and until this serving thread follows the speeds they announced.
 * Malformed pings are reported by index (JSON) or line and never reject the rest of the body.
 * Errors: `{ error: { code, statusId, userMessage } }` (codes PROBES_*, see docs/probes.md).
 */
import { Transform, type Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError } from '../../auth/auth-service.js';
import { summarizeTraces, waitProcessed } from '../../app/ingestion/intake.js';
import { latestChangeSeq } from '../../store/changes.js';
import { ingestProbeStream, type ReadProbesOptions } from '../../probes/ingest/ingest.js';
import { ProbeFormatError } from '../../probes/ingest/errors.js';
import { pendingRefsOf } from '../../probes/ingest/pending.js';
import type { ProbeFormatName } from '../../probes/ingest/records.js';
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
    description: 'what is stored, once processed, for the traces of the body (the same answer for a retried body)',
    properties: {
      traces: { type: 'integer', description: 'traces of the body' },
      trajectories: { type: 'integer', description: 'their matched trajectories (parts)' },
      traversals: { type: 'integer', description: 'their edge traversals' },
      unmatchedPings: { type: 'integer', description: 'their stored pings on no traversal (off-road, outliers)' },
      edgesUpdated: { type: 'integer', description: 'distinct edges their traversals cover' },
      liveEdges: { type: 'integer', description: 'of those, edges with a live speed now' },
    },
  },
  intersectionFacts: { type: 'integer', description: 'intersection crossings (facts) of those traces' },
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
        pendingTraces: {
          type: 'integer',
          description:
            'traces of the body not processed when the answer was sent: all of them with defer=true; otherwise 0 unless no ingestion worker is running or PROBES_WAIT_S passed',
        },
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

/** What a request asks for: its format from Content-Type, reader options and `defer` from the query. */
interface ProbeRequest {
  format: ProbeFormatName;
  options: ReadProbesOptions;
  defer: boolean;
}

/** Reads the request's format and query; throws ProbesHttpError naming the parameter. */
function probeRequest(req: FastifyRequest): ProbeRequest {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const f = probeFormatFromRequest(req.headers['content-type'], q);
  if ('status' in f)
    throw new ProbesHttpError(f.status, f.status === 415 ? 'PROBES_UNSUPPORTED_TYPE' : 'PROBES_BAD_REQUEST', f.message);
  let defer = false;
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
    defer = v === 'true';
  }
  return { format: f.format, options: f.options, defer };
}

/** Passes `body` through, failing it with PROBES_BODY_TOO_LARGE beyond `limit` bytes. */
function limited(body: Readable, limit: number): Readable {
  let n = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      n += chunk.length;
      if (n > limit)
        done(
          new ProbesHttpError(
            413,
            'PROBES_BODY_TOO_LARGE',
            `the body exceeds ${limit} bytes (PROBES_BODY_LIMIT_BYTES)`,
          ),
        );
      else done(null, chunk);
    },
  });
  body.on('error', (err) => t.destroy(err));
  body.on('aborted', () => t.destroy(new Error('the client closed the connection')));
  return body.pipe(t);
}

const NOTHING_MATCHED = { traces: 0, trajectories: 0, traversals: 0, unmatchedPings: 0, edgesUpdated: 0, liveEdges: 0 };

/** Answers an error of the probe API in its own shape (`{ error: { code, statusId, userMessage } }`). */
function probesErrorHandler(
  err: Error & { statusCode?: number; code?: string },
  req: FastifyRequest,
  reply: FastifyReply,
) {
  if (err instanceof ProbesHttpError) {
    return reply
      .code(err.statusCode)
      .send({ error: { code: err.code, statusId: err.statusCode, userMessage: err.message } });
  }
  // a body that cannot be read as asked: readers say so before their first record, so nothing was stored
  if (err instanceof ProbeFormatError) {
    return reply
      .code(400)
      .send({ error: { code: err.code as ProbesErrorCode, statusId: 400, userMessage: err.message } });
  }
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  if (status === 500) req.log.error({ err }, 'probe ingestion failed');
  const code = status === 413 ? 'PROBES_BODY_TOO_LARGE' : status === 500 ? 'PROBES_INTERNAL' : 'PROBES_BAD_REQUEST';
  return reply
    .code(status)
    .send({ error: { code, statusId: status, userMessage: status === 500 ? 'Internal server error' : err.message } });
}

/**
 * Stores a probe body and, unless deferred, waits (up to `probes.waitS`) for the ingestion workers
 * to process its traces; answers the counts of what was stored and matched.
 */
async function storeAndProcess(ctx: AppContext, body: Readable, ask: ProbeRequest) {
  const region = ctx.region.meta.name;
  const stored = await ingestProbeStream(ctx.db, limited(body, ctx.config.probes.bodyLimitBytes), {
    ...ask.options,
    format: ask.format,
    region,
  });
  const counts = {
    received: stored.parsed + stored.malformed,
    inserted: stored.inserted,
    duplicates: stored.duplicates,
    malformed: stored.malformed,
    issues: stored.issues.map((i) =>
      i.index !== undefined ? { index: i.index, message: i.message } : { line: i.line, message: i.message },
    ),
  };
  if (ask.defer)
    return { ...counts, matched: NOTHING_MATCHED, intersectionFacts: 0, pendingTraces: stored.refs.length };
  // the body's traces pending now: its own pings, and any an earlier, failed post left
  const refs = await pendingRefsOf(ctx.db, region, stored.traceIds);
  const left = await waitProcessed(ctx.db, region, refs, {
    workers: ctx.ingestion?.workers ?? (async () => 0),
    maxWaitMs: ctx.config.probes.waitS * 1000,
  });
  // the serving thread that took this request uses the new speeds before the client hears back
  if (ctx.changes && left < refs.length) await ctx.changes.catchUp(await latestChangeSeq(ctx.db));
  const { intersectionFacts, ...matched } = await summarizeTraces(
    ctx.db,
    ctx.region,
    stored.traceIds,
    ctx.now() / 1000,
  );
  return { ...counts, matched, intersectionFacts, pendingTraces: left };
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, opts) => {
  const { ctx } = opts;
  /** bodies being stored by this thread */
  let active = 0;

  // Bodies are read as streams whatever their type; the handler picks the format (or answers 415).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  app.setErrorHandler(probesErrorHandler);

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
      const ask = probeRequest(req);
      const body = req.body as Readable | undefined | null;
      if (body === undefined || body === null || typeof (body as Readable).pipe !== 'function') {
        throw new ProbesHttpError(400, 'PROBES_BAD_REQUEST', 'the body is empty: send pings');
      }
      if (active >= ctx.config.probes.maxBodies) {
        throw new ProbesHttpError(
          503,
          'PROBES_BUSY',
          `${active} probe bodies are being stored here: try again shortly`,
        );
      }
      active++;
      try {
        return await storeAndProcess(ctx, body, ask);
      } finally {
        active--;
      }
    },
  );
};

export default plugin;
