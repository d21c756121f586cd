/**
 * Validation shared by the metric, metadata and availability requests: dates, date ranges,
 * filters, paging and cursors. Every failure names the offending field (ANALYTICS_INVALID_PARAMETER).
 */
import { createHash } from 'node:crypto';
import { AnalyticsError, invalid } from './errors.js';

/** Filter operators of the reference. */
export const FILTER_OPERATORS = [
  'EQUALS',
  'IN_LIST',
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL',
] as const;
/** One filter operator. */
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
/** Comparison operators (everything but EQUALS and IN_LIST). */
export const COMPARISON_OPERATORS: readonly FilterOperator[] = [
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL',
];
/** SQL of each comparison operator. */
export const OPERATOR_SQL: Record<FilterOperator, string> = {
  EQUALS: '=',
  IN_LIST: 'IN',
  GREATER_THAN: '>',
  GREATER_THAN_OR_EQUAL: '>=',
  LESS_THAN: '<',
  LESS_THAN_OR_EQUAL: '<=',
};

/** A validated filter. */
export interface Filter {
  name: string;
  operator: FilterOperator;
  not: boolean;
  expressions: string[];
  /** where it came from, e.g. `dimensionFilters[2]` */
  param: string;
}

/** An inclusive range of local calendar days, `YYYY-MM-DD`. */
export interface DayRange {
  startDate: string;
  endDate: string;
}

/** Checks a value is a plain object. */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Rejects fields of `v` not in `allowed`. */
export function checkKeys(v: Record<string, unknown>, allowed: readonly string[], param: string): void {
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k))
      throw invalid(param ? `${param}.${k}` : k, `unknown field (allowed: ${allowed.join(', ')})`);
  }
}

/** Validates a `YYYY-MM-DD` calendar date. */
export function readDate(v: unknown, param: string): string {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) throw invalid(param, 'must be a date YYYY-MM-DD');
  const d = new Date(`${v}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v)
    throw invalid(param, `${v} is not a calendar date`);
  return v;
}

/** Validates `dateRanges` (array of { startDate, endDate }, inclusive). */
export function readDateRanges(v: unknown, param: string, required: boolean): DayRange[] {
  if (v === undefined || v === null) {
    if (required) throw invalid(param, 'is required: [{ startDate, endDate }]');
    return [];
  }
  if (!Array.isArray(v) || (required && v.length === 0))
    throw invalid(param, 'must be a non-empty array of { startDate, endDate }');
  return v.map((r, i) => {
    const p = `${param}[${i}]`;
    if (!isObj(r)) throw invalid(p, 'must be { startDate, endDate }');
    checkKeys(r, ['startDate', 'endDate'], p);
    const startDate = readDate(r.startDate, `${p}.startDate`);
    const endDate = readDate(r.endDate, `${p}.endDate`);
    if (startDate > endDate) throw invalid(p, 'startDate is after endDate');
    return { startDate, endDate };
  });
}

/** Validates a filter list (`dimensionFilters`, `fieldFilters`). Operators are checked per name later. */
export function readFilters(v: unknown, param: string): Filter[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid(param, 'must be an array of { name, operator, not, expressions }');
  return v.map((f, i) => {
    const p = `${param}[${i}]`;
    if (!isObj(f)) throw invalid(p, 'must be an object');
    checkKeys(f, ['name', 'operator', 'not', 'expressions'], p);
    if (typeof f.name !== 'string' || !f.name) throw invalid(`${p}.name`, 'is required');
    if (typeof f.operator !== 'string' || !(FILTER_OPERATORS as readonly string[]).includes(f.operator)) {
      throw invalid(`${p}.operator`, `must be one of ${FILTER_OPERATORS.join(', ')}`);
    }
    if (f.not !== undefined && typeof f.not !== 'boolean') throw invalid(`${p}.not`, 'must be a boolean');
    if (
      !Array.isArray(f.expressions) ||
      f.expressions.length === 0 ||
      f.expressions.some((e) => typeof e !== 'string')
    ) {
      throw invalid(`${p}.expressions`, 'must be a non-empty array of strings');
    }
    const operator = f.operator as FilterOperator;
    if (operator !== 'IN_LIST' && f.expressions.length !== 1)
      throw invalid(`${p}.expressions`, `${operator} takes exactly one expression`);
    return { name: f.name, operator, not: f.not === true, expressions: f.expressions as string[], param: p };
  });
}

/** Paging of a request, resolved: rows to skip and to return. */
export interface Paging {
  position: number;
  limit: number;
  /** false when noPaging: never emit a cursor */
  paged: boolean;
  /** fingerprint of the query, carried in the cursor */
  fingerprint: string;
}

/** Fingerprint of the parts of a request that define its result set (paging fields excluded). */
export function fingerprintOf(body: Record<string, unknown>): string {
  const rest: Record<string, unknown> = {};
  for (const k of Object.keys(body).sort())
    if (!['nextCursor', 'offset', 'pageSize', 'noPaging'].includes(k)) rest[k] = body[k];
  return createHash('sha1').update(JSON.stringify(rest)).digest('hex').slice(0, 16);
}

/**
 * Resolves `offset`, `pageSize`, `nextCursor`, `noPaging`. A cursor is `{ position, query }`:
 * the absolute row position of the next page and the fingerprint of the query it belongs to (a
 * cursor sent with a different query is rejected). Ordering is total, so positions are stable.
 */
export function readPaging(
  body: Record<string, unknown>,
  defaults: { pageSize: number; maxPageSize: number; noPagingMax: number },
): Paging {
  const fingerprint = fingerprintOf(body);
  const int = (v: unknown, p: string, min: number, max: number): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      throw invalid(p, `must be an integer ${min}–${max}`);
    return v;
  };
  const offset = body.offset === undefined || body.offset === null ? 0 : int(body.offset, 'offset', 0, 2_147_483_647);
  const pageSize =
    body.pageSize === undefined || body.pageSize === null
      ? defaults.pageSize
      : int(body.pageSize, 'pageSize', 1, defaults.maxPageSize);
  if (body.noPaging !== undefined && body.noPaging !== null && typeof body.noPaging !== 'boolean')
    throw invalid('noPaging', 'must be a boolean');
  let position = offset;
  const cur = body.nextCursor;
  if (cur !== undefined && cur !== null) {
    if (!isObj(cur) || Object.values(cur).some((x) => typeof x !== 'string'))
      throw invalid('nextCursor', 'must be a map of string to string');
    if (Object.keys(cur).length > 0) {
      if (cur.query !== fingerprint || typeof cur.position !== 'string' || !/^\d+$/.test(cur.position)) {
        throw new AnalyticsError(
          'ANALYTICS_INVALID_CURSOR',
          'nextCursor: does not belong to this request (resend the same body with the cursor of its previous page)',
          'nextCursor',
        );
      }
      position = Number(cur.position);
    }
  }
  if (body.noPaging === true) return { position, limit: defaults.noPagingMax, paged: false, fingerprint };
  return { position, limit: pageSize, paged: true, fingerprint };
}

/** The cursor map of the page after one that started at `position` and returned `count` rows. */
export function cursorAfter(p: Paging, count: number): Record<string, string> {
  return { position: String(p.position + count), query: p.fingerprint };
}
