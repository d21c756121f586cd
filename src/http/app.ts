/**
 * Builds the Fastify app serving every API at its root (paths of the three services are disjoint).
 * Never listens: each serving thread (`app/serving/serving-worker.ts`) does, tests use `app.inject`.
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
import { loggerOptions } from './request-log.js';
import { registerJsonParser, registerNulCheck } from './request-errors.js';
import { sendEdgeError } from './edge-errors.js';
import { OPENAPI_DOCUMENT } from './openapi.js';
import { documentResponses } from './openapi-responses.js';
import { buildServices } from './services.js';

/** Answers a request the HTTP parser rejected with `{ error: { statusId, userMessage } }` and closes. */
export function answerMalformedHttp(err: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    error: {
      statusId: status,
      userMessage: tooLarge ? 'the request headers are too large' : 'the request is not well-formed HTTP/1.1',
    },
  });
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export interface BuildAppOptions {
  /** log requests (false in tests) */
  logger?: boolean;
  /** where log lines go (default stdout); tests capture them here */
  logStream?: { write(line: string): void };
  /** collect process metrics (false in tests to keep them quick) */
  defaultMetrics?: boolean;
}

/** Creates the app with every plugin registered for the services in `ctx.config.server.services`. */
export async function buildApp(ctx: AppContext, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const logger: FastifyServerOptions['logger'] = opts.logger
    ? loggerOptions(ctx.config.server.logLevel, opts.logStream)
    : false;
  const app = Fastify({
    logger,
    bodyLimit: ctx.config.server.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: 'array', allErrors: false, removeAdditional: false } },
    // a URL that does not decode or an over-long path segment: the owning API's error shape
    frameworkErrors: (err, req, reply) => sendEdgeError(ctx, err, req, reply),
    // bytes that are not HTTP at all (no path, so no API to own the answer): the platform's shape
    clientErrorHandler: answerMalformedHttp,
  });
  registerJsonParser(app);
  registerNulCheck(app);
  // callback style: no promise per request on this hot path
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    done(null, payload);
  });

  await app.register(cors, { origin: true, exposedHeaders: ['x-request-id'] });
  await app.register(compress, { global: true, encodings: ['gzip', 'deflate'], threshold: 1024 });
  // A client that accepts no encoding gets nothing compressed: say so up front, so the compression
  // hook stops at its first check instead of looking up the content type of every answer.
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.headers['accept-encoding'] === undefined) req.headers['x-no-compression'] = '1';
    done();
  });
  await app.register(formbody);
  await app.register(swagger, { openapi: OPENAPI_DOCUMENT, transform: documentResponses as never });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerHealth(app, ctx);
  registerMetrics(app, { defaultMetrics: opts.defaultMetrics ?? false });

  // Unknown routes: generic JSON. Errors outside any service plugin: the owning API's shape.
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send({ error: { statusId: 404, userMessage: `No such endpoint: ${req.method} ${req.url.split('?')[0]}` } }),
  );
  app.setErrorHandler((err, req, reply) => sendEdgeError(ctx, err, req, reply));

  app.decorate('services', buildServices(ctx));
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
