/**
 * Error catalog of the analytics service. Domain code throws `AnalyticsError`; the HTTP plugin
 * maps `kind` to a status and renders the service's error body.
 */

/** How a failure maps onto HTTP: invalid → 400, not_found → 404, forbidden → 403. */
export type AnalyticsErrorKind = 'invalid' | 'not_found' | 'forbidden';

/** Codes: ANALYTICS_1xx request validation, 2xx namespaces, 3xx paging. */
export const ANALYTICS_ERRORS = {
  ANALYTICS_INVALID_PARAMETER: { kind: 'invalid' },
  ANALYTICS_INVALID_GEOMETRY: { kind: 'invalid' },
  ANALYTICS_INVALID_NAMESPACE: { kind: 'invalid' },
  ANALYTICS_NAMESPACE_NOT_FOUND: { kind: 'not_found' },
  ANALYTICS_INVALID_CURSOR: { kind: 'invalid' },
  ANALYTICS_INTERSECTION_NOT_FOUND: { kind: 'not_found' },
  ANALYTICS_SIGNAL_MAP_NOT_FOUND: { kind: 'not_found' },
} as const satisfies Record<string, { kind: AnalyticsErrorKind }>;

/** One code of the catalog. */
export type AnalyticsErrorCode = keyof typeof ANALYTICS_ERRORS;

/** A typed failure of the analytics service; `parameter` names the offending request field. */
export class AnalyticsError extends Error {
  readonly kind: AnalyticsErrorKind;
  constructor(
    readonly code: AnalyticsErrorCode,
    message: string,
    readonly parameter?: string,
  ) {
    super(message);
    this.name = 'AnalyticsError';
    this.kind = ANALYTICS_ERRORS[code].kind;
  }
}

/** Shorthand for an ANALYTICS_INVALID_PARAMETER error naming `parameter`. */
export function invalid(parameter: string, message: string): AnalyticsError {
  return new AnalyticsError('ANALYTICS_INVALID_PARAMETER', `${parameter}: ${message}`, parameter);
}
