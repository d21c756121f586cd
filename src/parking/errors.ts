/**
 * Error catalog of the parking inventory service (lots, blocks, rates, occupancy). Domain code
 * throws `ParkingError`; `http/parking/inventory-plugin.ts` shapes it into the parking error body.
 */

/** Kind of failure; the HTTP layer maps it to a status (invalid 400, unauthorized 401, forbidden 403, not_found 404, limit 400). */
export type ParkingErrorKind = 'invalid' | 'unauthorized' | 'forbidden' | 'not_found' | 'limit';

/** Every code the inventory side of the parking service can raise, with its kind. */
export const PARKING_ERRORS = {
  /** a query parameter is malformed (bad number, bad coordinate pair, bad date) */
  PARKING_PARAM_INVALID: 'invalid',
  /** two location parameters, or radius/geoId combined illegally (contract rules 1 and 2) */
  PARKING_PARAM_CONFLICT: 'invalid',
  /** no location parameter at all */
  PARKING_LOCATION_MISSING: 'invalid',
  /** a parameter this operation does not take */
  PARKING_PARAM_UNSUPPORTED: 'invalid',
  /** radius, box, polygon or polyline beyond the service limits */
  PARKING_AREA_TOO_LARGE: 'limit',
  /** an id / alias query matched nothing */
  PARKING_NOT_FOUND: 'not_found',
  /** missing, invalid or expired token */
  PARKING_TOKEN_INVALID: 'unauthorized',
  /** a valid token without the admin right on an admin operation */
  PARKING_FORBIDDEN: 'forbidden',
  /** an uploaded lot / block / observation fails validation */
  PARKING_UPLOAD_INVALID: 'invalid',
} as const satisfies Record<string, ParkingErrorKind>;

/** Code of a parking inventory error. */
export type ParkingErrorCode = keyof typeof PARKING_ERRORS;

/** A domain error of the parking inventory service; `parameter` names the offending input. */
export class ParkingError extends Error {
  /** kind of the failure (drives the HTTP status) */
  readonly kind: ParkingErrorKind;
  constructor(
    readonly code: ParkingErrorCode,
    message: string,
    readonly parameter?: string,
  ) {
    super(message);
    this.name = 'ParkingError';
    this.kind = PARKING_ERRORS[code];
  }
}

/** Shorthand for an invalid-parameter error naming `parameter`. */
export function invalidParam(parameter: string, message: string): ParkingError {
  return new ParkingError('PARKING_PARAM_INVALID', `${parameter}: ${message}`, parameter);
}
