/**
 * HTTP plugin of the routing service:
 * - `GET /traffic/<handler>.ashx?Action=FindRoute|GetRoute|GetRouteTravelTimes` (any handler
 *   name ending in .ashx; parameter names and Action/Format values case-insensitive; Token = app
 *   token, also accepted as `accessToken` or `Authorization: Bearer`), answering the envelope in
 *   XML (default) or JSON on success and on every error;
 * - the incident admin API `POST/GET /v1/incidents`, `GET/DELETE /v1/incidents/:id` (admin app
 *   token as `Authorization: Bearer` or `accessToken`).
 * Registered by `http/app.ts` with the shared AppContext.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError } from '../../auth/auth-service.js';
import { RoutingError, type RoutingService } from '../../routing/index.js';
import { servedService } from '../services.js';
import { ACTIONS, type ActionName, checkKnown, ROUTING_PARAMETERS } from './parameters.js';
import { parseFindRoute, parseGetRoute, parseTravelTimes, readParams, requestedFormatAndAction } from './params.js';
import { envelope, errorToXml, travelTimesToJson, travelTimesToXml, tripToJson, tripToXml } from './render.js';
import { registerIncidentRoutes } from './incidents.js';
import { registerLearnedSpeedRoutes } from './learned-speeds.js';
import { clientProblemOf } from '../request-errors.js';

type Format = 'xml' | 'json';

function sendError(
  reply: FastifyReply,
  ctx: AppContext,
  format: Format,
  docType: string,
  err: RoutingError,
): FastifyReply {
  const env = envelope(docType, ctx.now(), err.status.statusId, err.statusText, err.detail);
  reply.code(err.status.http);
  if (format === 'json') return reply.type('application/json; charset=utf-8').send(env);
  return reply.type('text/xml; charset=utf-8').send(errorToXml(env));
}

/**
 * An Unroutable Waypoint error whose point lies outside the region while the same numbers swapped
 * (lon,lat instead of lat,lon) lie inside: the detail says so, since that is the usual cause.
 */
function withSwapHint(
  err: RoutingError,
  waypoints: ReadonlyArray<{ lat: number; lon: number }> | undefined,
  ctx: AppContext,
): RoutingError {
  if (err.code !== 'UNROUTABLE_WAYPOINT' || !waypoints || !err.parameter) return err;
  const wp = waypoints[Number(/^WP_(\d+)$/.exec(err.parameter)?.[1] ?? 0) - 1];
  if (!wp) return err;
  const [minLat, minLon, maxLat, maxLon] = ctx.region.meta.bounds;
  const inside = (lat: number, lon: number) => lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon;
  if (inside(wp.lat, wp.lon) || !inside(wp.lon, wp.lat)) return err;
  return new RoutingError(
    err.code,
    `${err.detail}; ${err.parameter}=${wp.lat},${wp.lon} is outside the region but ${wp.lon},${wp.lat} is inside: waypoints are latitude,longitude (were they swapped?)`,
    err.parameter,
  );
}

/** Tokens verified recently (one cache per registration): token → re-check deadline (ms of ctx.now()). */
type VerifiedTokens = Map<string, number>;
/** A verified token is trusted this long before it is verified again (key retirement, revocation). */
const VERIFIED_TTL_MS = 30_000;
const VERIFIED_MAX = 10_000;

async function authenticate(
  req: FastifyRequest,
  ctx: AppContext,
  cache: VerifiedTokens,
  token: string | undefined,
): Promise<void> {
  let t = token;
  if (t === undefined) {
    const h = req.headers.authorization;
    if (h && /^bearer\s+/i.test(h)) t = h.replace(/^bearer\s+/i, '').trim();
  }
  if (t === undefined || t === '') throw new RoutingError('NO_TOKEN', 'the Token parameter is required', 'Token');
  const nowMs = ctx.now();
  const until = cache.get(t);
  if (until !== undefined && nowMs < until) return;
  try {
    const claims = await ctx.auth.verifyAppToken(t);
    if (cache.size >= VERIFIED_MAX) cache.clear();
    // trusted until the next re-check or the token's expiry, whichever is first
    cache.set(t, Math.min(nowMs + VERIFIED_TTL_MS, claims.expiresAtS * 1000));
  } catch (err) {
    if (err instanceof AuthError) {
      if (err.code === 'AUTH_TOKEN_EXPIRED')
        throw new RoutingError('TOKEN_EXPIRED', 'the token has expired; request a new one', 'Token');
      throw new RoutingError('BAD_TOKEN', 'the token is not valid', 'Token');
    }
    throw err;
  }
}

async function handleTraffic(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  service: RoutingService,
  verified: VerifiedTokens,
): Promise<FastifyReply> {
  const hint = requestedFormatAndAction(req);
  let format: Format = hint.json ? 'json' : 'xml';
  let docType: string = hint.action ?? 'FindRoute';
  let waypoints: ReadonlyArray<{ lat: number; lon: number }> | undefined;
  try {
    const p = readParams(req);
    const fmt = p.get('format');
    if (fmt !== undefined) {
      const l = fmt.trim().toLowerCase();
      if (l === 'json') format = 'json';
      else if (l !== 'xml')
        throw new RoutingError('ENUM_EXPECTED', `Format must be XML or JSON, got "${fmt}"`, 'Format');
    }
    const rawAction = p.get('action');
    if (rawAction === undefined || rawAction.trim() === '')
      throw new RoutingError('NO_ACTION', 'the Action parameter is required', 'Action');
    const action: ActionName | undefined = ACTIONS[rawAction.trim().toLowerCase() as keyof typeof ACTIONS];
    if (!action)
      throw new RoutingError(
        'BAD_ACTION',
        `Action must be FindRoute, GetRoute or GetRouteTravelTimes, got "${rawAction}"`,
        'Action',
      );
    docType = action;
    await authenticate(req, ctx, verified, p.get('token') ?? p.get('accesstoken'));
    checkKnown(p, action);
    const now = ctx.now();
    if (action === 'GetRouteTravelTimes') {
      const v = await service.getRouteTravelTimes(parseTravelTimes(p));
      const env = envelope(docType, now, 0, 'OK');
      return format === 'json'
        ? reply.type('application/json; charset=utf-8').send(travelTimesToJson(env, v))
        : reply.type('text/xml; charset=utf-8').send(travelTimesToXml(env, v));
    }
    let trip: Awaited<ReturnType<RoutingService['findRoute']>>;
    if (action === 'FindRoute') {
      const find = parseFindRoute(p);
      waypoints = find.waypoints;
      trip = await service.findRoute(find);
    } else trip = await service.getRoute(parseGetRoute(p));
    const env = envelope(docType, now, 0, 'OK');
    return format === 'json'
      ? reply.type('application/json; charset=utf-8').send(tripToJson(env, trip))
      : reply.type('text/xml; charset=utf-8').send(tripToXml(env, trip));
  } catch (err) {
    if (err instanceof RoutingError) return sendError(reply, ctx, format, docType, withSwapHint(err, waypoints, ctx));
    req.log.error({ err }, 'routing request failed');
    return sendError(reply, ctx, format, docType, new RoutingError('SERVICE_ERROR', 'internal error'));
  }
}

const trafficSchema = {
  summary: 'Routing actions: FindRoute, GetRoute, GetRouteTravelTimes',
  description:
    'Every parameter is in the query string; names are case-insensitive; a parameter the action does not take is refused (1009). Answers the routing envelope in XML (default) or JSON, also for errors. See docs/api/routing/.',
  tags: ['routing'],
  params: { type: 'object', properties: { handler: { type: 'string', description: 'any name ending in .ashx' } } },
  // generated from the parser's own table (params.ts), so the document lists exactly what is accepted
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      ROUTING_PARAMETERS.map((p) => [
        p.name,
        {
          type: 'string',
          description: `${p.actions.length === 3 ? '' : `${p.actions.join(', ')}: `}${p.description}`,
          ...(p.name === 'Action'
            ? { enum: ['FindRoute', 'GetRoute', 'GetRouteTravelTimes'] }
            : p.name === 'Format'
              ? { enum: ['XML', 'JSON'] }
              : {}),
        },
      ]),
    ),
  },
  security: [{ bearer: [] as string[] }],
};

/** Registers the routing routes on `app`. */
export async function registerRoutingRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = servedService(app.services, 'routing');
  const verified: VerifiedTokens = new Map();
  // routes still queued for their background INSERT are written before the database closes
  app.addHook('onClose', async () => service.routes.flushed());
  // clients write both /traffic/ and /Traffic/ (reference auth §3 server paths)
  for (const prefix of ['/traffic', '/Traffic']) {
    app.get(
      `${prefix}/:handler`,
      {
        schema: { ...trafficSchema, hide: prefix !== '/traffic' },
        // parameter names are looked up case-insensitively in params.ts, never rejected by the
        // schema, which only documents them: no per-request schema validation work
        attachValidation: true,
        validatorCompiler: () => () => true,
      },
      async (req, reply) => {
        const handler = (req.params as { handler: string }).handler;
        if (!/\.ashx$/i.test(handler)) return reply.callNotFound();
        return handleTraffic(req, reply, ctx, service, verified);
      },
    );
  }
  registerIncidentRoutes(app, ctx, service);
  registerLearnedSpeedRoutes(app, ctx);
}

/**
 * Answers an error raised before a routing handler ran (unparsable body, bad URL, …) or an
 * unexpected failure: the routing envelope (XML) on the .ashx address, the admin error shape
 * `{ error: { code, message } }` elsewhere; no internals leak.
 */
export function sendRoutingEdgeError(
  ctx: AppContext,
  err: unknown,
  req: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const problem = clientProblemOf(err);
  if (!problem) req.log.error({ err }, 'routing plugin error');
  if (/^\/traffic\//i.test(req.url)) {
    const e = problem
      ? new RoutingError('PARSE_FAILED', problem.message, problem.parameter)
      : new RoutingError('SERVICE_ERROR', 'internal error');
    return sendError(reply, ctx, 'xml', 'FindRoute', e);
  }
  if (!problem) return reply.code(500).send({ error: { code: 'ROUTING_INTERNAL', message: 'internal error' } });
  return reply.code(problem.status).send({ error: { code: 'ROUTING_BAD_REQUEST', message: problem.message } });
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, opts) => {
  const ctx = opts.ctx;
  app.setErrorHandler((err, req, reply) => sendRoutingEdgeError(ctx, err, req, reply));
  await registerRoutingRoutes(app, ctx);
};
/** The routing plugin (registered by http/app.ts). */
export default plugin;
