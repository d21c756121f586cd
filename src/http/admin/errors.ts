/** Error catalog of the operator admin API (`/v1/admin/apps…`, `/v1/admin/probes/process`, …): code → HTTP status. */

export const ADMIN_ERROR_STATUS = {
  /** no `Authorization: Bearer` token */
  ADMIN_AUTH_MISSING: 401,
  /** the token does not verify */
  ADMIN_AUTH_INVALID: 401,
  /** the token has expired */
  ADMIN_AUTH_EXPIRED: 401,
  /** a valid token of a non-admin application */
  ADMIN_FORBIDDEN: 403,
  /** a parameter or the body is invalid (the message names it) */
  ADMIN_BAD_REQUEST: 400,
  /** no such application */
  ADMIN_NOT_FOUND: 404,
  /** the ingestion thread cannot take the task now */
  ADMIN_BUSY: 503,
  /** an unexpected failure (logged with the request id) */
  ADMIN_INTERNAL: 500,
} as const;

/** One code of the catalog. */
export type AdminErrorCode = keyof typeof ADMIN_ERROR_STATUS;

/** A failure of the admin API with its catalog code. */
export class AdminHttpError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: AdminErrorCode,
    message: string,
  ) {
    super(message);
    this.statusCode = ADMIN_ERROR_STATUS[code];
  }
}
