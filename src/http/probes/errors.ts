/** Error catalog of the probe ingestion endpoint: code → HTTP status. */

export const PROBES_ERROR_STATUS = {
  /** no `Authorization: Bearer` token */
  PROBES_AUTH_MISSING: 401,
  /** the token does not verify */
  PROBES_AUTH_INVALID: 401,
  /** the token has expired */
  PROBES_AUTH_EXPIRED: 401,
  /** a valid token of a non-admin application */
  PROBES_FORBIDDEN: 403,
  /** the body is not a JSON object with a `pings` array */
  PROBES_BAD_REQUEST: 400,
  /** the body exceeds the size limit */
  PROBES_BODY_TOO_LARGE: 413,
  /** a required CSV column (trace id, time, lat, lon) is missing (the message names it) */
  PROBES_CSV_MISSING_COLUMN: 400,
  /** a column mapping names an unknown unit (the message names the column) */
  PROBES_CSV_UNKNOWN_UNIT: 400,
  /** the column mapping names a column the CSV does not have */
  PROBES_CSV_UNKNOWN_COLUMN: 400,
  /** a headerless CSV has columns beyond trace_id,timestamp,lat,lon that no mapping explains */
  PROBES_CSV_AMBIGUOUS_COLUMNS: 400,
  /** the column mapping does not parse */
  PROBES_CSV_BAD_MAPPING: 400,
  /** a JSON body is neither an object with a `pings` array nor an array of pings */
  PROBES_JSON_SHAPE: 400,
  /** a JSON body does not parse */
  PROBES_JSON_SYNTAX: 400,
  /** a format option (e.g. fcdStart) is invalid */
  PROBES_FORMAT_OPTION: 400,
  /** the Content-Type is not one of the accepted probe formats */
  PROBES_UNSUPPORTED_TYPE: 415,
  /** too many probe bodies are being stored by one serving thread (PROBES_MAX_BODIES) */
  PROBES_BUSY: 503,
  /** an unexpected failure (logged with the request id) */
  PROBES_INTERNAL: 500,
} as const;

/** One code of the catalog. */
export type ProbesErrorCode = keyof typeof PROBES_ERROR_STATUS;

/** A failure of the probe endpoint with its catalog code and HTTP status. */
export class ProbesHttpError extends Error {
  readonly statusCode: number;
  constructor(
    statusCode: number,
    readonly code: ProbesErrorCode,
    message: string,
  ) {
    super(message);
    this.statusCode = statusCode;
  }
}
