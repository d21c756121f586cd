/**
 * Which table answers a metric request: the coarsest exact source — the month, hour or 15-minute
 * rollup (`facts/rollup.ts`), or the facts when asked — and the FROM clause that reads it.
 */
import { ROLLUP_MEASURES } from '../facts/rollup.js';
import type { DayRange } from '../request-common.js';
import type { AddParam, MetricSource } from './definitions.js';
import type { MetricRequest } from './metric-request.js';

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
export function sourceAnswers(req: MetricRequest, source: MetricSource): boolean {
  const best = metricSourceFor(req);
  if (source === 'facts' || source === 'rollup15m') return true;
  if (best === 'rollup15m') return false;
  if (source === 'rollupHour') return true;
  return (
    !req.dimensions.some((n) => n === 'day' || n === 'week') &&
    !req.filters.some((f) => f.name === 'day' || f.name === 'week')
  );
}

/**
 * The FROM clause of `source` over the request's date ranges. The month rollup answers the whole
 * months (its `local_day` is the month's first day, inside the ranges) and the hour rollup the
 * other days of the ranges; the other sources are one table each.
 */
export function sourceFrom(req: MetricRequest, source: MetricSource, addParam: AddParam): string {
  if (source !== 'rollupMonth') return SOURCE_TABLE[source];
  const { months, rest } = splitByMonths(req.dateRanges);
  // every day of the ranges lies in a whole month: the month rollup is read alone
  if (rest.length === 0) return 'analytics_rollup_month';
  const cols = `intersection_key, local_day, local_dow, local_minute, ${ROLLUP_MEASURES}`;
  const parts: string[] = [];
  if (months.length > 0)
    parts.push(`SELECT ${cols} FROM analytics_rollup_month WHERE local_day = ANY(${addParam(months)}::date[])`);
  const restDays = rest
    .map((r) => `local_day BETWEEN ${addParam(r.startDate)}::date AND ${addParam(r.endDate)}::date`)
    .join(' OR ');
  parts.push(`SELECT ${cols} FROM analytics_rollup_hour WHERE ${restDays}`);
  return `(${parts.join(' UNION ALL ')}) src`;
}
