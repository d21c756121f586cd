/**
 * The console's API client: the same public HTTP APIs any client uses, with an app token from
 * `/v1/AppToken`. Every failure becomes an `ApiError`; a rejected token (expired or invalid) is
 * reported to `onAuthFailure` so the page can ask the user to sign in again.
 */
import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Why a call failed: the token (expired / invalid / missing), permissions, or anything else. */
export type ApiFailure = 'expired' | 'unauthorized' | 'forbidden' | 'failed';

export class ApiError extends Error {
  constructor(
    readonly kind: ApiFailure,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** `hashToken` of the account API: lower-case hex SHA-1 of `lower(appId|appKey)`. */
export function hashTokenFor(appId: string, appKey: string): string {
  return bytesToHex(sha1(utf8ToBytes(`${appId}|${appKey}`.toLowerCase())));
}

/** The message of an error body in any of the services' shapes. */
function messageOf(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const b = body as Record<string, unknown>;
  const err = b.error as Record<string, unknown> | undefined;
  if (err && typeof err === 'object') return String(err.userMessage ?? err.message ?? '');
  for (const k of ['statusDetail', 'message', 'ErrorDescription', 'statusText'])
    if (typeof b[k] === 'string' && b[k]) return String(b[k]);
  return '';
}

/** True when an error body says the token expired (each service words it its own way). */
function saysExpired(body: unknown, text: string): boolean {
  const b = (body ?? {}) as Record<string, unknown>;
  const code = String((b.error as Record<string, unknown> | undefined)?.code ?? b.code ?? '');
  return /EXPIRED/.test(code) || b.statusId === 43 || /expired/i.test(text);
}

export class ApiClient {
  token: string | null = null;
  /** called once per failed call whose token was rejected */
  onAuthFailure: (err: ApiError) => void = () => undefined;

  constructor(readonly base = '') {}

  /** Asks `/v1/AppToken` for a token; keeps and returns it. */
  async signIn(appId: string, appKey: string): Promise<{ token: string; expiry: string }> {
    const url = `${this.base}/v1/AppToken?appId=${encodeURIComponent(appId)}&hashToken=${hashTokenFor(appId, appKey)}`;
    const res = await fetch(url);
    const body = (await res.json().catch(() => null)) as { result?: { token: string; expiry: string } } | null;
    if (!res.ok || !body?.result?.token)
      throw new ApiError('unauthorized', res.status, messageOf(body) || `sign-in failed (HTTP ${res.status})`);
    this.token = body.result.token;
    return body.result;
  }

  /** GET or POST with the token as `Authorization: Bearer`; parses JSON and normalises errors. */
  async request<T>(
    method: 'GET' | 'POST',
    path: string,
    opts: { query?: Record<string, string | number | undefined>; json?: unknown; form?: Record<string, string> } = {},
  ): Promise<T> {
    if (!this.token) {
      const err = new ApiError('unauthorized', 401, 'not signed in');
      this.onAuthFailure(err);
      throw err;
    }
    const qs = Object.entries(opts.query ?? {})
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join('&');
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    let body: string | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    }
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}${qs ? `?${qs}` : ''}`, { method, headers, body });
    } catch (e) {
      throw new ApiError('failed', 0, `the server did not answer (${String(e)})`);
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    // routing answers token problems as statusId 41 NoToken / 42 BadToken / 43 TokenExpired
    const routingStatus = (parsed as { statusId?: unknown } | null)?.statusId;
    if (res.status === 401 || routingStatus === 41 || routingStatus === 42 || routingStatus === 43) {
      const expired = saysExpired(parsed, text);
      const err = new ApiError(
        expired ? 'expired' : 'unauthorized',
        res.status,
        messageOf(parsed) || (expired ? 'token expired' : 'invalid token'),
      );
      this.onAuthFailure(err);
      throw err;
    }
    if (res.status === 403)
      throw new ApiError('forbidden', 403, messageOf(parsed) || 'this application may not call this API');
    if (!res.ok) throw new ApiError('failed', res.status, messageOf(parsed) || `HTTP ${res.status}`);
    return parsed as T;
  }

  get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  postJson<T>(path: string, json: unknown): Promise<T> {
    return this.request<T>('POST', path, { json });
  }
}
