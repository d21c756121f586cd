/**
 * Error shape of the parking lots/blocks API: the parking envelope plus `status` (HTTP status),
 * `code`, `message` and `parameter` (reference §9: bad location parameters 400, bad token 401,
 * unknown id 404). Anything that is not a ParkingError is logged and answered with a generic 500.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthError } from '../../auth/auth-service.js';
import { ParkingError, type ParkingErrorKind } from '../../parking/index.js';
import { parkingEnvelope } from './inventory-envelope.js';
import { clientProblemOf } from '../request-errors.js';

/** HTTP status of each kind of parking inventory error. */
export const PARKING_STATUS_OF_KIND: Record<ParkingErrorKind, number> = {
  invalid: 400,
  limit: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
};

/** Sends the parking error body for `err`. */
export function sendParkingError(err: unknown, req: FastifyRequest, reply: FastifyReply, nowMs: number): FastifyReply {
  let status = 500;
  let code = 'PARKING_INTERNAL';
  let message = 'internal error';
  let parameter: string | undefined;
  if (err instanceof ParkingError) {
    status = PARKING_STATUS_OF_KIND[err.kind];
    code = err.code;
    message = err.message;
    parameter = err.parameter;
  } else if (err instanceof AuthError) {
    status = err.code === 'AUTH_FORBIDDEN' ? 403 : 401;
    code = 'PARKING_TOKEN_INVALID';
    message =
      err.code === 'AUTH_TOKEN_EXPIRED'
        ? 'expired token'
        : err.code === 'AUTH_TOKEN_MISSING'
          ? 'missing token'
          : 'invalid or expired token';
  } else if (clientProblemOf(err)) {
    const problem = clientProblemOf(err)!;
    status = problem.status;
    code = 'PARKING_PARAM_INVALID';
    message = problem.message;
    parameter = problem.parameter;
  } else {
    req.log.error({ err, reqId: req.id }, 'parking inventory request failed');
  }
  return reply
    .code(status)
    .send({ ...parkingEnvelope(nowMs), status, code, message, ...(parameter ? { parameter } : {}) });
}
