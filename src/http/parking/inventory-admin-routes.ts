/**
 * Parking inventory admin API (admin app token): operator uploads of lots and blocks, removing a
 * lot upload, and occupancy counts. A successful change is announced to the other processes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { deleteLotUpload, type InventoryService, type ObservationInput, ParkingError } from '../../parking/index.js';
import { announceChange } from '../../store/changes.js';
import { bearerToken, hasMalformedAuthorization } from '../tokens.js';
import { parkingEnvelope } from './inventory-envelope.js';

const str = { type: 'string' } as const;

const uploadBody = (what: string) => ({
  description: `array of ${what} in the contract's field shape (or { "${what}": [...] }); partial objects update the stored upload`,
  anyOf: [
    { type: 'array', items: { type: 'object', additionalProperties: true } },
    { type: 'object', additionalProperties: true },
  ],
});
const items = (body: unknown, key: string): unknown[] => {
  if (Array.isArray(body)) return body;
  const v = (body as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(v))
    throw new ParkingError('PARKING_UPLOAD_INVALID', `body: an array of ${key} (or { "${key}": [...] }) expected`, key);
  return v;
};

/** Occupancy observations of a `POST /v1/admin/parking/occupancy` body at `nowS` (unix s). */
function observationsOf(body: unknown, nowS: number): ObservationInput[] {
  return (body as Array<Record<string, unknown>>).map((o, i) => {
    const hasLot = o.lotId !== undefined,
      hasSeg = o.segmentId !== undefined;
    if (hasLot === hasSeg)
      throw new ParkingError('PARKING_UPLOAD_INVALID', `[${i}]: exactly one of lotId or segmentId`, `[${i}].lotId`);
    let at = nowS;
    if (o.observedAt !== undefined) {
      const ms = Date.parse(String(o.observedAt));
      if (!Number.isFinite(ms) || !/(Z|[+-]\d{2}:?\d{2})$/.test(String(o.observedAt)))
        throw new ParkingError(
          'PARKING_UPLOAD_INVALID',
          `[${i}].observedAt: ISO 8601 with Z or offset expected`,
          `[${i}].observedAt`,
        );
      at = Math.floor(ms / 1000);
    }
    return {
      kind: hasLot ? 'lot' : 'segment',
      targetId: String(hasLot ? o.lotId : o.segmentId),
      observedAtS: at,
      occupied: o.occupied as number,
      capacity: (o.capacity as number | undefined) ?? null,
      source: (o.source as 'operator' | 'feed' | undefined) ?? 'operator',
    };
  });
}

/** Admin routes authenticate first (onRequest): no body is read or validated for an unauthorized caller. */
function adminGuard(ctx: AppContext) {
  return async function requireAdmin(req: FastifyRequest): Promise<void> {
    if (req.headers.authorization && hasMalformedAuthorization(req))
      throw new ParkingError('PARKING_TOKEN_INVALID', 'Authorization header must be "Bearer <token>"');
    const token = bearerToken(req);
    if (!token)
      throw new ParkingError('PARKING_TOKEN_INVALID', 'missing token: send Authorization: Bearer <admin app token>');
    const claims = await ctx.auth.verifyAppToken(token);
    if (!claims.admin) throw new ParkingError('PARKING_FORBIDDEN', 'this operation needs an admin application token');
  };
}

type Hook = (req: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** PUT /v1/admin/parking/lots, /blocks; DELETE /v1/admin/parking/lots/:key. */
function registerUploadRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  service: InventoryService,
  requireAdmin: (req: FastifyRequest) => Promise<void>,
  announce: Hook,
): void {
  app.put(
    '/v1/admin/parking/lots',
    {
      onRequest: requireAdmin,
      onResponse: announce,
      bodyLimit: 64 * 1024 * 1024,
      schema: {
        tags: ['parking admin'],
        summary:
          'Add or update lots (uploaded fields win over OSM ones). Identify each lot by id, alias or osm_id (+ osm_type).',
        body: uploadBody('lots'),
        security: [{ bearer: [] }],
      },
    },
    async (req, reply) => {
      const res = await service.upload(items(req.body, 'lots'), []);
      return reply.send({ ...parkingEnvelope(ctx.now()), result: res });
    },
  );

  app.put(
    '/v1/admin/parking/blocks',
    {
      onRequest: requireAdmin,
      onResponse: announce,
      bodyLimit: 64 * 1024 * 1024,
      schema: {
        tags: ['parking admin'],
        summary: 'Add or update blocks by blockID; given segments replace the imported ones.',
        body: uploadBody('blocks'),
        security: [{ bearer: [] }],
      },
    },
    async (req, reply) => {
      const res = await service.upload([], items(req.body, 'blocks'));
      return reply.send({ ...parkingEnvelope(ctx.now()), result: res });
    },
  );

  app.delete(
    '/v1/admin/parking/lots/:key',
    {
      onRequest: requireAdmin,
      onResponse: announce,
      schema: {
        tags: ['parking admin'],
        summary: 'Remove the upload of a lot (key: lot id, "osm:w123" or "alias:<source>|<id>"); OSM data shows again',
        params: { type: 'object', properties: { key: str }, required: ['key'] },
        security: [{ bearer: [] }],
      },
    },
    async (req, reply) => {
      const { key } = req.params as { key: string };
      const full = /^\d+$/.test(key) ? `id:${key}` : key;
      if (!(await deleteLotUpload(ctx.db, ctx.region.meta.name, full)))
        throw new ParkingError('PARKING_NOT_FOUND', `no uploaded lot ${key}`, 'key');
      await service.refresh();
      return reply.send({ ...parkingEnvelope(ctx.now()), result: { deleted: full } });
    },
  );
}

/** POST /v1/admin/parking/occupancy. */
function registerOccupancyRoute(
  app: FastifyInstance,
  ctx: AppContext,
  service: InventoryService,
  requireAdmin: (req: FastifyRequest) => Promise<void>,
): void {
  app.post(
    '/v1/admin/parking/occupancy',
    {
      onRequest: requireAdmin,
      schema: {
        tags: ['parking admin'],
        summary: 'Record occupancy counts of lots or block segments',
        body: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              lotId: { type: 'integer' },
              segmentId: str,
              occupied: { type: 'integer', minimum: 0 },
              capacity: { type: 'integer', minimum: 0 },
              observedAt: { ...str, description: 'ISO 8601 date-time; default now' },
              source: { type: 'string', enum: ['operator', 'feed'] },
            },
            required: ['occupied'],
          },
        },
        security: [{ bearer: [] }],
      },
    },
    async (req, reply) => {
      const nowS = Math.floor(ctx.now() / 1000);
      const obs = observationsOf(req.body, nowS);
      const n = await service.observe(obs);
      return reply.send({ ...parkingEnvelope(ctx.now()), result: { recorded: n } });
    },
  );
}

/** PUT /v1/admin/parking/lots, /blocks; DELETE /v1/admin/parking/lots/:key; POST /v1/admin/parking/occupancy. */
export function registerInventoryAdminRoutes(app: FastifyInstance, ctx: AppContext, service: InventoryService): void {
  const requireAdmin = adminGuard(ctx);
  const announce = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (reply.statusCode < 300)
      await announceChange(ctx.db, 'parking', '').catch((err: unknown) =>
        req.log.warn({ err }, 'parking change not announced'),
      );
  };
  registerUploadRoutes(app, ctx, service, requireAdmin, announce);
  registerOccupancyRoute(app, ctx, service, requireAdmin);
}
