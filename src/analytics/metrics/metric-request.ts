/**
 * The body of POST /v1/metrics/intersections: validates a MetricRequest field by field (unknown
 * fields rejected) into what `metric-query.ts` answers.
 */
import { invalid } from '../errors.js';
import {
  checkKeys,
  isObj,
  readDateRanges,
  readFilters,
  readPaging,
  type DayRange,
  type Filter,
  type Paging,
} from '../request-common.js';
import { metricDef } from './definitions.js';
import { DIMENSION_NAMES, readTimeRanges, type TimeRange } from './dimensions.js';
import { readLosBands, type LosBand } from './los.js';

/** Default rows per page. */
export const METRIC_PAGE_SIZE_DEFAULT = 1000;
/** Largest accepted pageSize. */
export const METRIC_PAGE_SIZE_MAX = 10_000;
/** Rows returned at most with `noPaging: true`. */
export const METRIC_NO_PAGING_MAX_ROWS = 100_000;

/** Metadata items of a metric request, resolved. */
export interface MetricMetadata {
  verbose: boolean;
  units: 'imperial' | 'metric';
  namespaces: string[];
}

/** A validated MetricRequest. */
export interface MetricRequest {
  dateRanges: DayRange[];
  dimensions: string[];
  timeRanges?: TimeRange[];
  metrics: string[];
  losBands?: LosBand[];
  filters: Filter[];
  metadata: MetricMetadata;
  orderBys: Array<{ name: string; descending: boolean }>;
  geometry?: unknown;
  paging: Paging;
}

/** Reads the `metadata` items of a metric request (`outputMode`, `namespace`, `units`). */
export function readMetricMetadata(v: unknown, param = 'metadata'): MetricMetadata {
  const out: MetricMetadata = { verbose: false, units: 'imperial', namespaces: [] };
  if (v === undefined || v === null) return out;
  if (!Array.isArray(v)) throw invalid(param, 'must be an array of { key, value, valueList }');
  v.forEach((m, i) => {
    const p = `${param}[${i}]`;
    if (!isObj(m)) throw invalid(p, 'must be { key, value, valueList }');
    checkKeys(m, ['key', 'value', 'valueList'], p);
    if (m.valueList !== undefined && typeof m.valueList !== 'boolean')
      throw invalid(`${p}.valueList`, 'must be a boolean');
    const values: unknown[] = m.valueList === true ? (Array.isArray(m.value) ? m.value : [m.value]) : [m.value];
    if (m.valueList === true && !Array.isArray(m.value))
      throw invalid(`${p}.value`, 'must be an array when valueList is true');
    if (m.valueList !== true && Array.isArray(m.value))
      throw invalid(`${p}.value`, 'is an array: set valueList to true');
    const one = (allowed: string[]): string => {
      if (values.length !== 1 || typeof values[0] !== 'string' || !allowed.includes(values[0].toLowerCase()))
        throw invalid(`${p}.value`, `must be one of ${allowed.join(', ')}`);
      return values[0].toLowerCase();
    };
    switch (m.key) {
      case 'outputMode':
        out.verbose = one(['verbose', 'compact']) === 'verbose';
        break;
      case 'units':
        out.units = one(['imperial', 'metric']) as 'imperial' | 'metric';
        break;
      case 'namespace':
        for (const x of values) {
          if (typeof x !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(x))
            throw invalid(`${p}.value`, 'must be a namespace name (or a list of names with valueList: true)');
          if (!out.namespaces.includes(x)) out.namespaces.push(x);
        }
        break;
      default:
        throw invalid(`${p}.key`, `unknown metadata key '${String(m.key)}' (allowed: outputMode, namespace, units)`);
    }
  });
  return out;
}

/** Top-level fields of a MetricRequest body. */
export const METRIC_REQUEST_FIELDS = [
  'nextCursor',
  'offset',
  'pageSize',
  'dateRanges',
  'geometry',
  'dimensions',
  'metrics',
  'dimensionFilters',
  'metadata',
  'orderBys',
  'noPaging',
] as const;

/** Reads `dimensions`: known names, each once; `ranges` only on customTimeRange. */
function readDimensions(v: unknown): { dimensions: string[]; timeRanges?: TimeRange[] } {
  if (!Array.isArray(v)) throw invalid('dimensions', 'is required: an array of { name, ranges? }');
  let timeRanges: TimeRange[] | undefined;
  const dimensions = v.map((d, i) => {
    const p = `dimensions[${i}]`;
    if (!isObj(d)) throw invalid(p, 'must be { name, ranges? }');
    checkKeys(d, ['name', 'ranges'], p);
    if (typeof d.name !== 'string' || !(DIMENSION_NAMES as readonly string[]).includes(d.name))
      throw invalid(`${p}.name`, `must be one of ${DIMENSION_NAMES.join(', ')}`);
    if (d.name === 'customTimeRange') timeRanges = readTimeRanges(d.ranges, `${p}.ranges`);
    else if (d.ranges !== undefined) throw invalid(`${p}.ranges`, 'ranges are only allowed on customTimeRange');
    return d.name;
  });
  if (new Set(dimensions).size !== dimensions.length) throw invalid('dimensions', 'a dimension is listed twice');
  return { dimensions, timeRanges };
}

/** Reads `metrics`: known names, each once; `ranges` only on LOS; turnPct only with movementId. */
function readMetrics(v: unknown, dimensions: string[]): { metrics: string[]; losBands?: LosBand[] } {
  if (!Array.isArray(v) || v.length === 0)
    throw invalid('metrics', 'is required: a non-empty array of { name, ranges? }');
  let losBands: LosBand[] | undefined;
  const metrics = v.map((m, i) => {
    const p = `metrics[${i}]`;
    if (!isObj(m)) throw invalid(p, 'must be { name, ranges? }');
    checkKeys(m, ['name', 'ranges'], p);
    if (typeof m.name !== 'string') throw invalid(`${p}.name`, 'is required');
    metricDef(m.name, 1, undefined, () => '$0'); // validates the name
    if (m.name === 'LOS' && m.ranges !== undefined) losBands = readLosBands(m.ranges, `${p}.ranges`);
    else if (m.ranges !== undefined) throw invalid(`${p}.ranges`, 'ranges are only allowed on LOS');
    return m.name;
  });
  if (new Set(metrics).size !== metrics.length) throw invalid('metrics', 'a metric is listed twice');
  if (metrics.includes('turnPct') && !dimensions.includes('movementId'))
    throw invalid('metrics', "turnPct needs the movementId dimension (it is a movement's share of its approach)");
  return { metrics, losBands };
}

/** Reads `dimensionFilters`: on dimension names; on customTimeRange only when its ranges were given. */
function readDimensionFilters(v: unknown, timeRanges: TimeRange[] | undefined): Filter[] {
  const filters = readFilters(v, 'dimensionFilters');
  for (const f of filters) {
    if (!(DIMENSION_NAMES as readonly string[]).includes(f.name))
      throw invalid(`${f.param}.name`, `must be a dimension name (${DIMENSION_NAMES.join(', ')})`);
    if (f.name === 'customTimeRange' && !timeRanges)
      throw invalid(
        `${f.param}.name`,
        'filtering on customTimeRange needs the customTimeRange dimension with its ranges',
      );
  }
  return filters;
}

/** Reads `orderBys`: each a requested dimension or metric, ASCENDING (default) or DESCENDING. */
function readOrderBys(v: unknown, dimensions: string[], metrics: string[]): MetricRequest['orderBys'] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid('orderBys', 'must be an array of { name, sortOrder }');
  return v.map((o, i) => {
    const p = `orderBys[${i}]`;
    if (!isObj(o)) throw invalid(p, 'must be { name, sortOrder }');
    checkKeys(o, ['name', 'sortOrder'], p);
    if (typeof o.name !== 'string' || (!dimensions.includes(o.name) && !metrics.includes(o.name)))
      throw invalid(`${p}.name`, 'must be one of the requested dimensions or metrics');
    if (o.sortOrder !== undefined && o.sortOrder !== 'ASCENDING' && o.sortOrder !== 'DESCENDING')
      throw invalid(`${p}.sortOrder`, 'must be ASCENDING or DESCENDING');
    return { name: o.name, descending: o.sortOrder === 'DESCENDING' };
  });
}

/** Validates a MetricRequest body (every field of the contract; unknown fields rejected). */
export function parseMetricRequest(body: unknown): MetricRequest {
  if (!isObj(body)) throw invalid('body', 'a JSON object MetricRequest is required');
  checkKeys(body, METRIC_REQUEST_FIELDS, '');
  const dateRanges = readDateRanges(body.dateRanges, 'dateRanges', true);
  const { dimensions, timeRanges } = readDimensions(body.dimensions);
  const { metrics, losBands } = readMetrics(body.metrics, dimensions);
  const filters = readDimensionFilters(body.dimensionFilters, timeRanges);
  const orderBys = readOrderBys(body.orderBys, dimensions, metrics);
  const metadata = readMetricMetadata(body.metadata);
  const paging = readPaging(body, {
    pageSize: METRIC_PAGE_SIZE_DEFAULT,
    maxPageSize: METRIC_PAGE_SIZE_MAX,
    noPagingMax: METRIC_NO_PAGING_MAX_ROWS,
  });
  return {
    dateRanges,
    dimensions,
    timeRanges,
    metrics,
    losBands,
    filters,
    metadata,
    orderBys,
    geometry: body.geometry ?? undefined,
    paging,
  };
}
