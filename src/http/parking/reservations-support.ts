/**
 * Shared HTTP helpers of the products / reservations / users / open-spots routes: who is calling,
 * request fields (form or JSON body plus query), unknown-parameter rejection, and JSON/XML output.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { verifyPassword, hashPassword } from '../../auth/password.js';
import {
  authenticateUser,
  invalidParam,
  ReservationsError,
  TestPaymentProcessor,
  type Caller,
  type PasswordHasher,
  type PaymentProcessor,
  type User,
} from '../../parking/reservations/index.js';
import { basicCredentials, bearerToken, queryParam } from '../tokens.js';
import { toXml } from '../xml.js';
import { documentedStrings } from '../openapi.js';
import { wantsXml } from './reservations-errors.js';

/** Password hashing used for parking users (scrypt from `auth/password.ts`). */
export const passwordHasher: PasswordHasher = { hash: hashPassword, verify: verifyPassword };

/** The payment processor of this deployment: the built-in test processor. */
export const paymentProcessor: PaymentProcessor = new TestPaymentProcessor();

/** Request fields: the body (form fields or JSON object) over the query string. */
export function fieldsOf(req: FastifyRequest): Record<string, unknown> {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const body = req.body;
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body)))
    throw invalidParam('body', 'must be form fields or a JSON object');
  return { ...query, ...((body as Record<string, unknown> | undefined) ?? {}) };
}

/** Throws PARKING_PARAM_INVALID for the first field not in `allowed` (compared case-insensitively). */
export function rejectUnknown(fields: Record<string, unknown>, allowed: readonly string[]): void {
  const ok = new Set(allowed.map((a) => a.toLowerCase()));
  for (const k of Object.keys(fields)) {
    if (!ok.has(k.toLowerCase())) throw invalidParam(k, 'unknown parameter');
  }
}

/** A field as a string, or undefined when absent or empty; throws on objects and arrays. */
export function stringField(fields: Record<string, unknown>, name: string): string | undefined {
  const v = fields[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) throw invalidParam(name, 'given more than once');
  throw invalidParam(name, 'must be a string');
}

/** Verifies the Bearer app token (or `accesstoken` query when `allowQuery`); throws when missing or bad. */
export async function appCaller(
  ctx: AppContext,
  req: FastifyRequest,
  allowQuery = false,
): Promise<Caller & { kind: 'app' }> {
  const token = bearerToken(req) ?? (allowQuery ? queryParam(req, 'accesstoken') : undefined);
  if (!token)
    throw new ReservationsError(
      'PARKING_CREDENTIALS_MISSING',
      allowQuery
        ? 'an app token is required (Authorization: Bearer or accesstoken)'
        : 'an app token is required (Authorization: Bearer)',
    );
  const claims = await ctx.auth.verifyAppToken(token);
  return { kind: 'app', appId: claims.appId, admin: claims.admin };
}

/** Requires an admin app token (`Authorization: Bearer`). */
export async function adminCaller(ctx: AppContext, req: FastifyRequest): Promise<void> {
  const caller = await appCaller(ctx, req);
  if (!caller.admin)
    throw new ReservationsError('PARKING_FORBIDDEN', 'this operation needs an admin application token');
}

/** The user of the request's Basic credentials; ErrorCode 3 when absent, 1005 when wrong. */
export async function basicUser(ctx: AppContext, req: FastifyRequest, recordLogin = false): Promise<User> {
  const cred = basicCredentials(req);
  if (!cred)
    throw new ReservationsError('PARKING_CREDENTIALS_MISSING', 'HTTP Basic credentials (email:password) are required');
  return authenticateUser(ctx.db, passwordHasher, cred.user, cred.password, ctx.now(), recordLogin);
}

/** The caller of a reservation operation: Bearer app token, or Basic user credentials. */
export async function reservationCaller(
  ctx: AppContext,
  req: FastifyRequest,
): Promise<{ caller: Caller; token: string }> {
  if (bearerToken(req)) return { caller: await appCaller(ctx, req), token: '' };
  const user = await basicUser(ctx, req);
  if (!user.isActive) throw new ReservationsError('PARKING_FORBIDDEN', 'this user account is inactive');
  const caller: Caller = {
    kind: 'user',
    userId: user.id,
    isStaff: user.isStaff,
    token: user.token,
    profile: {
      firstName: user.firstName,
      lastName: user.lastName,
      phone: user.phone,
      licensePlate: user.licensePlate,
      payment: user.payment,
    },
  };
  return { caller, token: user.token };
}

/** Base URL of this server as the client reached it (for `str_reservation_url`). */
export function publicBaseUrl(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

/**
 * Sends `body` as JSON, or as XML under `rootName` when the client asked for XML; `xmlShape`
 * turns the JSON body into a shape with valid element names (arrays become repeated children).
 */
export function sendJsonOrXml(
  req: FastifyRequest,
  reply: FastifyReply,
  rootName: string,
  body: Record<string, unknown>,
  xmlShape: (b: Record<string, unknown>) => Record<string, unknown> = (b) => b,
): FastifyReply {
  if (wantsXml(req))
    return reply.header('content-type', 'application/xml; charset=utf-8').send(toXml(rootName, xmlShape(body)));
  return reply.send(body);
}

/** Fields refused in the query string (they would end up in logs and caches): payment data and secrets. */
export const BODY_ONLY_FIELD = /^(card|token|password)/i;

/**
 * OpenAPI body and query schemas of a route whose handler reads `fields` (the parser's list) from
 * the body and the query string together (`fieldsOf`); payment data and passwords only from the
 * body. Descriptions from `docs`; start-up fails when a field has none.
 */
export function fieldSchemas(
  where: string,
  fields: readonly string[],
  docs: Record<string, string>,
): { body: Record<string, unknown>; querystring: Record<string, unknown> } {
  return {
    body: documentedStrings(`${where} body`, fields, docs),
    querystring: documentedStrings(
      `${where} query`,
      fields.filter((f) => !BODY_ONLY_FIELD.test(f)),
      docs,
    ),
  };
}
