/**
 * Error shape of the analytics API: `{ timestamp, status, error, message, path }` (the reference
 * stack's default error body), for domain errors, auth failures and framework errors alike.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AnalyticsError } from '../../analytics/index.js';
import { AuthError } from '../../auth/auth-service.js';
import { clientProblemOf } from '../request-errors.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
};

/** HTTP status of each analytics error kind. */
export const STATUS_OF_KIND = { invalid: 400, not_found: 404, forbidden: 403 } as const;

/** Sends the analytics error body with `status`; `nowMs` is the service clock. */
export function sendError(
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  code: string | undefined,
  nowMs: number,
): FastifyReply {
  return reply.code(status).send({
    timestamp: new Date(nowMs).toISOString(),
    status,
    error: REASONS[status] ?? 'Error',
    message,
    ...(code ? { code } : {}),
    path: req.url.split('?')[0],
  });
}

/** The plugin's error handler: domain → 4xx, auth → 401/403, framework 4xx kept, anything else 500. */
export function makeAnalyticsErrorHandler(now: () => number) {
  return (
    err: Error & { statusCode?: number; code?: string },
    req: FastifyRequest,
    reply: FastifyReply,
  ): FastifyReply => {
    if (err instanceof AnalyticsError)
      return sendError(req, reply, STATUS_OF_KIND[err.kind], err.message, err.code, now());
    if (err instanceof AuthError)
      return sendError(req, reply, err.code === 'AUTH_FORBIDDEN' ? 403 : 401, err.message, err.code, now());
    // edge errors (body, Content-Type, URL): our message, no code of the framework's
    const problem = clientProblemOf(err);
    if (problem) return sendError(req, reply, problem.status, problem.message, undefined, now());
    req.log.error({ err }, 'analytics: unhandled error');
    return sendError(req, reply, 500, 'Internal server error', undefined, now());
  };
}
