/**
 * The dimensions and metrics of POST /v1/metrics/intersections as SQL over `analytics_fact` or its
 * rollups (same column names for keys and local time; `local_minute` of a rollup row is its bin
 * start): each dimension is an output expression, a sort expression and a filter expression; each
 * metric is an aggregate. Local time comes from the columns computed at insert (region time zone).
 */
import { AnalyticsError, invalid } from '../errors.js';
import { COMPARISON_OPERATORS, type FilterOperator } from '../request-common.js';

/** Vehicles delayed at least this long count in `3MDCount`, seconds. */
export const THREE_MINUTE_DELAY_S = 180;
/** Rows built from fewer vehicles than this are flagged `anonymized`. */
export const ANONYMIZE_MIN_VEHICLES = 5;
/** km/h → mph. */
export const KPH_TO_MPH = 0.621371192237334;

/** Column types of the response header. */
export type ColumnType = 'STRING' | 'INTEGER' | 'DOUBLE' | 'DATE' | 'BOOLEAN';

/** Adds a parameter to a statement and returns its placeholder. */
export type AddParam = (value: unknown) => string;

/** A dimension as SQL. */
export interface DimensionDef {
  name: string;
  type: ColumnType;
  /** output value */
  expr: string;
  /** ordering expression (when equal to `expr`, the output column itself is sorted) */
  sortExpr: string;
  /** sort with the "C" collation (byte order, the same on every server) */
  collateC?: boolean;
  /** what filters compare against */
  filterExpr: string;
  /** SQL type of filter parameters */
  cast: string;
  operators: readonly FilterOperator[];
  /** parses one filter expression into a parameter value; throws naming `param` */
  parse: (value: string, param: string, operator: FilterOperator) => unknown;
}

/** A user range of customTimeRange: minutes of the local day [startMin, endMin) (wrapping when end ≤ start). */
export interface TimeRange {
  name: string;
  startMin: number;
  endMin: number;
}

const EQ: readonly FilterOperator[] = ['EQUALS', 'IN_LIST'];
const ALL: readonly FilterOperator[] = ['EQUALS', 'IN_LIST', ...COMPARISON_OPERATORS];

function intIn(min: number, max: number) {
  return (v: string, p: string): number => {
    if (!/^-?\d+$/.test(v.trim()) || Number(v) < min || Number(v) > max)
      throw invalid(p, `'${v}' must be an integer ${min}–${max}`);
    return Number(v);
  };
}

function matching(re: RegExp, what: string) {
  return (v: string, p: string): string => {
    if (!re.test(v)) throw invalid(p, `'${v}' must be ${what}`);
    return v;
  };
}

function dateValue(v: string, p: string): string {
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(v) ||
    Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ||
    new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v
  ) {
    throw invalid(p, `'${v}' must be a date YYYY-MM-DD`);
  }
  return v;
}

/** Parses `HH:mm` (00:00 … 24:00) to minutes of the day. */
export function parseHhMm(v: unknown, p: string, allow24 = false): number {
  if (typeof v !== 'string') throw invalid(p, 'must be a time HH:mm');
  const m = /^(\d{2}):(\d{2})$/.exec(v);
  if (!m || Number(m[2]) > 59) throw invalid(p, `'${v}' must be a time HH:mm`);
  const min = Number(m[1]) * 60 + Number(m[2]);
  if (min > 1440 || (min === 1440 && !allow24) || (Number(m[1]) > 23 && min !== 1440))
    throw invalid(p, `'${v}' is out of range`);
  return min;
}

function binDim(name: string, sizeMin: number): DimensionDef {
  const start = `(local_minute / ${sizeMin} * ${sizeMin})`;
  return {
    name,
    type: 'STRING',
    expr: `lpad((${start} / 60)::text, 2, '0') || ':' || lpad((${start} % 60)::text, 2, '0')`,
    sortExpr: start,
    filterExpr: start,
    cast: 'int',
    operators: ALL,
    parse: (v, p, op) => {
      const min = parseHhMm(v, p);
      if ((op === 'EQUALS' || op === 'IN_LIST') && min % sizeMin !== 0)
        throw invalid(p, `'${v}' is not the start of a ${sizeMin}-minute bin`);
      return min;
    },
  };
}

/** The dimension catalog; customTimeRange only when ranges were given. */
export function dimensionDefs(ranges: TimeRange[] | undefined, addParam: AddParam): Map<string, DimensionDef> {
  const defs: DimensionDef[] = [
    {
      name: 'intersectionId',
      type: 'STRING',
      expr: 'intersection_key',
      sortExpr: 'intersection_key',
      collateC: true,
      filterExpr: 'intersection_key',
      cast: 'text',
      operators: EQ,
      parse: (v) => v,
    },
    {
      name: 'movementId',
      type: 'STRING',
      expr: 'movement_id::text',
      sortExpr: 'movement_id',
      filterExpr: 'movement_id',
      cast: 'int',
      operators: EQ,
      parse: intIn(0, 2_147_483_647),
    },
    {
      name: 'quarter',
      type: 'STRING',
      expr: `to_char(local_day, 'YYYY-"Q"Q')`,
      sortExpr: `to_char(local_day, 'YYYY-"Q"Q')`,
      filterExpr: `to_char(local_day, 'YYYY-"Q"Q')`,
      cast: 'text',
      operators: EQ,
      parse: matching(/^\d{4}-Q[1-4]$/, 'a quarter YYYY-Qn'),
    },
    {
      name: 'month',
      type: 'STRING',
      expr: `to_char(local_day, 'YYYY-MM')`,
      sortExpr: `to_char(local_day, 'YYYY-MM')`,
      filterExpr: `to_char(local_day, 'YYYY-MM')`,
      cast: 'text',
      operators: ALL,
      parse: matching(/^\d{4}-(0[1-9]|1[0-2])$/, 'a month YYYY-MM'),
    },
    {
      name: 'week',
      type: 'DATE',
      expr: `to_char(local_day - (local_dow - 1), 'YYYY-MM-DD')`,
      sortExpr: '(local_day - (local_dow - 1))',
      filterExpr: '(local_day - (local_dow - 1))',
      cast: 'date',
      operators: ALL,
      parse: (v, p, op) => {
        const d = dateValue(v, p);
        if ((op === 'EQUALS' || op === 'IN_LIST') && new Date(`${d}T00:00:00Z`).getUTCDay() !== 1)
          throw invalid(p, `'${v}' is not a Monday (weeks are named by their ISO start day)`);
        return d;
      },
    },
    {
      name: 'day',
      type: 'DATE',
      expr: `to_char(local_day, 'YYYY-MM-DD')`,
      sortExpr: 'local_day',
      filterExpr: 'local_day',
      cast: 'date',
      operators: ALL,
      parse: dateValue,
    },
    {
      name: 'dayOfWeek',
      type: 'INTEGER',
      expr: 'local_dow',
      sortExpr: 'local_dow',
      filterExpr: 'local_dow',
      cast: 'int',
      operators: ALL,
      parse: intIn(1, 7),
    },
    {
      name: 'hourOfDay',
      type: 'INTEGER',
      expr: '(local_minute / 60)',
      sortExpr: '(local_minute / 60)',
      filterExpr: '(local_minute / 60)',
      cast: 'int',
      operators: ALL,
      parse: intIn(0, 23),
    },
    {
      name: 'wkPart',
      type: 'STRING',
      expr: `CASE WHEN local_dow >= 6 THEN 'weekend' ELSE 'weekday' END`,
      sortExpr: `CASE WHEN local_dow >= 6 THEN 'weekend' ELSE 'weekday' END`,
      filterExpr: `CASE WHEN local_dow >= 6 THEN 'weekend' ELSE 'weekday' END`,
      cast: 'text',
      operators: EQ,
      parse: matching(/^(weekday|weekend)$/, 'weekday or weekend'),
    },
    binDim('15MinBin', 15),
    binDim('30MinBin', 30),
  ];
  if (ranges) {
    const cond = (r: TimeRange): string =>
      r.endMin > r.startMin
        ? `local_minute >= ${r.startMin} AND local_minute < ${r.endMin}`
        : `(local_minute >= ${r.startMin} OR local_minute < ${r.endMin})`;
    const expr = `CASE ${ranges.map((r) => `WHEN ${cond(r)} THEN ${addParam(r.name)}::text`).join(' ')} END`;
    const sortExpr = `CASE ${ranges.map((r, i) => `WHEN ${cond(r)} THEN ${i}`).join(' ')} END`;
    const names = new Set(ranges.map((r) => r.name));
    defs.push({
      name: 'customTimeRange',
      type: 'STRING',
      expr,
      sortExpr,
      filterExpr: expr,
      cast: 'text',
      operators: EQ,
      parse: (v, p) => {
        if (!names.has(v))
          throw invalid(p, `'${v}' is not one of the requested customTimeRange names (${[...names].join(', ')})`);
        return v;
      },
    });
  }
  return new Map(defs.map((d) => [d.name, d]));
}

/** Names of every dimension (customTimeRange included). */
export const DIMENSION_NAMES = [
  'intersectionId',
  'movementId',
  'quarter',
  'month',
  'week',
  'day',
  'dayOfWeek',
  'hourOfDay',
  'wkPart',
  '15MinBin',
  '30MinBin',
  'customTimeRange',
] as const;

/** Validates customTimeRange ranges: HH:mm on the 15-minute grid, covering 24 h without gaps or overlaps. */
export function readTimeRanges(v: unknown, p: string): TimeRange[] {
  if (!Array.isArray(v) || v.length === 0)
    throw invalid(p, 'customTimeRange needs ranges [{ name, startTime, endTime }] covering 24 hours');
  const slots = new Array<string | undefined>(96);
  const seen = new Set<string>();
  const out = v.map((r, i) => {
    const q = `${p}[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r))
      throw invalid(q, 'must be { name, startTime, endTime }');
    const o = r as Record<string, unknown>;
    for (const k of Object.keys(o))
      if (!['name', 'startTime', 'endTime'].includes(k)) throw invalid(`${q}.${k}`, 'unknown field');
    if (typeof o.name !== 'string' || !o.name) throw invalid(`${q}.name`, 'is required');
    if (seen.has(o.name)) throw invalid(`${q}.name`, `duplicate range name '${o.name}'`);
    seen.add(o.name);
    const startMin = parseHhMm(o.startTime, `${q}.startTime`);
    const endMin = parseHhMm(o.endTime, `${q}.endTime`, true);
    if (startMin % 15 !== 0) throw invalid(`${q}.startTime`, 'must be on the 15-minute grid');
    if (endMin % 15 !== 0) throw invalid(`${q}.endTime`, 'must be on the 15-minute grid');
    if (startMin === endMin) throw invalid(q, 'startTime equals endTime');
    const len = endMin > startMin ? endMin - startMin : 1440 - startMin + endMin;
    for (let m = startMin; m < startMin + len; m += 15) {
      const s = (m % 1440) / 15;
      if (slots[s] !== undefined) throw invalid(q, `overlaps range '${slots[s]}'`);
      slots[s] = o.name;
    }
    return { name: o.name, startMin, endMin };
  });
  const gap = slots.findIndex((s) => s === undefined);
  if (gap >= 0) {
    const m = gap * 15;
    throw invalid(
      p,
      `ranges must cover all 24 hours: ${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')} is not covered`,
    );
  }
  return out;
}

/** A level-of-service band: avgControlDelay in [startS, endS). */
export interface LosBand {
  name: string;
  startS: number;
  endS: number;
}

/** HCM signalized bands: A ≤ 10 s, B ≤ 20, C ≤ 35, D ≤ 55, E ≤ 80, F above (upper bounds inclusive). */
export const DEFAULT_LOS_BANDS: ReadonlyArray<{ name: string; maxS: number }> = [
  { name: 'A', maxS: 10 },
  { name: 'B', maxS: 20 },
  { name: 'C', maxS: 35 },
  { name: 'D', maxS: 55 },
  { name: 'E', maxS: 80 },
  { name: 'F', maxS: Infinity },
];

/** Validates LOS `ranges` (NamedRangeItem): start inclusive, end exclusive; missing end = open. */
export function readLosBands(v: unknown, p: string): LosBand[] {
  if (!Array.isArray(v) || v.length === 0)
    throw invalid(p, 'must be a non-empty array of { name, startAvgControlDelay, endAvgControlDelay }');
  const bands = v.map((r, i) => {
    const q = `${p}[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw invalid(q, 'must be an object');
    const o = r as Record<string, unknown>;
    for (const k of Object.keys(o))
      if (!['name', 'startAvgControlDelay', 'endAvgControlDelay'].includes(k))
        throw invalid(`${q}.${k}`, 'unknown field');
    if (typeof o.name !== 'string' || !o.name) throw invalid(`${q}.name`, 'is required');
    const start = o.startAvgControlDelay ?? 0;
    const end = o.endAvgControlDelay ?? Infinity;
    if (typeof start !== 'number' || !Number.isFinite(start) || start < 0)
      throw invalid(`${q}.startAvgControlDelay`, 'must be a number ≥ 0');
    if (typeof end !== 'number' || Number.isNaN(end)) throw invalid(`${q}.endAvgControlDelay`, 'must be a number');
    if (end <= start) throw invalid(q, 'endAvgControlDelay must be greater than startAvgControlDelay');
    return { name: o.name, startS: start, endS: end };
  });
  const sorted = [...bands].sort((a, b) => a.startS - b.startS);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].startS < sorted[i - 1].endS)
      throw invalid(p, `ranges '${sorted[i - 1].name}' and '${sorted[i].name}' overlap`);
  }
  return bands;
}

/** A metric as SQL over the grouped facts. */
export interface MetricDef {
  name: string;
  type: ColumnType;
  /** aggregate expression; undefined for turnPct (a window over the groups) */
  sql?: string;
}

/** Names of the 17 metrics of the catalogue. */
export const METRIC_NAMES = [
  'totalVehicleCount',
  'throughVehicleCount',
  'stopVehicleCount',
  'avgTravelTime',
  'maxTravelTime',
  'avgApproachSpeed',
  'maxApproachSpeed',
  'avgThroughApproachSpeed',
  'maxThroughApproachSpeed',
  'avgControlDelay',
  'maxControlDelay',
  '3MDCount',
  '3MDPct',
  'POG',
  'turnPct',
  'LOS',
  'anonymized',
] as const;

/** Where a metric request is aggregated: the facts, or one of the rollups (`facts/rollup.ts`). */
export type MetricSource = 'facts' | 'rollup15m' | 'rollupHour' | 'rollupMonth';

/** Aggregates over a group of rows, as SQL, for one source. */
interface Aggregates {
  n: string;
  through: string;
  stopped: string;
  avgTravel: string;
  maxTravel: string;
  avgApproach: string;
  maxApproach: string;
  avgThroughApproach: string;
  maxThroughApproach: string;
  avgDelay: string;
  maxDelay: string;
  delayed: string;
  /** arrived on green by the controller's timing, or without timing did not stop */
  onGreen: string;
}

const FACT_AGGREGATES: Aggregates = {
  n: 'count(*)',
  through: 'count(*) FILTER (WHERE NOT stopped)',
  stopped: 'count(*) FILTER (WHERE stopped)',
  avgTravel: 'avg(travel_time_s)',
  maxTravel: 'max(travel_time_s)',
  avgApproach: 'avg(approach_speed_kph)',
  maxApproach: 'max(approach_speed_kph)',
  avgThroughApproach: '(avg(approach_speed_kph) FILTER (WHERE NOT stopped))',
  maxThroughApproach: '(max(approach_speed_kph) FILTER (WHERE NOT stopped))',
  avgDelay: 'avg(control_delay_s)',
  maxDelay: 'max(control_delay_s)',
  delayed: `count(*) FILTER (WHERE control_delay_s >= ${THREE_MINUTE_DELAY_S})`,
  onGreen: 'count(*) FILTER (WHERE coalesce(arrived_on_green, NOT stopped))',
};

// Rollup rows hold counts, float8 sums and maxima: avg = sum / count, max = max of maxima.
const ROLLUP_AGGREGATES: Aggregates = {
  n: 'sum(vehicle_count)',
  through: 'sum(through_count)',
  stopped: '(sum(vehicle_count) - sum(through_count))',
  avgTravel: '(sum(travel_sum_s) / sum(vehicle_count))',
  maxTravel: 'max(travel_max_s)',
  avgApproach: '(sum(approach_sum_kph) / NULLIF(sum(approach_count), 0))',
  maxApproach: 'max(approach_max_kph)',
  avgThroughApproach: '(sum(through_approach_sum_kph) / NULLIF(sum(through_approach_count), 0))',
  maxThroughApproach: 'max(through_approach_max_kph)',
  avgDelay: '(sum(delay_sum_s) / sum(vehicle_count))',
  maxDelay: 'max(delay_max_s)',
  delayed: 'sum(delayed_3m_count)',
  onGreen: 'sum(on_green_count)',
};

/** SQL of the group's vehicle count for a source. */
export function vehicleCountSql(source: MetricSource): string {
  return (source === 'facts' ? FACT_AGGREGATES : ROLLUP_AGGREGATES).n;
}

/**
 * SQL of one metric. `speedFactor` converts km/h to the requested unit; `los` bands (default HCM);
 * `source` the table aggregated (every metric is exact on every source).
 */
export function metricDef(
  name: string,
  speedFactor: number,
  los: LosBand[] | undefined,
  addParam: AddParam,
  source: MetricSource = 'facts',
): MetricDef {
  const k = speedFactor === 1 ? '' : ` * ${speedFactor}`;
  const a = source === 'facts' ? FACT_AGGREGATES : ROLLUP_AGGREGATES;
  switch (name) {
    case 'totalVehicleCount':
      return { name, type: 'INTEGER', sql: `${a.n}::int` };
    case 'throughVehicleCount':
      return { name, type: 'INTEGER', sql: `(${a.through})::int` };
    case 'stopVehicleCount':
      return { name, type: 'INTEGER', sql: `(${a.stopped})::int` };
    case 'avgTravelTime':
      return { name, type: 'DOUBLE', sql: `${a.avgTravel}::float8` };
    case 'maxTravelTime':
      return { name, type: 'DOUBLE', sql: `${a.maxTravel}::float8` };
    case 'avgApproachSpeed':
      return { name, type: 'DOUBLE', sql: `${a.avgApproach}::float8${k}` };
    case 'maxApproachSpeed':
      return { name, type: 'DOUBLE', sql: `${a.maxApproach}::float8${k}` };
    case 'avgThroughApproachSpeed':
      return { name, type: 'DOUBLE', sql: `${a.avgThroughApproach}::float8${k}` };
    case 'maxThroughApproachSpeed':
      return { name, type: 'DOUBLE', sql: `${a.maxThroughApproach}::float8${k}` };
    case 'avgControlDelay':
      return { name, type: 'DOUBLE', sql: `${a.avgDelay}::float8` };
    case 'maxControlDelay':
      return { name, type: 'DOUBLE', sql: `${a.maxDelay}::float8` };
    case '3MDCount':
      return { name, type: 'INTEGER', sql: `(${a.delayed})::int` };
    case '3MDPct':
      return { name, type: 'DOUBLE', sql: `100.0::float8 * ${a.delayed} / ${a.n}` };
    case 'POG':
      return { name, type: 'DOUBLE', sql: `100.0::float8 * ${a.onGreen} / ${a.n}` };
    case 'turnPct':
      return { name, type: 'DOUBLE' };
    case 'anonymized':
      return { name, type: 'BOOLEAN', sql: `(${a.n} < ${ANONYMIZE_MIN_VEHICLES})` };
    case 'LOS': {
      const d = a.avgDelay;
      const whens = los
        ? los.map(
            (b) =>
              `WHEN ${d} >= ${b.startS}${Number.isFinite(b.endS) ? ` AND ${d} < ${b.endS}` : ''} THEN ${addParam(b.name)}::text`,
          )
        : DEFAULT_LOS_BANDS.map((b) =>
            Number.isFinite(b.maxS) ? `WHEN ${d} <= ${b.maxS} THEN '${b.name}'` : `ELSE '${b.name}'`,
          );
      return { name, type: 'STRING', sql: `(CASE WHEN ${d} IS NULL THEN NULL ${whens.join(' ')} END)` };
    }
    default:
      throw new AnalyticsError(
        'ANALYTICS_INVALID_PARAMETER',
        `metrics: unknown metric '${name}' (allowed: ${METRIC_NAMES.join(', ')})`,
        'metrics',
      );
  }
}
