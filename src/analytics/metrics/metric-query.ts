/**
 * POST /v1/metrics/intersections: answers a validated MetricRequest (`metric-request.ts`) with one
 * GROUP BY in the database (never loading facts into memory) over the coarsest exact source
 * (`metric-source.ts`), then renders rows of strings.
 */
import type { Queryable } from '../../store/db.js';
import type { IntersectionCatalog } from '../catalog/catalog.js';
import { invalid } from '../errors.js';
import { parseArea } from '../geojson.js';
import { cursorAfter, OPERATOR_SQL, type Filter } from '../request-common.js';
import { resolveScope } from '../scope.js';
import {
  KPH_TO_MPH,
  metricDef,
  vehicleCountSql,
  type AddParam,
  type ColumnType,
  type MetricDef,
  type MetricSource,
} from './definitions.js';
import { dimensionDefs, type DimensionDef } from './dimensions.js';
import type { MetricRequest } from './metric-request.js';
import { metricSourceFor, sourceAnswers, sourceFrom } from './metric-source.js';

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

/** A filter as a SQL condition on `expr`, its values parsed by the dimension. */
function filterSql(f: Filter, def: DimensionDef, expr: string, addParam: AddParam): string {
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

/** Options of `queryMetrics`. */
export interface QueryMetricsOptions {
  /** aggregate this source instead of the one `metricSourceFor` picks (the facts, for checks) */
  source?: MetricSource;
}

/** What the SQL of a request is built from. */
interface QueryParts {
  req: MetricRequest;
  source: MetricSource;
  defs: Map<string, DimensionDef>;
  mdefs: MetricDef[];
  addParam: AddParam;
}

/**
 * The WHERE conditions over the source: days, scope, filters; movement filters wait for turnPct's
 * window when it is asked for (`deferred`). Also the FROM clause, whose parameters follow the days'.
 */
function whereOf(
  { req, source, defs, addParam }: QueryParts,
  scopeKeys: string[] | undefined,
): { from: string; where: string[]; deferred: Filter[] } {
  const wantsTurnPct = req.metrics.includes('turnPct');
  const where = [
    `(${req.dateRanges.map((r) => `local_day BETWEEN ${addParam(r.startDate)}::date AND ${addParam(r.endDate)}::date`).join(' OR ')})`,
  ];
  const from = sourceFrom(req, source, addParam);
  if (scopeKeys) where.push(`intersection_key = ANY(${addParam(scopeKeys)}::text[])`);
  const deferred: Filter[] = [];
  for (const f of req.filters) {
    if (wantsTurnPct && f.name === 'movementId') deferred.push(f);
    else where.push(filterSql(f, defs.get(f.name)!, defs.get(f.name)!.filterExpr, addParam));
  }
  return { from, where, deferred };
}

/**
 * The grouped SELECT: dimensions as `d<i>` (with `s<i>` when they sort on another expression),
 * the approach for turnPct, the vehicle count `n` and the metrics `m<j>`. `sortRef[i]` is the
 * column that orders dimension i (its own output column when sortExpr = expr).
 */
function groupedSql(parts: QueryParts, from: string, where: string[]): { sql: string; sortRef: string[] } {
  const { req, source, defs, mdefs } = parts;
  const select: string[] = [];
  const sortRef: string[] = [];
  req.dimensions.forEach((d, i) => {
    const def = defs.get(d)!;
    select.push(`${def.expr} AS d${i}`);
    if (def.sortExpr !== def.expr) select.push(`${def.sortExpr} AS s${i}`);
    sortRef.push(def.sortExpr !== def.expr ? `s${i}` : `d${i}${def.collateC ? ' COLLATE "C"' : ''}`);
  });
  if (req.metrics.includes('turnPct')) select.push('in_edge AS approach');
  const groupCount = select.length;
  select.push(`${vehicleCountSql(source)} AS n`);
  mdefs.forEach((m, j) => {
    if (m.sql) select.push(`${m.sql} AS m${j}`);
  });
  const groupBy = groupCount > 0 ? `GROUP BY ${Array.from({ length: groupCount }, (_, i) => i + 1).join(', ')}` : '';
  let sql = `SELECT ${select.join(', ')} FROM ${from} WHERE ${where.join(' AND ')} ${groupBy}`;
  if (groupCount === 0) sql += ' HAVING count(*) > 0';
  return { sql, sortRef };
}

/**
 * Around the grouped rows: turnPct as a window (a movement's share of the vehicles of its
 * approach in the same other dimensions), then the deferred movement filters.
 */
function withTurnPct(parts: QueryParts, grouped: string, sortRef: string[], deferred: Filter[]): string {
  const { req, defs, addParam } = parts;
  const movIdx = req.dimensions.indexOf('movementId');
  const outerCols = ['g.*'];
  if (req.metrics.includes('turnPct')) {
    const partition = [
      ...req.dimensions
        .map((_, i) => i)
        .filter((i) => i !== movIdx)
        .map((i) => `g.${sortRef[i].split(' ')[0]}`),
      'g.approach',
    ];
    outerCols.push(`100.0::float8 * g.n / sum(g.n) OVER (PARTITION BY ${partition.join(', ')}) AS turn_pct`);
  }
  const outer = `SELECT ${outerCols.join(', ')} FROM (${grouped}) g`;
  if (deferred.length === 0) return outer;
  const conds = deferred.map((f) => filterSql(f, defs.get('movementId')!, `w.s${movIdx}`, addParam));
  return `SELECT * FROM (${outer}) w WHERE ${conds.join(' AND ')}`;
}

/** The page of rows in order: the orderBys, then every dimension ascending (and the approach). */
function pagedSql({ req, addParam }: QueryParts, outer: string, sortRef: string[]): string {
  const colOf = (name: string): string => {
    const di = req.dimensions.indexOf(name);
    if (di >= 0) return sortRef[di];
    return name === 'turnPct' ? 'turn_pct' : `m${req.metrics.indexOf(name)}`;
  };
  const order = [
    ...req.orderBys.map((o) => `${colOf(o.name)} ${o.descending ? 'DESC NULLS LAST' : 'ASC NULLS LAST'}`),
    ...req.dimensions.map((_, i) => `${sortRef[i]} ASC`),
  ];
  if (req.metrics.includes('turnPct')) order.push('approach ASC');
  const p = req.paging;
  return `SELECT * FROM (${outer}) r ${order.length ? `ORDER BY ${order.join(', ')}` : ''} LIMIT ${addParam(p.limit + 1)} OFFSET ${addParam(p.position)}`;
}

type Row = Record<string, unknown>;

/** The names verbose output adds after the dimensions: the intersection's and the movement's. */
function verboseColumns(
  req: MetricRequest,
  catalog: IntersectionCatalog,
): Array<{ name: string; value: (r: Row) => string | null }> {
  if (!req.metadata.verbose) return [];
  const cols: Array<{ name: string; value: (r: Row) => string | null }> = [];
  const ii = req.dimensions.indexOf('intersectionId');
  const mi = req.dimensions.indexOf('movementId');
  if (ii >= 0)
    cols.push({
      name: 'intersectionName',
      value: (r) => catalog.byKey.get(String(r[`d${ii}`]))?.name ?? null,
    });
  if (mi >= 0) {
    const mv = (r: Row) => catalog.movementById.get(Number(r[`s${mi}`]));
    cols.push(
      { name: 'movementName', value: (r) => mv(r)?.name ?? null },
      { name: 'inboundDirection', value: (r) => mv(r)?.inbound.direction ?? null },
      { name: 'outboundDirection', value: (r) => mv(r)?.outbound.direction ?? null },
      { name: 'turnManeuver', value: (r) => mv(r)?.turnManeuvers ?? null },
    );
  }
  return cols;
}

/** The response of a page of `rows` (one more than the page when there is a next page). */
function metricData(parts: QueryParts, catalog: IntersectionCatalog, fetched: Row[]): MetricData {
  const { req, defs, mdefs } = parts;
  const p = req.paging;
  const more = fetched.length > p.limit;
  const rows = fetched.slice(0, p.limit);
  const dimensionHeaderEntries: ColumnHeaderEntry[] = req.dimensions.map((d) => ({ name: d, type: defs.get(d)!.type }));
  const verboseCols = verboseColumns(req, catalog);
  for (const c of verboseCols) dimensionHeaderEntries.push({ name: c.name, type: 'STRING' });
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
  const mdefs = req.metrics.map((m) =>
    metricDef(m, speedFactor, m === 'LOS' ? req.losBands : undefined, addParam, source),
  );
  const parts: QueryParts = { req, source, defs, mdefs, addParam };
  const { from, where, deferred } = whereOf(parts, scope.keys);
  const { sql, sortRef } = groupedSql(parts, from, where);
  const final = pagedSql(parts, withTurnPct(parts, sql, sortRef, deferred), sortRef);
  const res = await db.query<Row>(final, params);
  return metricData(parts, catalog, res.rows);
}
