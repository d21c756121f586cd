/**
 * POST /v1/metrics/intersections: validates a MetricRequest and answers it with one GROUP BY in
 * the database (never loading facts into memory) over the coarsest exact source — the month,
 * hour or 15-minute rollup (`facts/rollup.ts`), or the facts when asked — then renders rows of strings.
 */
import type { Queryable } from '../../store/db.js';
import type { IntersectionCatalog } from '../catalog/catalog.js';
import { invalid } from '../errors.js';
import { parseArea } from '../geojson.js';
import {
  checkKeys,
  cursorAfter,
  isObj,
  OPERATOR_SQL,
  readDateRanges,
  readFilters,
  readPaging,
  type DayRange,
  type Filter,
  type Paging,
} from '../request-common.js';
import { ROLLUP_MEASURES } from '../facts/rollup.js';
import { resolveScope } from '../scope.js';
import {
  DIMENSION_NAMES,
  dimensionDefs,
  KPH_TO_MPH,
  metricDef,
  readLosBands,
  readTimeRanges,
  vehicleCountSql,
  type ColumnType,
  type DimensionDef,
  type LosBand,
  type MetricDef,
  type MetricSource,
  type TimeRange,
} from './definitions.js';

/** Default rows per page. */
export const METRIC_PAGE_SIZE_DEFAULT = 1000;
/** Largest accepted pageSize. */
export const METRIC_PAGE_SIZE_MAX = 10_000;
/** Rows returned at most with `noPaging: true`. */
export const METRIC_NO_PAGING_MAX_ROWS = 100_000;

/** One column of the response header. */
export interface ColumnHeaderEntry {
  name: string;
  type: ColumnType | string;
}

/** `data` of a PostMetricResponse. */
export interface MetricData {
  columnHeader: { dimensionHeaderEntries: ColumnHeaderEntry[]; metricHeaderEntries: ColumnHeaderEntry[] };
  rows: Array<Array<string | null>>;
  nextCursor: Record<string, string>;
}

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

/** Validates a MetricRequest body (every field of the contract; unknown fields rejected). */
export function parseMetricRequest(body: unknown): MetricRequest {
  if (!isObj(body)) throw invalid('body', 'a JSON object MetricRequest is required');
  checkKeys(body, METRIC_REQUEST_FIELDS, '');
  const dateRanges = readDateRanges(body.dateRanges, 'dateRanges', true);
  if (!Array.isArray(body.dimensions)) throw invalid('dimensions', 'is required: an array of { name, ranges? }');
  let timeRanges: TimeRange[] | undefined;
  const dimensions = body.dimensions.map((d, i) => {
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
  if (!Array.isArray(body.metrics) || body.metrics.length === 0)
    throw invalid('metrics', 'is required: a non-empty array of { name, ranges? }');
  let losBands: LosBand[] | undefined;
  const metrics = body.metrics.map((m, i) => {
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
  const filters = readFilters(body.dimensionFilters, 'dimensionFilters');
  for (const f of filters) {
    if (!(DIMENSION_NAMES as readonly string[]).includes(f.name))
      throw invalid(`${f.param}.name`, `must be a dimension name (${DIMENSION_NAMES.join(', ')})`);
    if (f.name === 'customTimeRange' && !timeRanges)
      throw invalid(
        `${f.param}.name`,
        'filtering on customTimeRange needs the customTimeRange dimension with its ranges',
      );
  }
  const orderBys =
    body.orderBys === undefined || body.orderBys === null
      ? []
      : (() => {
          if (!Array.isArray(body.orderBys)) throw invalid('orderBys', 'must be an array of { name, sortOrder }');
          return body.orderBys.map((o, i) => {
            const p = `orderBys[${i}]`;
            if (!isObj(o)) throw invalid(p, 'must be { name, sortOrder }');
            checkKeys(o, ['name', 'sortOrder'], p);
            if (typeof o.name !== 'string' || (!dimensions.includes(o.name) && !metrics.includes(o.name)))
              throw invalid(`${p}.name`, 'must be one of the requested dimensions or metrics');
            if (o.sortOrder !== undefined && o.sortOrder !== 'ASCENDING' && o.sortOrder !== 'DESCENDING')
              throw invalid(`${p}.sortOrder`, 'must be ASCENDING or DESCENDING');
            return { name: o.name, descending: o.sortOrder === 'DESCENDING' };
          });
        })();
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

function filterSql(f: Filter, def: DimensionDef, expr: string, addParam: (v: unknown) => string): string {
  if (!def.operators.includes(f.operator))
    throw invalid(
      `${f.param}.operator`,
      `${f.operator} is not allowed on ${f.name} (allowed: ${def.operators.join(', ')})`,
    );
  const values = f.expressions.map((e, i) => def.parse(e, `${f.param}.expressions[${i}]`, f.operator));
  const sql =
    f.operator === 'IN_LIST'
      ? `${expr} = ANY(${addParam(values)}::${def.cast}[])`
      : `${expr} ${OPERATOR_SQL[f.operator]} ${addParam(values[0])}::${def.cast}`;
  return f.not ? `NOT (${sql})` : sql;
}

function render(v: unknown, type: ColumnType): string | null {
  if (v === null || v === undefined) return null;
  if (type === 'DOUBLE') {
    const n = Number(v);
    return Number.isFinite(n) ? String(Math.round(n * 100) / 100) : null;
  }
  if (type === 'BOOLEAN') return v === true || v === 't' || v === 'true' ? 'true' : 'false';
  return String(v);
}

/** Table aggregated for each source. */
const SOURCE_TABLE: Record<MetricSource, string> = {
  facts: 'analytics_fact',
  rollup15m: 'analytics_rollup_15m',
  rollupHour: 'analytics_rollup_hour',
  rollupMonth: 'analytics_rollup_month',
};

const DAY_MS = 86_400_000;
const dayMs = (d: string): number => Date.parse(`${d}T00:00:00Z`);
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Splits date ranges into the calendar months every day of which they cover (first days,
 * `YYYY-MM-01`) and the remaining days as disjoint ranges (ranges are merged first).
 */
export function splitByMonths(ranges: readonly DayRange[]): { months: string[]; rest: DayRange[] } {
  const merged: Array<[number, number]> = [];
  for (const [a, b] of ranges
    .map((r) => [dayMs(r.startDate), dayMs(r.endDate)] as [number, number])
    .sort((x, y) => x[0] - y[0])) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1] + DAY_MS) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  const months: string[] = [];
  const rest: DayRange[] = [];
  const addRest = (from: number, to: number): void => {
    if (from <= to) rest.push({ startDate: isoDay(from), endDate: isoDay(to) });
  };
  for (const [a, b] of merged) {
    const start = new Date(a);
    let m = start.getUTCMonth() + (start.getUTCDate() === 1 ? 0 : 1); // first month starting on or after a
    const y = start.getUTCFullYear();
    let cursor = a;
    while (Date.UTC(y, m + 1, 1) - DAY_MS <= b) {
      const first = Date.UTC(y, m, 1);
      addRest(cursor, first - DAY_MS);
      months.push(isoDay(first));
      cursor = Date.UTC(y, m + 1, 1);
      m += 1;
    }
    addRest(cursor, b);
  }
  return { months, rest };
}

/** First days (`YYYY-MM-01`) of the calendar months every day of which lies in the date ranges. */
export function wholeMonths(ranges: readonly DayRange[]): string[] {
  return splitByMonths(ranges).months;
}

/**
 * The coarsest source that answers a request exactly: the month rollup (with the hour rollup for
 * days outside whole months) when the request needs neither movements (dimension, filter,
 * turnPct), sub-hour time (15MinBin, 30MinBin, customTimeRange ranges off the hour), `day` nor
 * `week`, and its date ranges hold at least one whole month; else the hour rollup when it needs
 * neither movements nor sub-hour time; else the 15-minute rollup. Every metric is exact on every
 * source, so the facts table is only read when asked for explicitly.
 */
export function metricSourceFor(req: MetricRequest): MetricSource {
  const names = new Set([...req.dimensions, ...req.filters.map((f) => f.name)]);
  const subHour =
    names.has('15MinBin') ||
    names.has('30MinBin') ||
    (names.has('customTimeRange') && (req.timeRanges ?? []).some((r) => r.startMin % 60 !== 0 || r.endMin % 60 !== 0));
  if (names.has('movementId') || req.metrics.includes('turnPct') || subHour) return 'rollup15m';
  if (names.has('day') || names.has('week') || wholeMonths(req.dateRanges).length === 0) return 'rollupHour';
  return 'rollupMonth';
}

/** Whether `source` can answer `req` exactly (the facts and the 15-minute rollup always can). */
function sourceAnswers(req: MetricRequest, source: MetricSource): boolean {
  const best = metricSourceFor(req);
  if (source === 'facts' || source === 'rollup15m') return true;
  if (best === 'rollup15m') return false;
  if (source === 'rollupHour') return true;
  return (
    !req.dimensions.some((n) => n === 'day' || n === 'week') &&
    !req.filters.some((f) => f.name === 'day' || f.name === 'week')
  );
}

/** Options of `queryMetrics`. */
export interface QueryMetricsOptions {
  /** aggregate this source instead of the one `metricSourceFor` picks (the facts, for checks) */
  source?: MetricSource;
}

/**
 * Runs a validated metric request. Visible intersections: the region's, narrowed by the
 * namespaces' provisioned lists and by `geometry`.
 *
 * @example
 * const data = await queryMetrics(db, catalogOf(region), parseMetricRequest(body));
 */
export async function queryMetrics(
  db: Queryable,
  catalog: IntersectionCatalog,
  req: MetricRequest,
  opts: QueryMetricsOptions = {},
): Promise<MetricData> {
  const source = opts.source ?? metricSourceFor(req);
  if (!sourceAnswers(req, source))
    throw new Error(`queryMetrics: the ${source} source cannot answer this request exactly`);
  const params: unknown[] = [];
  const addParam = (v: unknown): string => {
    params.push(v);
    return `$${params.length}`;
  };
  const area = req.geometry !== undefined ? parseArea(req.geometry, 'geometry') : undefined;
  const scope = await resolveScope(db, catalog, {
    namespaces: req.metadata.namespaces,
    area,
    namespaceParam: 'metadata.namespace',
  });
  const defs = dimensionDefs(req.timeRanges, addParam);
  const speedFactor = req.metadata.units === 'imperial' ? KPH_TO_MPH : 1;
  const mdefs: MetricDef[] = req.metrics.map((m) =>
    metricDef(m, speedFactor, m === 'LOS' ? req.losBands : undefined, addParam, source),
  );
  const wantsTurnPct = req.metrics.includes('turnPct');

  // WHERE over facts: days, scope, filters (movement filters wait for turnPct's window when needed).
  const where: string[] = [];
  const days = `(${req.dateRanges.map((r) => `local_day BETWEEN ${addParam(r.startDate)}::date AND ${addParam(r.endDate)}::date`).join(' OR ')})`;
  where.push(days);
  let from = SOURCE_TABLE[source];
  if (source === 'rollupMonth') {
    // whole months from the month rollup (local_day = the month's first day, inside the ranges),
    // the other days of the ranges from the hour rollup
    const { months, rest } = splitByMonths(req.dateRanges);
    const cols = `intersection_key, local_day, local_dow, local_minute, ${ROLLUP_MEASURES}`;
    const parts: string[] = [];
    if (rest.length > 0) {
      // (every day of the ranges lies in a whole month otherwise: the month rollup is read alone)
      if (months.length > 0)
        parts.push(`SELECT ${cols} FROM analytics_rollup_month WHERE local_day = ANY(${addParam(months)}::date[])`);
      const restDays = rest
        .map((r) => `local_day BETWEEN ${addParam(r.startDate)}::date AND ${addParam(r.endDate)}::date`)
        .join(' OR ');
      parts.push(`SELECT ${cols} FROM analytics_rollup_hour WHERE ${restDays}`);
    }
    from = parts.length === 0 ? 'analytics_rollup_month' : `(${parts.join(' UNION ALL ')}) src`;
  }
  if (scope.keys) where.push(`intersection_key = ANY(${addParam(scope.keys)}::text[])`);
  const deferred: Filter[] = [];
  for (const f of req.filters) {
    if (wantsTurnPct && f.name === 'movementId') {
      deferred.push(f);
      continue;
    }
    where.push(filterSql(f, defs.get(f.name)!, defs.get(f.name)!.filterExpr, addParam));
  }

  const select: string[] = [];
  // sortRef[i]: the column that orders dimension i (its own output column when sortExpr = expr)
  const sortRef: string[] = [];
  req.dimensions.forEach((d, i) => {
    const def = defs.get(d)!;
    select.push(`${def.expr} AS d${i}`);
    if (def.sortExpr !== def.expr) select.push(`${def.sortExpr} AS s${i}`);
    sortRef.push(def.sortExpr !== def.expr ? `s${i}` : `d${i}${def.collateC ? ' COLLATE "C"' : ''}`);
  });
  if (wantsTurnPct) select.push('in_edge AS approach');
  const groupCount = select.length;
  select.push(`${vehicleCountSql(source)} AS n`);
  mdefs.forEach((m, j) => {
    if (m.sql) select.push(`${m.sql} AS m${j}`);
  });
  const groupBy = groupCount > 0 ? `GROUP BY ${Array.from({ length: groupCount }, (_, i) => i + 1).join(', ')}` : '';
  let sql = `SELECT ${select.join(', ')} FROM ${from} WHERE ${where.join(' AND ')} ${groupBy}`;
  if (groupCount === 0) sql += ' HAVING count(*) > 0';

  const outerCols = ['g.*'];
  if (wantsTurnPct) {
    const movIdx = req.dimensions.indexOf('movementId');
    const partition = [
      ...req.dimensions
        .map((_, i) => i)
        .filter((i) => i !== movIdx)
        .map((i) => `g.${sortRef[i].split(' ')[0]}`),
      'g.approach',
    ];
    outerCols.push(`100.0::float8 * g.n / sum(g.n) OVER (PARTITION BY ${partition.join(', ')}) AS turn_pct`);
  }
  let outer = `SELECT ${outerCols.join(', ')} FROM (${sql}) g`;
  if (deferred.length > 0) {
    const movIdx = req.dimensions.indexOf('movementId');
    const conds = deferred.map((f) => filterSql(f, defs.get('movementId')!, `w.s${movIdx}`, addParam));
    outer = `SELECT * FROM (${outer}) w WHERE ${conds.join(' AND ')}`;
  }
  const colOf = (name: string): string => {
    const di = req.dimensions.indexOf(name);
    if (di >= 0) return sortRef[di];
    return name === 'turnPct' ? 'turn_pct' : `m${req.metrics.indexOf(name)}`;
  };
  const order = [
    ...req.orderBys.map((o) => `${colOf(o.name)} ${o.descending ? 'DESC NULLS LAST' : 'ASC NULLS LAST'}`),
    ...req.dimensions.map((_, i) => `${sortRef[i]} ASC`),
  ];
  if (wantsTurnPct) order.push('approach ASC');
  const p = req.paging;
  const final = `SELECT * FROM (${outer}) r ${order.length ? `ORDER BY ${order.join(', ')}` : ''} LIMIT ${addParam(p.limit + 1)} OFFSET ${addParam(p.position)}`;
  const res = await db.query<Record<string, unknown>>(final, params);

  const more = res.rows.length > p.limit;
  const rows = res.rows.slice(0, p.limit);
  const dimensionHeaderEntries: ColumnHeaderEntry[] = req.dimensions.map((d) => ({ name: d, type: defs.get(d)!.type }));
  const verboseCols: Array<{ name: string; value: (r: Record<string, unknown>) => string | null }> = [];
  if (req.metadata.verbose) {
    const ii = req.dimensions.indexOf('intersectionId');
    const mi = req.dimensions.indexOf('movementId');
    if (ii >= 0)
      verboseCols.push({
        name: 'intersectionName',
        value: (r) => catalog.byKey.get(String(r[`d${ii}`]))?.name ?? null,
      });
    if (mi >= 0) {
      const mv = (r: Record<string, unknown>) => catalog.movementById.get(Number(r[`s${mi}`]));
      verboseCols.push(
        { name: 'movementName', value: (r) => mv(r)?.name ?? null },
        { name: 'inboundDirection', value: (r) => mv(r)?.inbound.direction ?? null },
        { name: 'outboundDirection', value: (r) => mv(r)?.outbound.direction ?? null },
        { name: 'turnManeuver', value: (r) => mv(r)?.turnManeuvers ?? null },
      );
    }
    for (const c of verboseCols) dimensionHeaderEntries.push({ name: c.name, type: 'STRING' });
  }
  return {
    columnHeader: {
      dimensionHeaderEntries,
      metricHeaderEntries: mdefs.map((m) => ({ name: m.name, type: m.type })),
    },
    rows: rows.map((r) => [
      ...req.dimensions.map((_d, i) => render(r[`d${i}`], 'STRING')),
      ...verboseCols.map((c) => c.value(r)),
      ...mdefs.map((m, j) => render(m.name === 'turnPct' ? r.turn_pct : r[`m${j}`], m.type)),
    ]),
    nextCursor: more && p.paged ? cursorAfter(p, rows.length) : {},
  };
}
