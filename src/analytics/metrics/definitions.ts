/**
 * The metrics of POST /v1/metrics/intersections as SQL aggregates over `analytics_fact` or its
 * rollups (`facts/rollup.ts`), and the column types of the response; the dimensions are in
 * `dimensions.ts`, the LOS bands in `los.ts`.
 */
import { AnalyticsError } from '../errors.js';
import { DEFAULT_LOS_BANDS, type LosBand } from './los.js';

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
