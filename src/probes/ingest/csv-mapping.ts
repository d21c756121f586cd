/**
 * An explicit CSV column mapping such as `trace=vehicle,time=ts:ms,lat=y,lon=x,speed=v:mps,heading=dir`:
 * which column holds which ping field, in which unit. Malformed mappings are a `ProbeFormatError`.
 */
import { ProbeFormatError } from './errors.js';
import {
  SPEED_UNIT_HINT,
  TIME_UNIT_HINT,
  speedUnitFromName,
  timeUnitFromName,
  type SpeedUnit,
  type TimeUnit,
} from './units.js';

/** The fields of a ping a CSV column can hold. */
export type CsvField = 'trace' | 'time' | 'lat' | 'lon' | 'speed' | 'heading';

/** Where one field comes from: a header name or a 1-based column position, and its unit. */
export interface ColumnSource {
  /** header name (matched case-insensitively) or 1-based column number */
  column: string | number;
  /** time unit of `time`, speed unit of `speed` */
  unit?: TimeUnit | SpeedUnit;
}

/** An explicit mapping of fields to columns; `null` means "do not read this optional field". */
export type ColumnMapping = Partial<Record<CsvField, ColumnSource | null>>;

const FIELD_NAMES: Readonly<Record<string, CsvField>> = {
  trace: 'trace',
  trace_id: 'trace',
  traceid: 'trace',
  id: 'trace',
  time: 'time',
  timestamp: 'time',
  t: 'time',
  lat: 'lat',
  latitude: 'lat',
  lon: 'lon',
  lng: 'lon',
  longitude: 'lon',
  speed: 'speed',
  heading: 'heading',
  bearing: 'heading',
  course: 'heading',
};

/** Parses a mapping such as `trace=vehicle,time=ts:ms,lat=y,lon=x,speed=v:mps,heading=dir,speed=-`. */
export function parseColumnMapping(spec: string): ColumnMapping {
  const out: ColumnMapping = {};
  const bad = (msg: string): ProbeFormatError =>
    new ProbeFormatError('PROBES_CSV_BAD_MAPPING', `columns: ${msg}`, { option: 'columns' });
  for (const part of spec.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    if (eq <= 0) throw bad(`"${entry}" is not field=column[:unit]`);
    const fieldName = entry.slice(0, eq).trim();
    const field = FIELD_NAMES[fieldName.toLowerCase()];
    if (field === undefined) throw bad(`unknown field "${fieldName}" (fields: trace, time, lat, lon, speed, heading)`);
    if (field in out) throw bad(`field ${field} is mapped twice`);
    let source = entry.slice(eq + 1).trim();
    if (source === '-') {
      if (field !== 'speed' && field !== 'heading') throw bad(`${field} is required and cannot be skipped with "-"`);
      out[field] = null;
      continue;
    }
    let unit: TimeUnit | SpeedUnit | undefined;
    const colon = source.lastIndexOf(':');
    if (colon >= 0) {
      const unitName = source.slice(colon + 1).trim();
      source = source.slice(0, colon).trim();
      unit = unitOf(field, unitName, source);
    }
    if (source === '') throw bad(`field ${field} has no column`);
    out[field] = { column: /^\d+$/.test(source) ? positionOf(source, bad) : source, unit };
  }
  return out;
}

function positionOf(text: string, bad: (m: string) => ProbeFormatError): number {
  const n = Number(text);
  if (n < 1) throw bad(`column numbers start at 1 (got ${text})`);
  return n;
}

/** The unit named in a mapping entry, checked against the field. */
function unitOf(field: CsvField, unitName: string, column: string): TimeUnit | SpeedUnit | undefined {
  if (field === 'time') {
    const u = timeUnitFromName(unitName);
    if (u === undefined)
      throw new ProbeFormatError(
        'PROBES_CSV_UNKNOWN_UNIT',
        `columns: unknown time unit "${unitName}" for column ${column} (use ${TIME_UNIT_HINT})`,
        { column, option: 'columns' },
      );
    return u;
  }
  if (field === 'speed') {
    const u = speedUnitFromName(unitName);
    if (u === undefined)
      throw new ProbeFormatError(
        'PROBES_CSV_UNKNOWN_UNIT',
        `columns: unknown speed unit "${unitName}" for column ${column} (use ${SPEED_UNIT_HINT})`,
        { column, option: 'columns' },
      );
    return u;
  }
  if (field === 'heading' && /^(deg|degrees)$/i.test(unitName)) return undefined;
  throw new ProbeFormatError(
    'PROBES_CSV_UNKNOWN_UNIT',
    `columns: ${field} takes no unit "${unitName}"${field === 'heading' ? ' (headings are degrees: deg)' : ''}`,
    { column, option: 'columns' },
  );
}

/** True when the mapping refers to a column by header name (so the file must have a header). */
export function mappingUsesNames(m: ColumnMapping): boolean {
  return Object.values(m).some((s) => s !== null && s !== undefined && typeof s.column === 'string');
}
