/** Ways a request presents credentials: Bearer header, query parameters, HTTP Basic. */
import type { FastifyRequest } from 'fastify';

/** The token of an `Authorization: Bearer <token>` header, or undefined (also for other schemes). */
export function bearerToken(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

/** True when an Authorization header is present but is not a well-formed Bearer header. */
export function hasMalformedAuthorization(req: FastifyRequest): boolean {
  const h = req.headers.authorization;
  return h !== undefined && bearerToken(req) === undefined && !/^Basic\s+/i.test(h);
}

/** A query parameter looked up case-insensitively (first value when repeated). */
export function queryParam(req: FastifyRequest, name: string): string | undefined {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(q)) {
    if (k.toLowerCase() === lower) {
      if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
      return v === undefined || v === null ? undefined : String(v);
    }
  }
  return undefined;
}

/** Credentials of an `Authorization: Basic base64(user:password)` header, or undefined when absent/malformed. */
export function basicCredentials(req: FastifyRequest): { user: string; password: string } | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(h);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  return { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}
