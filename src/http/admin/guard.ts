/** What every admin route shares: the error schema, the admin token check, body and time parsing. */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError } from '../../auth/index.js';
import { parseTimestampS } from '../../probes/ingest/records.js';
import { bearerToken } from '../tokens.js';
import { AdminHttpError } from './errors.js';

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, statusId: { type: 'integer' }, userMessage: { type: 'string' } },
    },
  },
} as const;
export const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 503: errorSchema };
export const security = [{ bearer: [] }];

/** Checks the admin app token; throws AdminHttpError 401/403. */
export async function requireAdmin(ctx: AppContext, req: FastifyRequest): Promise<void> {
  const token = bearerToken(req);
  if (token === undefined)
    throw new AdminHttpError('ADMIN_AUTH_MISSING', 'Authorization: Bearer <admin app token> is required');
  try {
    const claims = await ctx.auth.verifyAppToken(token);
    if (!claims.admin) throw new AdminHttpError('ADMIN_FORBIDDEN', 'this operation needs an admin application token');
  } catch (err) {
    if (err instanceof AuthError)
      throw new AdminHttpError(
        err.code === 'AUTH_TOKEN_EXPIRED' ? 'ADMIN_AUTH_EXPIRED' : 'ADMIN_AUTH_INVALID',
        err.message,
      );
    throw err;
  }
}

/** The body as an object with only `allowed` keys; throws ADMIN_BAD_REQUEST naming the key. */
export function bodyObject(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new AdminHttpError('ADMIN_BAD_REQUEST', 'body must be a JSON object');
  const o = body as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!allowed.includes(k))
      throw new AdminHttpError('ADMIN_BAD_REQUEST', `${k}: unknown field (accepted: ${allowed.join(', ')})`);
  return o;
}

/** An optional ISO 8601 or unix time field, unix seconds. */
export function optionalTime(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const s = parseTimestampS(v);
  if (!Number.isFinite(s))
    throw new AdminHttpError('ADMIN_BAD_REQUEST', `${key}: ${JSON.stringify(v)} is not ISO 8601 or unix time`);
  return s;
}
