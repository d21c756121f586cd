/**
 * Errors raised outside any service plugin's error handler — a URL that does not decode or a path
 * segment that is too long (found before routing), a failure at the root — answered in the shape of
 * the service that owns the path, so a client of one API never sees another's error body or the
 * framework's.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.js';
import { makeAnalyticsErrorHandler } from './analytics/errors.js';
import { sendParkingError } from './parking/inventory-errors.js';
import { handleReservationsError } from './parking/reservations-errors.js';
import { clientProblemOf } from './request-errors.js';
import { sendRoutingEdgeError } from './routing/plugin.js';

/** Which API owns a path (first match wins). */
const OWNERS: Array<[RegExp, 'routing' | 'inventory' | 'reservations' | 'uss' | 'analytics' | 'probes' | 'admin']> = [
  [/^\/v1\/admin\/(apps|signing-keys|probes|analytics)(\/|$)/, 'admin'],
  [/^\/v1\/admin\/parking\/load$/, 'admin'],
  [/^\/traffic\//i, 'routing'],
  [/^\/v1\/(incidents|speeds)(\/|$)/, 'routing'],
  [/^\/(lots|blocks)(\/|$)/, 'inventory'],
  [/^\/v1\/admin\/parking\/(lots|blocks|occupancy)(\/|$)/, 'inventory'],
  [/^\/USS(\/|$)/, 'uss'],
  [/^\/(product|reservation|user)(\/|$)/, 'reservations'],
  [/^\/v1\/admin\/parking\//, 'reservations'],
  [/^\/v1\/(metrics|metadata|namespace|signals)\//, 'analytics'],
  [/^\/v1\/probes(\/|$)/, 'probes'],
];

/** Sends `err` in the error shape of the API owning the request's path (platform shape otherwise). */
export function sendEdgeError(ctx: AppContext, err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = req.url.split('?')[0];
  const owner = OWNERS.find(([re]) => re.test(path))?.[1];
  switch (owner) {
    case 'routing':
      return sendRoutingEdgeError(ctx, err, req, reply);
    case 'inventory':
      return sendParkingError(err, req, reply, ctx.now());
    case 'reservations':
      return handleReservationsError(err, req, reply, 'api');
    case 'uss':
      return handleReservationsError(err, req, reply, 'uss');
    case 'analytics':
      return makeAnalyticsErrorHandler(ctx.now)(err as Error, req, reply);
    default:
      break;
  }
  const problem = clientProblemOf(err);
  if (!problem) req.log.error({ err }, 'unhandled error');
  const status = problem?.status ?? 500;
  const message = problem?.message ?? 'Internal server error';
  // probe ingestion and the operator admin API: { error: { code, statusId, userMessage } } with their catalogs' codes
  if (owner === 'admin')
    return reply.code(status).send({
      error: { code: problem ? 'ADMIN_BAD_REQUEST' : 'ADMIN_INTERNAL', statusId: status, userMessage: message },
    });
  if (owner === 'probes')
    return reply.code(status).send({
      error: { code: problem ? 'PROBES_BAD_REQUEST' : 'PROBES_INTERNAL', statusId: status, userMessage: message },
    });
  return reply.code(status).send({ error: { statusId: status, userMessage: message } });
}
