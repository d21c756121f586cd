/**
 * Incident admin API (admin app token required): create, list, read and delete incidents. JSON
 * in, JSON out; errors as `{ error: { code, message } }` with 400/401/403/404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { announceChange } from '../../store/changes.js';
import { AuthError } from '../../auth/auth-service.js';
import { RoutingError, type RoutingService } from '../../routing/index.js';
import { INCIDENT_TYPE_NAMES, type Incident } from '../../traffic/incidents.js';
import { parseDateTime } from './param-values.js';
import { clientProblemOf } from '../request-errors.js';

const TYPE_NAME: Record<number, string> = { 1: 'construction', 2: 'event', 3: 'congestion', 4: 'crash' };

function iso(s: number | null): string | null {
  return s === null ? null : new Date(Math.round(s) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** JSON form of an incident in the admin API. */
export function incidentJson(i: Incident): Record<string, unknown> {
  return {
    id: i.id,
    version: i.version,
    type: TYPE_NAME[i.type],
    typeCode: i.type,
    severity: i.severity,
    eventCode: i.eventCode,
    location: { lat: i.lat, lon: i.lon },
    edges: i.edges,
    startTime: iso(i.startS),
    endTime: iso(i.endS),
    delayImpactMinutes: i.delayImpactMinutes,
    closure: i.closure,
    shortDescription: i.shortDescription,
    fullDescription: i.fullDescription,
    createdAt: iso(i.createdAtS),
  };
}

function fail(reply: FastifyReply, http: number, code: string, message: string): FastifyReply {
  return reply.code(http).send({ error: { code, message } });
}

async function requireAdmin(req: FastifyRequest, reply: FastifyReply, ctx: AppContext): Promise<boolean> {
  let token: string | undefined;
  const h = req.headers.authorization;
  if (h && /^bearer\s+/i.test(h)) token = h.replace(/^bearer\s+/i, '').trim();
  if (!token) {
    const q = (req.query ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(q)) if (k.toLowerCase() === 'accesstoken' && typeof v === 'string') token = v;
  }
  if (!token) {
    fail(reply, 401, 'AUTH_TOKEN_MISSING', 'an admin app token is required (Authorization: Bearer)');
    return false;
  }
  try {
    const claims = await ctx.auth.verifyAppToken(token);
    if (!claims.admin) {
      fail(reply, 403, 'AUTH_FORBIDDEN', 'this application is not an admin application');
      return false;
    }
    return true;
  } catch (err) {
    if (err instanceof AuthError) {
      fail(reply, 401, err.code, 'invalid or expired token');
      return false;
    }
    throw err;
  }
}

const incidentSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    version: { type: 'integer' },
    type: { type: 'string' },
    typeCode: { type: 'integer' },
    severity: { type: 'integer' },
    eventCode: { type: 'integer' },
    location: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } },
    edges: { type: 'array', items: { type: 'integer' } },
    startTime: { type: 'string' },
    endTime: { type: ['string', 'null'] },
    delayImpactMinutes: { type: 'number' },
    closure: { type: 'boolean' },
    shortDescription: { type: 'string' },
    fullDescription: { type: 'string' },
    createdAt: { type: 'string' },
  },
} as const;

const createBody = {
  type: 'object',
  required: ['type', 'severity', 'startTime'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['crash', 'hazard', 'event', 'construction', 'congestion'] },
    severity: { type: 'integer', minimum: 0, maximum: 4 },
    eventCode: { type: 'integer', minimum: 0, description: 'Alert-C event code (default by type)' },
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lon: { type: 'number', minimum: -180, maximum: 180 },
    heading: {
      type: 'integer',
      minimum: 0,
      maximum: 359,
      description: 'direction of travel affected (point locations); both directions when absent',
    },
    edges: {
      type: 'array',
      items: { type: 'integer', minimum: 0 },
      maxItems: 10000,
      description: 'affected directed edge ids (instead of a point)',
    },
    startTime: { type: 'string', description: 'ISO 8601' },
    endTime: { type: ['string', 'null'], description: 'ISO 8601; null/absent = until deleted' },
    delayImpactMinutes: { type: 'number', minimum: 0 },
    closure: { type: 'boolean' },
    shortDescription: { type: 'string', maxLength: 200 },
    fullDescription: { type: 'string', maxLength: 4000 },
  },
} as const;

const errorSchema = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } } },
} as const;

interface CreateBody {
  type: string;
  severity: number;
  eventCode?: number;
  lat?: number;
  lon?: number;
  heading?: number;
  edges?: number[];
  startTime: string;
  endTime?: string | null;
  delayImpactMinutes?: number;
  closure?: boolean;
  shortDescription?: string;
  fullDescription?: string;
}

const security = [{ bearer: [] }];
const idParams = { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]{1,15}$' } } } as const;
type SendHook = (req: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;

/** `POST /v1/incidents`. */
function registerCreateIncidentRoute(
  app: FastifyInstance,
  ctx: AppContext,
  service: RoutingService,
  announce: SendHook,
): void {
  app.post(
    '/v1/incidents',
    {
      onSend: announce,
      schema: {
        summary: 'Create a traffic incident (admin)',
        tags: ['incidents'],
        security,
        body: createBody,
        response: {
          201: { type: 'object', properties: { incident: incidentSchema } },
          400: errorSchema,
          401: errorSchema,
          403: errorSchema,
        },
      },
      attachValidation: true,
    },
    async (req, reply) => {
      if (!(await requireAdmin(req, reply, ctx))) return reply;
      if (req.validationError)
        return fail(
          reply,
          400,
          'ROUTING_BAD_INCIDENT',
          clientProblemOf(req.validationError)?.message ?? 'invalid incident',
        );
      const b = req.body as CreateBody;
      const startS = parseDateTime(b.startTime);
      if (startS === undefined)
        return fail(reply, 400, 'ROUTING_BAD_INCIDENT', 'startTime must be an ISO 8601 date-time');
      let endS: number | null = null;
      if (b.endTime !== undefined && b.endTime !== null) {
        const e = parseDateTime(b.endTime);
        if (e === undefined) return fail(reply, 400, 'ROUTING_BAD_INCIDENT', 'endTime must be an ISO 8601 date-time');
        if (e <= startS) return fail(reply, 400, 'ROUTING_BAD_INCIDENT', 'endTime must be after startTime');
        endS = e;
      }
      if ((b.lat === undefined) !== (b.lon === undefined))
        return fail(reply, 400, 'ROUTING_BAD_INCIDENT', 'lat and lon go together');
      if (b.lat === undefined && (!b.edges || b.edges.length === 0))
        return fail(reply, 400, 'ROUTING_BAD_INCIDENT', 'give a location (lat, lon) or edges');
      try {
        const inc = await service.createIncident({
          type: INCIDENT_TYPE_NAMES[b.type],
          severity: b.severity,
          eventCode: b.eventCode,
          lat: b.lat,
          lon: b.lon,
          headingDeg: b.heading,
          edges: b.edges,
          startS,
          endS,
          delayImpactMinutes: b.delayImpactMinutes ?? 0,
          closure: b.closure ?? false,
          shortDescription: b.shortDescription ?? '',
          fullDescription: b.fullDescription ?? '',
        });
        return reply.code(201).send({ incident: incidentJson(inc) });
      } catch (err) {
        if (err instanceof RoutingError) return fail(reply, 400, 'ROUTING_BAD_INCIDENT', err.detail);
        throw err;
      }
    },
  );
}

/** `GET /v1/incidents`, `GET /v1/incidents/:id`. */
function registerIncidentReadRoutes(app: FastifyInstance, ctx: AppContext, service: RoutingService): void {
  app.get(
    '/v1/incidents',
    {
      schema: {
        summary: 'List incidents (admin): current ones, or all with all=true',
        tags: ['incidents'],
        security,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            all: { type: 'boolean', description: 'true: also ended incidents' },
            accessToken: { type: 'string', description: 'admin app token (or Authorization: Bearer)' },
          },
        },
        response: {
          200: { type: 'object', properties: { incidents: { type: 'array', items: incidentSchema } } },
          400: errorSchema,
          401: errorSchema,
          403: errorSchema,
        },
      },
      attachValidation: true,
    },
    async (req, reply) => {
      if (!(await requireAdmin(req, reply, ctx))) return reply;
      if (req.validationError)
        return fail(reply, 400, 'ROUTING_BAD_QUERY', clientProblemOf(req.validationError)?.message ?? 'invalid query');
      const all = (req.query as { all?: boolean }).all === true;
      return reply.send({ incidents: (await service.listIncidents(all)).map(incidentJson) });
    },
  );

  app.get(
    '/v1/incidents/:id',
    {
      schema: {
        summary: 'Read one incident (admin)',
        tags: ['incidents'],
        security,
        params: idParams,
        response: {
          200: { type: 'object', properties: { incident: incidentSchema } },
          400: errorSchema,
          401: errorSchema,
          403: errorSchema,
          404: errorSchema,
        },
      },
      attachValidation: true,
    },
    async (req, reply) => {
      if (!(await requireAdmin(req, reply, ctx))) return reply;
      if (req.validationError) return fail(reply, 400, 'ROUTING_BAD_INCIDENT_ID', 'id must be an integer');
      const inc = await service.findIncident(Number((req.params as { id: string }).id));
      if (!inc) return fail(reply, 404, 'ROUTING_INCIDENT_NOT_FOUND', 'no such incident');
      return reply.send({ incident: incidentJson(inc) });
    },
  );
}

/** `DELETE /v1/incidents/:id`. */
function registerDeleteIncidentRoute(
  app: FastifyInstance,
  ctx: AppContext,
  service: RoutingService,
  announce: SendHook,
): void {
  app.delete(
    '/v1/incidents/:id',
    {
      onSend: announce,
      schema: {
        summary: 'Delete an incident (admin)',
        tags: ['incidents'],
        security,
        params: idParams,
        response: { 204: { type: 'null' }, 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema },
      },
      attachValidation: true,
    },
    async (req, reply) => {
      if (!(await requireAdmin(req, reply, ctx))) return reply;
      if (req.validationError) return fail(reply, 400, 'ROUTING_BAD_INCIDENT_ID', 'id must be an integer');
      const ok = await service.deleteIncident(Number((req.params as { id: string }).id));
      if (!ok) return fail(reply, 404, 'ROUTING_INCIDENT_NOT_FOUND', 'no such incident');
      return reply.code(204).send();
    },
  );
}

/** Registers the incident admin routes. */
export function registerIncidentRoutes(app: FastifyInstance, ctx: AppContext, service: RoutingService): void {
  // Other processes use an incident created or deleted here at once, and this one theirs.
  ctx.changes?.on('incidents', () => service.reloadIncidents());
  // Announced before the answer leaves (onSend), so a client that got its 201/204 knows the other
  // threads and processes have been notified.
  const announce = async (req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (reply.statusCode < 300)
      await announceChange(ctx.db, 'incidents', ctx.region.meta.mapVersion).catch((err: unknown) =>
        req.log.warn({ err }, 'incident change not announced'),
      );
    return payload;
  };
  registerCreateIncidentRoute(app, ctx, service, announce);
  registerIncidentReadRoutes(app, ctx, service);
  registerDeleteIncidentRoute(app, ctx, service, announce);
}
