/**
 * CSV probe reader. The first row is a header when fewer than two of its cells are numbers (or
 * when `header` says so); header names map columns in any order (`csv-header-names.ts`: trace_id /
 * vehicle_id / device_id / …, timestamp / timestamp_iso_utc / epoch / epoch_ms / …, lat / latitude,
 * lon / lng / longitude, speed_mps / speed_kph / speed_mph / speed_knots, heading / bearing /
 * course), and a column mapping overrides them. A headerless file is
 * `trace_id,timestamp,lat,lon`. The layout is resolved before the first row is yielded, so a
 * header error (`ProbeFormatError`) stores nothing. Streams: memory stays constant whatever the
 * file size.
 */
import { parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import { layoutFromHeader, layoutWithoutHeader, type CsvLayout } from './csv-columns.js';
import { mappingUsesNames, parseColumnMapping, type ColumnMapping } from './csv-mapping.js';
import { makeRecord, type FieldUnits, type ParseIssue, type ProbeRecord } from './records.js';

/** Options of the CSV reader. */
export interface CsvOptions {
  /** explicit column mapping, as text (`trace=vehicle,time=ts:ms,speed=v:mps`) or parsed */
  columns?: string | ColumnMapping;
  /** whether the first row is a header (default: detected; always true when the mapping names columns) */
  header?: boolean;
}

const NUMERIC_RE = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** A first row is a header when fewer than two of its cells are numbers (data rows have numeric lat and lon). */
function looksLikeHeader(row: readonly string[]): boolean {
  let numbers = 0;
  for (const cell of row) if (NUMERIC_RE.test(cell.trim())) numbers++;
  return numbers < 2;
}

/**
 * Reads CSV probe records from a stream; malformed rows go to `onIssue` with their line number.
 * Throws `ProbeFormatError` (before yielding anything) when the header or mapping cannot be resolved.
 */
export async function* readCsvProbes(
  input: Readable,
  onIssue: (issue: ParseIssue) => void,
  opts: CsvOptions = {},
): AsyncGenerator<ProbeRecord> {
  const mapping: ColumnMapping =
    typeof opts.columns === 'string' ? parseColumnMapping(opts.columns) : (opts.columns ?? {});
  const parser = input.pipe(
    parse({
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
      info: true,
      comment: '#',
      bom: true,
    }),
  );
  let layout: CsvLayout | undefined;
  let units: FieldUnits = {};
  for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    const row = item.record;
    const line = item.info.lines;
    if (layout === undefined) {
      const header = opts.header ?? (mappingUsesNames(mapping) || looksLikeHeader(row));
      layout = header ? layoutFromHeader(row, mapping) : layoutWithoutHeader(row.length, mapping);
      units = {
        time: layout.timeUnit,
        speed: layout.speedUnit,
        timeName: layout.timeName,
        speedName: layout.speedName,
      };
      if (header) continue;
    }
    if (row.length < layout.minColumns) {
      onIssue({ line, message: `expected at least ${layout.minColumns} columns, got ${row.length}` });
      continue;
    }
    const rec = makeRecord(
      row[layout.trace],
      row[layout.time],
      row[layout.lat],
      row[layout.lon],
      layout.speed >= 0 ? row[layout.speed] : undefined,
      layout.heading >= 0 ? row[layout.heading] : undefined,
      units,
    );
    if (typeof rec === 'string') onIssue({ line, message: rec });
    else yield rec;
  }
}
