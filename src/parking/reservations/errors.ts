/**
 * Error catalog of products, reservations, users and open spots. Domain code throws
 * `ReservationsError`; `http/parking/reservations-errors.ts` shapes it per API.
 */

/** What kind of failure, which decides the HTTP status at the edge. */
export type ReservationsErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payment'
  | 'limit';

/** Every code this module raises, with its kind. Listed in `docs/reservations.md`. */
export const RESERVATIONS_ERRORS = {
  PARKING_PARAM_INVALID: 'invalid',
  PARKING_PARAM_MISSING: 'invalid',
  PARKING_FIELD_REQUIRED: 'invalid',
  PARKING_CREDENTIALS_MISSING: 'unauthenticated',
  PARKING_TOKEN_INVALID: 'unauthenticated',
  PARKING_CHK_INVALID: 'unauthenticated',
  PARKING_FORBIDDEN: 'forbidden',
  PARKING_PRODUCT_NOT_FOUND: 'not_found',
  PARKING_LOT_NOT_FOUND: 'not_found',
  PARKING_RESERVATION_NOT_FOUND: 'not_found',
  PARKING_USER_NOT_FOUND: 'not_found',
  PARKING_OPEN_SPOT_NOT_FOUND: 'not_found',
  PARKING_PRODUCT_UNAVAILABLE: 'conflict',
  PARKING_PRODUCT_SOLD_OUT: 'conflict',
  PARKING_TRANSITION_INVALID: 'conflict',
  PARKING_QUOTE_EXPIRED: 'conflict',
  PARKING_IDEMPOTENCY_CONFLICT: 'conflict',
  PARKING_PAYMENT_REQUIRED: 'payment',
  PARKING_PAYMENT_DECLINED: 'payment',
  USER_EMAIL_EXISTS: 'conflict',
  USER_LOGIN_FAILED: 'unauthenticated',
} as const satisfies Record<string, ReservationsErrorKind>;

/** A code of the catalog. */
export type ReservationsErrorCode = keyof typeof RESERVATIONS_ERRORS;

/** A typed domain failure: code, human message, and the offending parameter when there is one. */
export class ReservationsError extends Error {
  readonly kind: ReservationsErrorKind;
  constructor(
    readonly code: ReservationsErrorCode,
    message: string,
    readonly details: { parameter?: string; [key: string]: unknown } = {},
  ) {
    super(message);
    this.name = 'ReservationsError';
    this.kind = RESERVATIONS_ERRORS[code];
  }
}

/** Shorthand for a bad parameter: `invalid('duration', 'must be a positive integer')`. */
export function invalidParam(parameter: string, why: string): ReservationsError {
  return new ReservationsError('PARKING_PARAM_INVALID', `parameter ${parameter}: ${why}`, { parameter });
}

/** Shorthand for a missing required parameter. */
export function missingParam(parameter: string): ReservationsError {
  return new ReservationsError('PARKING_PARAM_MISSING', `parameter ${parameter} is required`, { parameter });
}
