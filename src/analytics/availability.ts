/**
 * GET /v1/metrics/intersections/availability: the discrete windows of consecutive local days that
 * have facts, with the latest map version of each window and, on request, the intersections with
 * data, in the metric-table shape.
 */
import type { Queryable } from '../store/db.js';
import type { IntersectionCatalog } from './catalog/catalog.js';
import { invalid } from './errors.js';
import type { MetricData } from './metrics/metric-query.js';
import { NAMESPACE_NAME_RE, provisionedKeys } from './namespaces/namespaces.js';
import { isObj, readDate } from './request-common.js';

/** Output modes: none = windows only; all = plus intersections merged over namespaces; namespace = one row set per namespace. */
export const AVAILABILITY_OUTPUT_MODES = ['none', 'all', 'namespace'] as const;
/** Travel-time sources: facts come from historical probe trajectories only. */
export const TRAVEL_TIME_TYPES = ['historical'] as const;

/** Validated availability query. */
export interface AvailabilityQuery {
  startDate?: string;
  endDate?: string;
  mode: (typeof AVAILABILITY_OUTPUT_MODES)[number];
  namespaces: string[];
  travelTimeType: (typeof TRAVEL_TIME_TYPES)[number];
}

/** Validates the five query parameters (case-insensitive values). */
export function parseAvailabilityQuery(query: Record<string, string | string[] | undefined>): AvailabilityQuery {
  const q: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) {
    if (!(AVAILABILITY_PARAMS as readonly string[]).includes(k))
      throw invalid(k, `unknown query parameter (allowed: ${AVAILABILITY_PARAMS.join(', ')})`);
    if (typeof v !== 'string') throw invalid(k, 'given more than once');
    q[k] = v;
  }
  const out: AvailabilityQuery = { mode: 'none', namespaces: [], travelTimeType: 'historical' };
  if (q.startDate !== undefined) out.startDate = readDate(q.startDate, 'startDate');
  if (q.endDate !== undefined) out.endDate = readDate(q.endDate, 'endDate');
  if (out.startDate && out.endDate && out.startDate > out.endDate) throw invalid('startDate', 'is after endDate');
  if (q.intersectionOutputMode !== undefined) {
    const m = q.intersectionOutputMode.toLowerCase();
    if (!(AVAILABILITY_OUTPUT_MODES as readonly string[]).includes(m))
      throw invalid('intersectionOutputMode', `must be one of ${AVAILABILITY_OUTPUT_MODES.join(', ')}`);
    out.mode = m as AvailabilityQuery['mode'];
  }
  if (q.namespaces !== undefined) {
    out.namespaces = q.namespaces
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const n of out.namespaces)
      if (!NAMESPACE_NAME_RE.test(n)) throw invalid('namespaces', `'${n}' is not a valid namespace name`);
  }
  if (out.mode === 'namespace' && out.namespaces.length === 0)
    throw invalid('namespaces', 'intersectionOutputMode=namespace needs at least one namespace');
  if (q.travelTimeType !== undefined) {
    const t = q.travelTimeType.toLowerCase();
    if (!(TRAVEL_TIME_TYPES as readonly string[]).includes(t))
      throw invalid(
        'travelTimeType',
        `must be one of ${TRAVEL_TIME_TYPES.join(', ')} (only historical probe data is served)`,
      );
  }
  return out;
}

/** Query parameters of the availability request. */
export const AVAILABILITY_PARAMS = [
  'startDate',
  'endDate',
  'intersectionOutputMode',
  'namespaces',
  'travelTimeType',
] as const;
/** Fields of the principal object of the availability request's body. */
export const PRINCIPAL_FIELDS = ['accessToken', 'userId', 'appId', 'name', 'anonymous'] as const;

/** Validates the principal object of the body (all fields optional; types per contract). */
export function checkPrincipal(body: unknown, bearer: string): void {
  if (body === undefined || body === null || body === '') return;
  if (!isObj(body))
    throw invalid('body', 'the principal must be a JSON object { accessToken, userId, appId, name, anonymous }');
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  for (const k of Object.keys(body)) {
    const v = body[k];
    switch (k) {
      case 'accessToken':
        if (typeof v !== 'string') throw invalid('principal.accessToken', 'must be a string');
        if (v !== bearer) throw invalid('principal.accessToken', 'does not match the bearer token');
        break;
      case 'userId':
      case 'appId':
        if (typeof v !== 'string' || !uuid.test(v)) throw invalid(`principal.${k}`, 'must be a UUID');
        break;
      case 'name':
        if (typeof v !== 'string') throw invalid('principal.name', 'must be a string');
        break;
      case 'anonymous':
        if (typeof v !== 'boolean') throw invalid('principal.anonymous', 'must be a boolean');
        break;
      default:
        throw invalid(`principal.${k}`, 'unknown field (allowed: accessToken, userId, appId, name, anonymous)');
    }
  }
}

interface WindowRow {
  start_day: string;
  end_day: string;
  map_version: string;
  keys: string | null;
}

async function windows(db: Queryable, q: AvailabilityQuery, keys: string[], withKeys: boolean): Promise<WindowRow[]> {
  const params: unknown[] = [];
  const where: string[] = [];
  if (q.startDate) {
    params.push(q.startDate);
    where.push(`local_day >= $${params.length}::date`);
  }
  if (q.endDate) {
    params.push(q.endDate);
    where.push(`local_day <= $${params.length}::date`);
  }
  if (keys) {
    params.push(keys);
    where.push(`intersection_key = ANY($${params.length}::text[])`);
  }
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const sql = `
    WITH d AS (SELECT local_day, max(map_version) AS mv FROM analytics_fact ${w} GROUP BY local_day),
    i AS (SELECT local_day, mv, local_day - (row_number() OVER (ORDER BY local_day))::int AS grp FROM d),
    win AS (SELECT min(local_day) AS s, max(local_day) AS e, max(mv) AS mv FROM i GROUP BY grp)
    SELECT to_char(win.s, 'YYYY-MM-DD') AS start_day, to_char(win.e, 'YYYY-MM-DD') AS end_day, win.mv AS map_version,
      ${
        withKeys
          ? `(SELECT string_agg(k, ',' ORDER BY k COLLATE "C") FROM (SELECT DISTINCT intersection_key AS k FROM analytics_fact f
         WHERE f.local_day BETWEEN win.s AND win.e${keys ? ` AND f.intersection_key = ANY($${params.length}::text[])` : ''}) x)`
          : 'NULL'
      } AS keys
    FROM win ORDER BY win.s`;
  return (await db.query<WindowRow>(sql, params)).rows;
}

/** The served region's keys among `keys` (all of its keys when undefined): other regions' facts stay out. */
function ofRegion(catalog: IntersectionCatalog, keys: string[] | undefined): string[] {
  return keys ? keys.filter((k) => catalog.byKey.has(k)) : catalog.list.map((c) => c.key);
}

/** Answers an availability query. */
export async function queryAvailability(
  db: Queryable,
  catalog: IntersectionCatalog,
  q: AvailabilityQuery,
): Promise<MetricData> {
  const dims = [
    { name: 'startDate', type: 'DATE' },
    { name: 'endDate', type: 'DATE' },
    { name: 'mapVersion', type: 'STRING' },
  ];
  const metrics = q.mode === 'none' ? [] : [{ name: 'intersectionIds', type: 'STRING' }];
  const rows: Array<Array<string | null>> = [];
  const mv = (r: WindowRow): string => r.map_version || catalog.mapVersion;
  if (q.mode === 'namespace') {
    dims.push({ name: 'namespace', type: 'STRING' });
    for (const ns of q.namespaces) {
      const keys = ofRegion(catalog, await provisionedKeys(db, [ns], 'namespaces'));
      for (const r of await windows(db, q, keys, true)) rows.push([r.start_day, r.end_day, mv(r), ns, r.keys ?? '']);
    }
  } else {
    const keys = ofRegion(
      catalog,
      q.namespaces.length > 0 ? await provisionedKeys(db, q.namespaces, 'namespaces') : undefined,
    );
    for (const r of await windows(db, q, keys, q.mode === 'all')) {
      rows.push(q.mode === 'all' ? [r.start_day, r.end_day, mv(r), r.keys ?? ''] : [r.start_day, r.end_day, mv(r)]);
    }
  }
  return { columnHeader: { dimensionHeaderEntries: dims, metricHeaderEntries: metrics }, rows, nextCursor: {} };
}
