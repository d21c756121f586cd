/**
 * Error shapes of the products / reservations / users APIs and of the open-spots API.
 *
 * Products, reservations, users: the Users error payload of the contract,
 * `{ ErrorCode, ErrorDescription }`, plus `code` (catalog code) and `parameter` when one is at
 * fault; XML (root `Error`) when the client asked for XML. ErrorCode: 1 bad parameter,
 * 3 credentials, 1004 email exists, 1005 login error, 2 server error, -1 other.
 * Open spots: the open-spot envelope with `status: "0"`, `message`, `code`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthError } from '../../auth/auth-service.js';
import { ReservationsError, type ReservationsErrorKind } from '../../parking/reservations/index.js';
import { envelope } from '../envelope.js';
import { toXml } from '../xml.js';
import { clientProblemOf } from '../request-errors.js';

/** HTTP status of each error kind. */
export const STATUS_OF_KIND: Record<ReservationsErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payment: 402,
  limit: 429,
};

/** The contract's numeric ErrorCode of a domain error. */
export function errorCodeOf(e: ReservationsError): number {
  if (e.code === 'USER_EMAIL_EXISTS') return 1004;
  if (e.code === 'USER_LOGIN_FAILED') return 1005;
  if (e.kind === 'invalid') return 1;
  if (e.kind === 'unauthenticated') return 3;
  return -1;
}

/** Which error shape a route answers with (route `config.family`). */
export type ErrorFamily = 'api' | 'uss';

/** True when the client asked for XML (`Accept` or the contract's `Accepts` header). */
export function wantsXml(req: FastifyRequest): boolean {
  const h = `${req.headers.accept ?? ''} ${req.headers.accepts ?? ''}`;
  return /\bapplication\/xml\b|\btext\/xml\b/i.test(h);
}

/** Converts any thrown value into a domain error, or undefined for unexpected failures. */
function asDomainError(err: unknown): ReservationsError | undefined {
  if (err instanceof ReservationsError) return err;
  if (err instanceof AuthError) {
    if (err.code === 'AUTH_TOKEN_MISSING') return new ReservationsError('PARKING_CREDENTIALS_MISSING', err.message);
    if (err.code === 'AUTH_FORBIDDEN') return new ReservationsError('PARKING_FORBIDDEN', err.message);
    return new ReservationsError('PARKING_TOKEN_INVALID', `invalid or expired token: ${err.message}`);
  }
  const problem = clientProblemOf(err);
  if (problem)
    return new ReservationsError(
      'PARKING_PARAM_INVALID',
      problem.message,
      problem.parameter ? { parameter: problem.parameter } : {},
    );
  return undefined;
}

/** The plugin's error handler: domain errors in the family's shape, anything else a logged generic 500. */
export function handleReservationsError(
  err: unknown,
  req: FastifyRequest,
  reply: FastifyReply,
  familyOverride?: ErrorFamily,
): FastifyReply {
  const family =
    familyOverride ??
    (((req.routeOptions?.config as { family?: ErrorFamily } | undefined)?.family ?? 'api') as ErrorFamily);
  const e = asDomainError(err);
  const status = e ? STATUS_OF_KIND[e.kind] : 500;
  if (!e) req.log.error({ err }, 'unhandled error');
  const message = e ? e.message : 'internal server error';
  if (family === 'uss') {
    return reply.code(status).send({
      ...envelope(),
      versionNumber: '5.2',
      status: '0',
      message,
      code: e?.code ?? 'SERVER_ERROR',
      ...(e?.details.parameter ? { parameter: e.details.parameter } : {}),
    });
  }
  const body = {
    ErrorCode: e ? errorCodeOf(e) : 2,
    ErrorDescription: message,
    code: e?.code ?? 'SERVER_ERROR',
    ...(e?.details.parameter ? { parameter: e.details.parameter } : {}),
  };
  if (status === 401) reply.header('www-authenticate', 'Basic realm="parking", Bearer');
  if (wantsXml(req))
    return reply.code(status).header('content-type', 'application/xml; charset=utf-8').send(toXml('Error', body));
  return reply.code(status).send(body);
}
