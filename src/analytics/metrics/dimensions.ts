/**
 * The dimensions of POST /v1/metrics/intersections as SQL over `analytics_fact` or its rollups
 * (same column names for keys and local time; `local_minute` of a rollup row is its bin start):
 * each dimension is an output expression, a sort expression and a filter expression. Local time
 * comes from the columns computed at insert (region time zone).
 */
import { invalid } from '../errors.js';
import { COMPARISON_OPERATORS, type FilterOperator } from '../request-common.js';
import type { AddParam, ColumnType } from './definitions.js';

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

/** A dimension whose output, sort and filter expressions are one expression. */
function plainDim(
  name: string,
  type: ColumnType,
  expr: string,
  cast: string,
  operators: readonly FilterOperator[],
  parse: DimensionDef['parse'],
): DimensionDef {
  return { name, type, expr, sortExpr: expr, filterExpr: expr, cast, operators, parse };
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

/** `week`: named by its ISO start day (Monday), sorted and filtered as a date. */
const WEEK_DIM: DimensionDef = {
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
};

const WEEK_PART = `CASE WHEN local_dow >= 6 THEN 'weekend' ELSE 'weekday' END`;

/** The dimensions every request may use, in catalogue order (customTimeRange is built per request). */
const FIXED_DIMENSIONS: readonly DimensionDef[] = [
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
  plainDim(
    'quarter',
    'STRING',
    `to_char(local_day, 'YYYY-"Q"Q')`,
    'text',
    EQ,
    matching(/^\d{4}-Q[1-4]$/, 'a quarter YYYY-Qn'),
  ),
  plainDim(
    'month',
    'STRING',
    `to_char(local_day, 'YYYY-MM')`,
    'text',
    ALL,
    matching(/^\d{4}-(0[1-9]|1[0-2])$/, 'a month YYYY-MM'),
  ),
  WEEK_DIM,
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
  plainDim('dayOfWeek', 'INTEGER', 'local_dow', 'int', ALL, intIn(1, 7)),
  plainDim('hourOfDay', 'INTEGER', '(local_minute / 60)', 'int', ALL, intIn(0, 23)),
  plainDim('wkPart', 'STRING', WEEK_PART, 'text', EQ, matching(/^(weekday|weekend)$/, 'weekday or weekend')),
  binDim('15MinBin', 15),
  binDim('30MinBin', 30),
];

/** `customTimeRange` over the request's `ranges`: each range's name (a parameter) and its order. */
function customTimeRangeDim(ranges: TimeRange[], addParam: AddParam): DimensionDef {
  const cond = (r: TimeRange): string =>
    r.endMin > r.startMin
      ? `local_minute >= ${r.startMin} AND local_minute < ${r.endMin}`
      : `(local_minute >= ${r.startMin} OR local_minute < ${r.endMin})`;
  const expr = `CASE ${ranges.map((r) => `WHEN ${cond(r)} THEN ${addParam(r.name)}::text`).join(' ')} END`;
  const sortExpr = `CASE ${ranges.map((r, i) => `WHEN ${cond(r)} THEN ${i}`).join(' ')} END`;
  const names = new Set(ranges.map((r) => r.name));
  return {
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
  };
}

/** The dimension catalog; customTimeRange only when ranges were given. */
export function dimensionDefs(ranges: TimeRange[] | undefined, addParam: AddParam): Map<string, DimensionDef> {
  const defs = ranges ? [...FIXED_DIMENSIONS, customTimeRangeDim(ranges, addParam)] : FIXED_DIMENSIONS;
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
