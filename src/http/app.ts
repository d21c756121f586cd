/**
 * Builds the Fastify app serving every API at its root (paths of the three services are disjoint).
 * Never listens: `server.ts` does, tests use `app.inject`.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AppContext } from '../app/context.js';
import authPlugin from './auth/plugin.js';
import routingPlugin from './routing/plugin.js';
import parkingInventoryPlugin from './parking/inventory-plugin.js';
import parkingReservationsPlugin from './parking/reservations-plugin.js';
import analyticsPlugin from './analytics/plugin.js';
import probesPlugin from './probes/plugin.js';
import adminPlugin from './admin/plugin.js';
import consolePlugin from './console/plugin.js';
import { registerMetrics } from './metrics.js';
import { registerHealth } from './health.js';

/** Query parameters whose values never reach the logs. */
const SECRET_PARAMS = /^(token|accesstoken|access_token|hashtoken|appkey|chk|password|card|card_number|card-number|card-cvc|card-expiry|cvc|cvv)$/i;

/** The request URL with secret query values replaced by `***` (for logs). */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url.slice(q + 1).split('&').map((kv) => {
    const i = kv.indexOf('=');
    const k = i < 0 ? kv : kv.slice(0, i);
    return i >= 0 && SECRET_PARAMS.test(decodeURIComponent(k)) ? `${k}=***` : kv;
  });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

export interface BuildAppOptions {
  /** log requests (false in tests) */
  logger?: boolean;
  /** collect process metrics (false in tests to keep them quick) */
  defaultMetrics?: boolean;
}

/** Creates the app with every plugin registered for the services in `ctx.config.server.services`. */
export async function buildApp(ctx: AppContext, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const logger: FastifyServerOptions['logger'] = opts.logger
    ? {
        level: ctx.config.server.logLevel,
        redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'body.password', 'body.card_number', 'body["card-number"]', 'body["card-cvc"]', 'body["card-expiry"]', 'body.cvc'], censor: '***' },
        serializers: {
          req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: redactUrl(req.url), id: req.id }),
        },
      }
    : false;
  const app = Fastify({
    logger,
    bodyLimit: ctx.config.server.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: 'array', allErrors: false, removeAdditional: false } },
  });
  // callback style: no promise per request on this hot path
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    done(null, payload);
  });

  await app.register(cors, { origin: true, exposedHeaders: ['x-request-id'] });
  await app.register(compress, { global: true, encodings: ['gzip', 'deflate'], threshold: 1024 });
  await app.register(formbody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'streetwise', version: '0.1.0', description: 'Routing, parking and intersection analytics APIs on your own OpenStreetMap region.' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'app token from GET /v1/AppToken' },
          // the same scheme under the name some plugins use
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'app token from GET /v1/AppToken' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerHealth(app, ctx);
  registerMetrics(app, { defaultMetrics: opts.defaultMetrics ?? false });

  // Unknown routes and unexpected errors outside any service plugin: generic JSON.
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: { statusId: 404, userMessage: `No such endpoint: ${req.method} ${req.url.split('?')[0]}` } }));
  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'unhandled error');
    return reply.code(status).send({ error: { statusId: status, userMessage: status === 500 ? 'Internal server error' : err.message } });
  });

  await app.register(authPlugin, { ctx });
  const s = new Set(ctx.config.server.services);
  // Probe ingestion feeds both routing (speeds) and analytics (trajectories): always served.
  await app.register(probesPlugin, { ctx });
  await app.register(adminPlugin, { ctx });
  if (s.has('routing')) await app.register(routingPlugin, { ctx });
  if (s.has('parking')) {
    await app.register(parkingInventoryPlugin, { ctx });
    await app.register(parkingReservationsPlugin, { ctx });
  }
  if (s.has('analytics')) await app.register(analyticsPlugin, { ctx });
  await app.register(consolePlugin, { ctx });
  return app;
}
