/** Admin routes for applications and token signing keys. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { createApp, hashTokenFor, listApps, rotateSigningKey, setAppStatus } from '../../auth/index.js';
import { AdminHttpError } from './errors.js';
import { bodyObject, errors, requireAdmin, security } from './guard.js';

const createAppSchema = {
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
} as const;

const listAppsSchema = {
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
} as const;

/** `POST /v1/admin/apps`, `GET /v1/admin/apps`, `POST /v1/admin/apps/:appId/disable`. */
export function registerAppRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/admin/apps', { schema: createAppSchema, validatorCompiler: () => () => true }, async (req, reply) => {
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
  });

  app.get('/v1/admin/apps', { schema: listAppsSchema }, async (req) => {
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
  });

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
}

/** `POST /v1/admin/signing-keys`. */
export function registerSigningKeyRoutes(app: FastifyInstance, ctx: AppContext): void {
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
}
