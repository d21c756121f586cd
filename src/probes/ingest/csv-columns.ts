/**
 * Which CSV column holds which ping field, in which unit: from common header names
 * (`vehicle_id`, `timestamp_iso_utc`, `epoch_ms`, `latitude`, `speed_mps`, `bearing`, …) and an
 * explicit column mapping such as `trace=vehicle,time=ts:ms,lat=y,lon=x,speed=v:mps,heading=dir`.
 * Everything here runs on the header (or the first row) before any row is read; what cannot be
 * resolved is a `ProbeFormatError` naming the column.
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

/** The resolved layout of a CSV file: 0-based column index per field (-1 = absent) and units. */
export interface CsvLayout {
  trace: number;
  time: number;
  lat: number;
  lon: number;
  speed: number;
  heading: number;
  timeUnit: TimeUnit;
  speedUnit: SpeedUnit;
  /** column names for messages (the header cell, or `column N` without a header) */
  timeName: string;
  speedName: string;
  /** columns a row needs to hold every required field */
  minColumns: number;
}

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

/**
 * Normalises a header cell for alias lookup: `Speed (km/h)` → `speed_km_h`, `vehicleID` →
 * `vehicle_id`, `timestampMs` → `timestamp_ms`.
 */
export function normalizeHeader(name: string): string {
  return name
    .replace(/^\uFEFF/, '')
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

// Header names per field, best first: when several are present the earliest in the list is read.
const TRACE_NAMES = [
  'trace_id',
  'traceid',
  'trace',
  'trip_id',
  'tripid',
  'trip',
  'vehicle_id',
  'vehicleid',
  'vehicle',
  'veh_id',
  'device_id',
  'deviceid',
  'device',
  'unit_id',
  'car_id',
  'object_id',
  'id',
];
const TIME_NAMES: ReadonlyArray<readonly [string, TimeUnit]> = [
  ...[
    'timestamp',
    'time',
    't',
    'ts',
    'datetime',
    'date_time',
    'timestamp_utc',
    'time_utc',
    'utc_time',
    'gps_time',
    'fix_time',
    'recorded_at',
  ].map((n) => [n, 'auto'] as const),
  ...[
    'timestamp_iso',
    'timestamp_iso_utc',
    'iso_timestamp',
    'ts_iso',
    'ts_iso_utc',
    'ts_iso8601',
    'time_iso',
    'iso_time',
    'iso8601',
    'timestamp_iso8601',
    'datetime_iso',
    'datetime_utc',
  ].map((n) => [n, 'iso'] as const),
  ...[
    'epoch',
    'epoch_s',
    'epoch_sec',
    'epoch_seconds',
    'unix',
    'unix_s',
    'unix_time',
    'unixtime',
    'unix_timestamp',
    'timestamp_s',
    'time_s',
    't_s',
    'ts_s',
  ].map((n) => [n, 'epoch_s'] as const),
  ...[
    'epoch_ms',
    'epoch_millis',
    'epoch_milliseconds',
    'unix_ms',
    'unix_time_ms',
    'timestamp_ms',
    'time_ms',
    't_ms',
    'ts_ms',
  ].map((n) => [n, 'epoch_ms'] as const),
];
const LAT_NAMES = ['lat', 'latitude', 'lat_deg', 'y'];
const LON_NAMES = ['lon', 'lng', 'long', 'longitude', 'lon_deg', 'x'];
const HEADING_NAMES = [
  'heading',
  'heading_deg',
  'bearing',
  'bearing_deg',
  'course',
  'course_deg',
  'direction',
  'dir',
  'azimuth',
  'angle',
];
/** A speed column: one of these names, then `_<unit>` (`speed_mps`) or the unit glued on (`speedkph`). */
const SPEED_RE = /^(?:gps_|ground_)?(?:speed|velocity|spd)(?:_?(.+))?$/;

/** Speed unit of a normalised header name: a unit, 'none' for a bare `speed`, undefined when it is no speed column. */
function speedColumnUnit(norm: string): SpeedUnit | 'none' | undefined {
  const m = SPEED_RE.exec(norm);
  if (m === null) return undefined;
  if (m[1] === undefined) return 'none';
  return speedUnitFromName(m[1].replace(/^_/, ''));
}

const REQUIRED_HINT: Readonly<Record<'trace' | 'time' | 'lat' | 'lon', string>> = {
  trace: 'trace_id, vehicle_id, device_id, trip_id, id, …',
  time: 'timestamp, time, t, timestamp_iso_utc, epoch, epoch_ms, …',
  lat: 'lat, latitude',
  lon: 'lon, lng, longitude',
};

/** Resolves the layout of a CSV file with a header row. Throws ProbeFormatError naming the column. */
export function layoutFromHeader(header: readonly string[], mapping: ColumnMapping = {}): CsvLayout {
  const names = header.map((h) => h.replace(/^\uFEFF/, '').trim());
  const norm = names.map(normalizeHeader);
  const used = new Set<number>();
  const index: Partial<Record<CsvField, number>> = {};
  let timeUnit: TimeUnit | undefined;
  let speedUnit: SpeedUnit | undefined;

  // 1. Mapped fields.
  for (const [field, src] of Object.entries(mapping) as Array<[CsvField, ColumnSource | null | undefined]>) {
    if (src === undefined) continue;
    if (src === null) {
      index[field] = -1;
      continue;
    }
    let i: number;
    if (typeof src.column === 'number') {
      i = src.column - 1;
      if (i >= names.length)
        throw unknownColumn(
          String(src.column),
          `columns: ${field}=${src.column} but the header has ${names.length} columns`,
        );
    } else {
      const want = src.column.toLowerCase();
      i = names.findIndex((n) => n.toLowerCase() === want);
      if (i < 0) i = norm.indexOf(normalizeHeader(src.column));
      if (i < 0)
        throw unknownColumn(
          src.column,
          `columns: ${field}=${src.column} but the header has no column "${src.column}" (it has ${names.join(', ')})`,
        );
    }
    index[field] = i;
    used.add(i);
    if (field === 'time') timeUnit = (src.unit as TimeUnit | undefined) ?? TIME_NAMES.find(([n]) => n === norm[i])?.[1];
    if (field === 'speed') {
      const u = (src.unit as SpeedUnit | undefined) ?? speedColumnUnit(norm[i]);
      // no unit given or in the name: km/h, the rule of every probe format (docs/probes.md)
      speedUnit = u === undefined || u === 'none' ? 'kph' : u;
    }
  }

  // 2. Header names for the rest.
  const find = (list: readonly string[]): number => {
    for (const n of list) {
      const i = norm.findIndex((x, k) => x === n && !used.has(k));
      if (i >= 0) return i;
    }
    return -1;
  };
  const claim = (field: CsvField, i: number): void => {
    index[field] = i;
    if (i >= 0) used.add(i);
  };
  if (index.trace === undefined) claim('trace', find(TRACE_NAMES));
  if (index.time === undefined) {
    const i = find(TIME_NAMES.map(([n]) => n));
    claim('time', i);
    if (i >= 0) timeUnit = TIME_NAMES.find(([n]) => n === norm[i])?.[1];
  }
  if (index.lat === undefined) claim('lat', find(LAT_NAMES));
  if (index.lon === undefined) claim('lon', find(LON_NAMES));
  if (index.heading === undefined) claim('heading', find(HEADING_NAMES));
  if (index.speed === undefined) {
    // Prefer a speed column that names its unit; a bare `speed` is km/h, as in JSON pings.
    let unitless = -1;
    let found = -1;
    norm.forEach((n, i) => {
      if (used.has(i) || found >= 0) return;
      const u = speedColumnUnit(n);
      if (u === 'none') {
        if (unitless < 0) unitless = i;
      } else if (u !== undefined) {
        found = i;
        speedUnit = u;
      }
    });
    if (found < 0 && unitless >= 0) {
      found = unitless;
      speedUnit = 'kph';
    }
    claim('speed', found);
  }

  const missing = (['trace', 'time', 'lat', 'lon'] as const).filter((f) => index[f] === undefined || index[f]! < 0);
  if (missing.length > 0) {
    const what = missing.map((f) => `no ${f === 'trace' ? 'trace id' : f} column (looked for ${REQUIRED_HINT[f]})`);
    const mappingText = missing.map((f) => `${f}=<name>`).join(',');
    throw new ProbeFormatError(
      'PROBES_CSV_MISSING_COLUMN',
      `CSV header has ${what.join(', ')}; header: ${names.join(', ')}${delimiterHint(names)}; map ${missing.length > 1 ? 'them' : 'one'} with columns=${mappingText}`,
      { column: missing.join(','), mapping: mappingText },
    );
  }
  return finish(index, timeUnit ?? 'auto', speedUnit ?? 'kph', (i) => names[i]);
}

/**
 * Resolves the layout of a headerless CSV whose first row has `width` columns: positions from the
 * mapping, the rest `trace_id,timestamp,lat,lon` in columns 1–4. Without a mapping, more than four
 * columns are an error: a fifth column could be a speed in any unit.
 */
export function layoutWithoutHeader(width: number, mapping: ColumnMapping = {}): CsvLayout {
  const index: Partial<Record<CsvField, number>> = {};
  const used = new Set<number>();
  let timeUnit: TimeUnit = 'auto';
  let speedUnit: SpeedUnit = 'kph';
  const mapped = Object.keys(mapping).length > 0;
  for (const [field, src] of Object.entries(mapping) as Array<[CsvField, ColumnSource | null | undefined]>) {
    if (src === undefined) continue;
    if (src === null) {
      index[field] = -1;
      continue;
    }
    if (typeof src.column === 'string')
      throw unknownColumn(src.column, `columns: ${field}=${src.column} names a column but the file has no header row`);
    const i = src.column - 1;
    if (i >= width)
      throw unknownColumn(String(src.column), `columns: ${field}=${src.column} but the first row has ${width} columns`);
    index[field] = i;
    used.add(i);
    if (field === 'time' && src.unit !== undefined) timeUnit = src.unit as TimeUnit;
    if (field === 'speed') speedUnit = (src.unit as SpeedUnit | undefined) ?? 'kph';
  }
  if (!mapped && width > 4) {
    throw new ProbeFormatError(
      'PROBES_CSV_AMBIGUOUS_COLUMNS',
      `CSV without a header has ${width} columns; only trace_id,timestamp,lat,lon (columns 1-4) are known by position. ` +
        'Add a header row (e.g. trace_id,timestamp,lat,lon,speed_kph,heading) or map the columns (e.g. columns=speed=5:kph,heading=6)',
      { column: 'column 5' },
    );
  }
  (['trace', 'time', 'lat', 'lon'] as const).forEach((f, k) => {
    if (index[f] !== undefined) return;
    if (used.has(k) || k >= width) {
      throw new ProbeFormatError(
        'PROBES_CSV_MISSING_COLUMN',
        `CSV without a header: no column for ${f} (map it with columns=${f}=<n>, n the 1-based column number)`,
        { column: f },
      );
    }
    index[f] = k;
    used.add(k);
  });
  return finish(index, timeUnit, speedUnit, (i) => `column ${i + 1}`);
}

function finish(
  index: Partial<Record<CsvField, number>>,
  timeUnit: TimeUnit,
  speedUnit: SpeedUnit,
  nameOf: (i: number) => string,
): CsvLayout {
  const layout: CsvLayout = {
    trace: index.trace!,
    time: index.time!,
    lat: index.lat!,
    lon: index.lon!,
    speed: index.speed ?? -1,
    heading: index.heading ?? -1,
    timeUnit,
    speedUnit,
    timeName: nameOf(index.time!),
    speedName: index.speed !== undefined && index.speed >= 0 ? nameOf(index.speed) : 'speed',
    minColumns: 0,
  };
  layout.minColumns = Math.max(layout.trace, layout.time, layout.lat, layout.lon) + 1;
  return layout;
}

function unknownColumn(column: string, message: string): ProbeFormatError {
  return new ProbeFormatError('PROBES_CSV_UNKNOWN_COLUMN', message, { column, option: 'columns' });
}

/** A hint when a one-column header holds another delimiter (the reader splits on commas only). */
function delimiterHint(names: readonly string[]): string {
  if (names.length !== 1) return '';
  const found = [';', '\t', '|'].find((d) => names[0].includes(d));
  if (found === undefined) return '';
  const shown = found === '\t' ? 'tabs' : `"${found}"`;
  return ` (the header is one column holding ${shown}: this reader splits columns on commas only, so convert the file to comma-separated values first)`;
}
