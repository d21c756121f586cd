/**
 * Which CSV column holds which ping field, in which unit: from common header names
 * (`csv-header-names.ts`) and an explicit column mapping (`csv-mapping.ts`). Everything here runs
 * on the header (or the first row) before any row is read; what cannot be resolved is a
 * `ProbeFormatError` naming the column.
 */
import { ProbeFormatError } from './errors.js';
import {
  HEADING_NAMES,
  LAT_NAMES,
  LON_NAMES,
  normalizeHeader,
  REQUIRED_HINT,
  speedColumnUnit,
  TIME_NAMES,
  TRACE_NAMES,
} from './csv-header-names.js';
import type { ColumnMapping, ColumnSource, CsvField } from './csv-mapping.js';
import type { SpeedUnit, TimeUnit } from './units.js';

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

/** The layout being resolved: column per field (-1 = absent), columns taken, units found. */
interface Resolving {
  index: Partial<Record<CsvField, number>>;
  used: Set<number>;
  timeUnit?: TimeUnit;
  speedUnit?: SpeedUnit;
}

/** The column a mapped field names in a header (`names` as written, `norm` normalised). */
function mappedColumn(field: CsvField, src: ColumnSource, names: readonly string[], norm: readonly string[]): number {
  if (typeof src.column === 'number') {
    const i = src.column - 1;
    if (i >= names.length)
      throw unknownColumn(
        String(src.column),
        `columns: ${field}=${src.column} but the header has ${names.length} columns`,
      );
    return i;
  }
  const want = src.column.toLowerCase();
  let i = names.findIndex((n) => n.toLowerCase() === want);
  if (i < 0) i = norm.indexOf(normalizeHeader(src.column));
  if (i < 0)
    throw unknownColumn(
      src.column,
      `columns: ${field}=${src.column} but the header has no column "${src.column}" (it has ${names.join(', ')})`,
    );
  return i;
}

/** Step 1: the mapped fields, with their units (given, or read from the header name). */
function resolveMapped(r: Resolving, mapping: ColumnMapping, names: readonly string[], norm: readonly string[]): void {
  for (const [field, src] of Object.entries(mapping) as Array<[CsvField, ColumnSource | null | undefined]>) {
    if (src === undefined) continue;
    if (src === null) {
      r.index[field] = -1;
      continue;
    }
    const i = mappedColumn(field, src, names, norm);
    r.index[field] = i;
    r.used.add(i);
    if (field === 'time')
      r.timeUnit = (src.unit as TimeUnit | undefined) ?? TIME_NAMES.find(([n]) => n === norm[i])?.[1];
    if (field === 'speed') {
      const u = (src.unit as SpeedUnit | undefined) ?? speedColumnUnit(norm[i]);
      // no unit given or in the name: km/h, the rule of every probe format (docs/probes.md)
      r.speedUnit = u === undefined || u === 'none' ? 'kph' : u;
    }
  }
}

/** The speed column among the free ones: one that names its unit first; a bare `speed` is km/h, as in JSON pings. */
function resolveSpeedByName(r: Resolving, norm: readonly string[]): number {
  let unitless = -1;
  let found = -1;
  norm.forEach((n, i) => {
    if (r.used.has(i) || found >= 0) return;
    const u = speedColumnUnit(n);
    if (u === 'none') {
      if (unitless < 0) unitless = i;
    } else if (u !== undefined) {
      found = i;
      r.speedUnit = u;
    }
  });
  if (found < 0 && unitless >= 0) {
    found = unitless;
    r.speedUnit = 'kph';
  }
  return found;
}

/** Step 2: header names for the fields not mapped, each the earliest-listed name among the free columns. */
function resolveByName(r: Resolving, norm: readonly string[]): void {
  const find = (list: readonly string[]): number => {
    for (const n of list) {
      const i = norm.findIndex((x, k) => x === n && !r.used.has(k));
      if (i >= 0) return i;
    }
    return -1;
  };
  const claim = (field: CsvField, i: number): void => {
    r.index[field] = i;
    if (i >= 0) r.used.add(i);
  };
  if (r.index.trace === undefined) claim('trace', find(TRACE_NAMES));
  if (r.index.time === undefined) {
    const i = find(TIME_NAMES.map(([n]) => n));
    claim('time', i);
    if (i >= 0) r.timeUnit = TIME_NAMES.find(([n]) => n === norm[i])?.[1];
  }
  if (r.index.lat === undefined) claim('lat', find(LAT_NAMES));
  if (r.index.lon === undefined) claim('lon', find(LON_NAMES));
  if (r.index.heading === undefined) claim('heading', find(HEADING_NAMES));
  if (r.index.speed === undefined) claim('speed', resolveSpeedByName(r, norm));
}

/** Step 3: every required field has a column, or the error names what is missing and how to map it. */
function checkRequired(r: Resolving, names: readonly string[]): void {
  const missing = (['trace', 'time', 'lat', 'lon'] as const).filter((f) => r.index[f] === undefined || r.index[f]! < 0);
  if (missing.length === 0) return;
  const what = missing.map((f) => `no ${f === 'trace' ? 'trace id' : f} column (looked for ${REQUIRED_HINT[f]})`);
  const mappingText = missing.map((f) => `${f}=<name>`).join(',');
  throw new ProbeFormatError(
    'PROBES_CSV_MISSING_COLUMN',
    `CSV header has ${what.join(', ')}; header: ${names.join(', ')}${delimiterHint(names)}; map ${missing.length > 1 ? 'them' : 'one'} with columns=${mappingText}`,
    { column: missing.join(','), mapping: mappingText },
  );
}

/** Resolves the layout of a CSV file with a header row. Throws ProbeFormatError naming the column. */
export function layoutFromHeader(header: readonly string[], mapping: ColumnMapping = {}): CsvLayout {
  const names = header.map((h) => h.replace(/^\uFEFF/, '').trim());
  const norm = names.map(normalizeHeader);
  const r: Resolving = { index: {}, used: new Set<number>() };
  resolveMapped(r, mapping, names, norm);
  resolveByName(r, norm);
  checkRequired(r, names);
  return finish(r.index, r.timeUnit ?? 'auto', r.speedUnit ?? 'kph', (i) => names[i]);
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
