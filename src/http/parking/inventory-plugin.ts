/**
 * HTTP plugin of the parking inventory: GET /lots, /blocks, /blocks/v3 (contract) and the admin API
 * for operator uploads and occupancy counts (PUT /v1/admin/parking/lots, /blocks; DELETE
 * /v1/admin/parking/lots/:key; POST /v1/admin/parking/occupancy). Handlers only translate: parsing
 * and logic live in `parking/`.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { ParkingError, inventoryParameters, type InventoryOperation } from '../../parking/index.js';
import { DOCUMENTATION_ONLY, documentedStrings } from '../openapi.js';
import { bearerToken, hasMalformedAuthorization, queryParam } from '../tokens.js';
import { parkingEnvelope } from './inventory-envelope.js';
import { sendParkingError } from './inventory-errors.js';
import { servedService } from '../services.js';
import { registerInventoryAdminRoutes } from './inventory-admin-routes.js';

const LOCATION_DOC =
  'Exactly one location parameter. radius only with point (default 1000 m, max 10 000 m). Parameter names are case-insensitive; names no operation knows are ignored.';
/** Descriptions of the query parameters of /lots, /blocks and /blocks/v3 (the parser's lists pick per operation). */
const QUERY_DOCS: Record<string, string> = {
  accesstoken: 'app token (or Authorization: Bearer)',
  id: 'id or pipe list of ids (location parameter)',
  alias: '<data_source_key>|<id> (location parameter)',
  box: '<lat1>|<lon1>,<lat2>|<lon2>: north-west then south-east corner (location parameter)',
  point: '<lat>|<lon> (location parameter)',
  polygon: '>= 3 <lat>|<lon> pairs, comma-separated (location parameter)',
  polyline: '>= 2 <lat>|<lon> pairs or an encoded polyline: lots within 100 m of the route (location parameter)',
  geoId: 'not supported: no geography table (400)',
  radius: 'metres, only with point',
  entry_time: 'yyyy-mm-ddTHH:MM; trailing Z = UTC, else local time of each lot/block; default now',
  duration: 'minutes, or a pipe list: one calculatedRates item each',
  limit: 'hard stop on the number of items (1–1000, default 100)',
  offset: '0-based start index',
  outputfields: 'comma-separated top-level fields to keep (the id is always kept)',
  restrictions:
    'comma-separated permits held (D, R, C, E): keeps blocks with such rules and prices them for the holder',
  locale: 'ISO 15897 locale of texts (en, fr, de, es; default en-US)',
  sort: '"distance": ascending from the point or area centre; absent: unsorted',
  operator: 'operator pre-filter: operator name or pipe list (case-insensitive exact match)',
  units: '1 (metric) only',
};
const queryOf = (op: InventoryOperation) => documentedStrings(`GET ${op}`, inventoryParameters(op), QUERY_DOCS);

/** Lower-cased single-valued query parameters; a repeated parameter is an error. */
function lowerParams(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    const key = k.toLowerCase();
    if (Array.isArray(v) || key in out)
      throw new ParkingError('PARKING_PARAM_INVALID', `${k}: given more than once`, k);
    if (v !== undefined && v !== null) out[key] = String(v);
  }
  return out;
}

/** Checks the app token: header (preferred) or `accesstoken` query unless `headerOnly`. */
async function authorize(ctx: AppContext, req: FastifyRequest, headerOnly: boolean): Promise<{ admin: boolean }> {
  if (req.headers.authorization && hasMalformedAuthorization(req))
    throw new ParkingError('PARKING_TOKEN_INVALID', 'Authorization header must be "Bearer <token>"');
  const header = bearerToken(req);
  const query = queryParam(req, 'accesstoken');
  if (headerOnly && !header && query)
    throw new ParkingError(
      'PARKING_TOKEN_INVALID',
      '/blocks/v3 accepts the token only in the Authorization: Bearer header',
      'accesstoken',
    );
  const token = header ?? (headerOnly ? undefined : query);
  if (!token)
    throw new ParkingError(
      'PARKING_TOKEN_INVALID',
      headerOnly
        ? 'missing token: send Authorization: Bearer <token>'
        : 'missing token: send Authorization: Bearer <token> or accesstoken',
      'accesstoken',
    );
  return ctx.auth.verifyAppToken(token);
}

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const service = servedService(app.services, 'parkingInventory');
  // build the index before the first request (the database is migrated before the app is built)
  app.addHook('onReady', async () => {
    try {
      await service.current();
    } catch (err) {
      app.log.warn({ err }, 'parking inventory not built at start; retrying on the first request');
    }
  });

  app.setErrorHandler((err, req, reply) => sendParkingError(err, req, reply, ctx.now()));

  // Other processes rebuild their inventory as soon as an upload here succeeds, and this one
  // as soon as another's does (the version check each second stays as a fallback).
  ctx.changes?.on('parking', async () => {
    await service.refresh();
  });
  const query = (op: InventoryOperation, headerOnly: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    await authorize(ctx, req, headerOnly);
    const nowMs = ctx.now();
    const result = await service.query(op, lowerParams(req), Math.floor(nowMs / 1000));
    return reply.send({ ...parkingEnvelope(nowMs), result });
  };

  // the query schemas document (generated from the parser's lists); parsing is the service's
  app.get(
    '/lots',
    {
      ...DOCUMENTATION_ONLY,
      schema: {
        tags: ['parking'],
        summary: 'Off-street lots by id, alias, box, circle, polygon or route corridor',
        description: `${LOCATION_DOC} polyline = lots within 100 m of the route.`,
        querystring: queryOf('lots'),
        security: [{ bearer: [] }],
      },
    },
    query('lots', false),
  );

  app.get(
    '/blocks',
    {
      ...DOCUMENTATION_ONLY,
      schema: {
        tags: ['parking'],
        summary: 'On-street blocks with segments by id, alias, box or circle',
        description: LOCATION_DOC,
        querystring: queryOf('blocks'),
        security: [{ bearer: [] }],
      },
    },
    query('blocks', false),
  );

  app.get(
    '/blocks/v3',
    {
      ...DOCUMENTATION_ONLY,
      schema: {
        tags: ['parking'],
        summary: 'On-street blocks in a circle (token in the Authorization header only)',
        description:
          'point + radius (or box). geoId is rejected: no geography table. entry_time from 15 min ago to 24 h ahead.',
        querystring: queryOf('blocks-v3'),
        security: [{ bearer: [] }],
      },
    },
    query('blocks-v3', true),
  );
  registerInventoryAdminRoutes(app, ctx, service);
};

export default plugin;
