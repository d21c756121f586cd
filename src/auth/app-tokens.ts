/**
 * Applications and app tokens. Tokens are HS256 JWTs signed with keys kept in the database
 * (`signing_keys`), so every server process sharing the database accepts every other's tokens;
 * the key id travels in the JWT header (`kid`). Keys can be rotated: new tokens use the newest
 * key, older keys keep verifying until their tokens have expired.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify, decodeProtectedHeader, errors as joseErrors } from 'jose';
import type { Queryable } from '../store/db.js';
import { AuthError, type AppTokenClaims, type AuthService } from './auth-service.js';

/** How long a retired key still verifies tokens, seconds (longer than any token lifetime we issue). */
const RETIRED_KEY_GRACE_S = 7 * 24 * 3600;
/** Issuer claim of our tokens. */
const ISSUER = 'streetwise';

/** A newly created application; the key is shown once and never stored. */
export interface CreatedApp {
  appId: string;
  appKey: string;
  name: string;
  admin: boolean;
}

/** SHA-1 hex of a string (the AppToken hashToken algorithm). */
export function sha1Hex(s: string): string {
  return createHash('sha1').update(s, 'utf8').digest('hex');
}

/** The hashToken a client sends for an app: lower-case hex SHA-1 of lower(appId|appKey). */
export function hashTokenFor(appId: string, appKey: string): string {
  return sha1Hex(`${appId}|${appKey}`.toLowerCase());
}

function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase());
  const y = Buffer.from(b.toLowerCase());
  return x.length === y.length && timingSafeEqual(x, y);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Creates an application with a random key. */
export async function createApp(
  db: Queryable,
  opts: { name: string; admin?: boolean; appId?: string; appKey?: string; tokenExpirationHours?: number },
): Promise<CreatedApp> {
  const appId = opts.appId ?? randomUUID();
  const appKey = opts.appKey ?? randomBytes(24).toString('base64url');
  if (!UUID_RE.test(appId)) throw new Error('appId must be a UUID');
  await db.query(
    `INSERT INTO applications (app_id, name, hash_token_lower, hash_token_exact, admin, token_expiration_hours)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      appId,
      opts.name,
      hashTokenFor(appId, appKey),
      sha1Hex(`${appId}|${appKey}`),
      opts.admin ?? false,
      opts.tokenExpirationHours ?? 24,
    ],
  );
  return { appId, appKey, name: opts.name, admin: opts.admin ?? false };
}

/**
 * Gives an existing application a new random key (the old one stops working at once) and
 * returns it; undefined when the app does not exist.
 */
export async function resetAppKey(db: Queryable, appId: string): Promise<string | undefined> {
  if (!UUID_RE.test(appId)) return undefined;
  const appKey = randomBytes(24).toString('base64url');
  const r = await db.query(
    'UPDATE applications SET hash_token_lower = $2, hash_token_exact = $3, status = 2 WHERE app_id = $1',
    [appId, hashTokenFor(appId, appKey), sha1Hex(`${appId}|${appKey}`)],
  );
  return r.rowCount > 0 ? appKey : undefined;
}

/** Lists applications (never their keys). */
export async function listApps(
  db: Queryable,
): Promise<Array<{ appId: string; name: string; admin: boolean; status: number; createdAt: Date }>> {
  const r = await db.query<{ app_id: string; name: string; admin: boolean; status: number; created_at: Date }>(
    'SELECT app_id, name, admin, status, created_at FROM applications ORDER BY created_at, app_id',
  );
  return r.rows.map((x) => ({
    appId: x.app_id,
    name: x.name,
    admin: x.admin,
    status: x.status,
    createdAt: x.created_at,
  }));
}

/** Sets an application's status (0 disabled, 2 active). Returns false when the app does not exist. */
export async function setAppStatus(db: Queryable, appId: string, status: 0 | 1 | 2): Promise<boolean> {
  if (!UUID_RE.test(appId)) return false;
  const r = await db.query('UPDATE applications SET status = $2 WHERE app_id = $1', [appId, status]);
  return r.rowCount > 0;
}

/** Adds a new signing key and retires the current ones (they keep verifying for a grace period). */
export async function rotateSigningKey(db: Queryable): Promise<string> {
  const kid = randomUUID();
  await db.query('UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL');
  await db.query('INSERT INTO signing_keys (kid, secret) VALUES ($1, $2)', [kid, randomBytes(32).toString('base64')]);
  return kid;
}

interface KeyRow {
  kid: string;
  secret: string;
  retired_at: Date | null;
}

/** Message of an unknown appId or a wrong hashToken (the same for both), with how the hash is made. */
const WRONG_CREDENTIALS =
  'User Authentication Failed: unknown appId or wrong hashToken (hashToken = lower-case hex SHA-1 of lower(appId + "|" + appKey))';

/** The app-token service over the database. */
export class DbAuthService implements AuthService {
  private keys = new Map<string, { secret: Uint8Array; retiredAtS: number | null }>();
  private signingKid: string | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly now: () => number = Date.now,
  ) {}

  private async loadKeys(): Promise<void> {
    let rows = (await this.db.query<KeyRow>('SELECT kid, secret, retired_at FROM signing_keys ORDER BY created_at'))
      .rows;
    if (!rows.some((r) => r.retired_at === null)) {
      // First start: create the first key. Concurrent first starts may both insert: harmless,
      // the newest active key signs and all verify.
      await rotateSigningKey(this.db);
      rows = (await this.db.query<KeyRow>('SELECT kid, secret, retired_at FROM signing_keys ORDER BY created_at')).rows;
    }
    this.keys = new Map(
      rows.map((r) => [
        r.kid,
        { secret: Buffer.from(r.secret, 'base64'), retiredAtS: r.retired_at ? r.retired_at.getTime() / 1000 : null },
      ]),
    );
    const active = rows.filter((r) => r.retired_at === null);
    this.signingKid = active[active.length - 1].kid;
  }

  async issueAppToken(appId: string, hashToken: string): Promise<{ token: string; expiresAtS: number }> {
    if (!appId || !hashToken) throw new AuthError('AUTH_PARAM_MISSING', 'appId and hashToken are required');
    if (!UUID_RE.test(appId)) throw new AuthError('AUTH_APP_UNKNOWN', WRONG_CREDENTIALS);
    const r = await this.db.query<{
      name: string;
      hash_token_lower: string;
      hash_token_exact: string;
      admin: boolean;
      status: number;
      token_expiration_hours: number;
    }>(
      'SELECT name, hash_token_lower, hash_token_exact, admin, status, token_expiration_hours FROM applications WHERE app_id = $1',
      [appId],
    );
    const app = r.rows[0];
    // An unknown app and a wrong hash get the same message (it must not tell which appIds exist); a
    // disabled app is named only to a caller who proved it holds the appKey (the right hash).
    if (!app) throw new AuthError('AUTH_APP_UNKNOWN', WRONG_CREDENTIALS);
    if (!safeEqualHex(hashToken, app.hash_token_lower) && !safeEqualHex(hashToken, app.hash_token_exact)) {
      throw new AuthError('AUTH_HASH_INVALID', WRONG_CREDENTIALS);
    }
    if (app.status !== 2)
      throw new AuthError(
        'AUTH_APP_DISABLED',
        'User Authentication Failed: this application is disabled; an operator creates a new one with `streetwise apps create`',
      );
    // Refresh keys when not loaded or another process may have rotated them (cheap query).
    await this.loadKeys();
    const nowS = Math.floor(this.now() / 1000);
    const expiresAtS = nowS + app.token_expiration_hours * 3600;
    const kid = this.signingKid!;
    const token = await new SignJWT({ appId, name: app.name, anonymous: true, admin: app.admin })
      .setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(appId)
      .setIssuedAt(nowS)
      .setExpirationTime(expiresAtS)
      .sign(this.keys.get(kid)!.secret);
    return { token, expiresAtS };
  }

  async verifyAppToken(token: string): Promise<AppTokenClaims> {
    if (!token) throw new AuthError('AUTH_TOKEN_MISSING', 'no token');
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw new AuthError('AUTH_TOKEN_INVALID', 'invalid token');
    }
    if (!kid) throw new AuthError('AUTH_TOKEN_INVALID', 'invalid token');
    if (!this.keys.has(kid)) await this.loadKeys();
    const key = this.keys.get(kid);
    const nowS = this.now() / 1000;
    if (!key || (key.retiredAtS !== null && key.retiredAtS + RETIRED_KEY_GRACE_S < nowS)) {
      throw new AuthError('AUTH_TOKEN_INVALID', 'invalid token');
    }
    try {
      const { payload } = await jwtVerify(token, key.secret, {
        issuer: ISSUER,
        algorithms: ['HS256'],
        currentDate: new Date(this.now()),
      });
      if (typeof payload.appId !== 'string' || typeof payload.exp !== 'number')
        throw new AuthError('AUTH_TOKEN_INVALID', 'invalid token');
      return { appId: payload.appId, admin: payload.admin === true, expiresAtS: payload.exp };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new AuthError('AUTH_TOKEN_EXPIRED', 'token expired');
      if (err instanceof AuthError) throw err;
      throw new AuthError('AUTH_TOKEN_INVALID', 'invalid token');
    }
  }
}
