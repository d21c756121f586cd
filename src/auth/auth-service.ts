/**
 * The auth port shared by every service: applications, app tokens (signed JWT, keys in the
 * database), and verification. Implemented by `auth/app-tokens.ts`.
 */

/** What a verified app token says. */
export interface AppTokenClaims {
  appId: string;
  /** true for applications created with `streetwise apps create --admin` (admin APIs) */
  admin: boolean;
  /** unix seconds */
  expiresAtS: number;
}

export interface AuthService {
  /**
   * Issues an app token for `appId` when `hashToken` is the SHA-1 hex of `appId|appKey`
   * (lower-cased before hashing per the reference; the non-lower-cased form is accepted too).
   * Throws AuthError AUTH_APP_UNKNOWN / AUTH_HASH_INVALID / AUTH_APP_DISABLED (the last only for the right hash).
   */
  issueAppToken(appId: string, hashToken: string): Promise<{ token: string; expiresAtS: number }>;
  /** Verifies a token. Throws AuthError AUTH_TOKEN_INVALID or AUTH_TOKEN_EXPIRED. */
  verifyAppToken(token: string): Promise<AppTokenClaims>;
}

/** Auth failures; the HTTP layer shapes them per service. */
export class AuthError extends Error {
  constructor(
    readonly code:
      | 'AUTH_TOKEN_MISSING'
      | 'AUTH_TOKEN_INVALID'
      | 'AUTH_TOKEN_EXPIRED'
      | 'AUTH_APP_UNKNOWN'
      | 'AUTH_HASH_INVALID'
      | 'AUTH_APP_DISABLED'
      | 'AUTH_PARAM_MISSING'
      | 'AUTH_FORBIDDEN',
    message: string,
  ) {
    super(message);
    this.name = 'AuthError';
  }
}
