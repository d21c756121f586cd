/**
 * CSV probe reader: `trace_id,timestamp,lat,lon[,speed,heading]` (speed km/h, heading degrees).
 * A first row whose lat/lon columns are not numeric is a header; header names map columns in any
 * order (aliases: id/vehicle_id, time/t, latitude, lng/longitude, speed_kph, bearing/angle).
 * Streams: memory stays constant whatever the file size.
 */
import { parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import { makeRecord, type ParseIssue, type ProbeRecord } from './records.js';

const ALIASES: Record<string, keyof Columns> = {
  trace_id: 'traceId', traceid: 'traceId', trace: 'traceId', id: 'traceId', vehicle_id: 'traceId', vehicle: 'traceId', device_id: 'traceId',
  timestamp: 'timestamp', time: 'timestamp', t: 'timestamp', ts: 'timestamp', datetime: 'timestamp',
  lat: 'lat', latitude: 'lat', y: 'lat',
  lon: 'lon', lng: 'lon', long: 'lon', longitude: 'lon', x: 'lon',
  speed: 'speed', speed_kph: 'speed', speedkph: 'speed',
  heading: 'heading', heading_deg: 'heading', bearing: 'heading', angle: 'heading', course: 'heading',
};

interface Columns { traceId: number; timestamp: number; lat: number; lon: number; speed: number; heading: number }
const POSITIONAL: Columns = { traceId: 0, timestamp: 1, lat: 2, lon: 3, speed: 4, heading: 5 };

function headerColumns(row: string[]): Columns | string {
  const cols: Partial<Columns> = {};
  row.forEach((name, i) => {
    const key = ALIASES[name.trim().toLowerCase()];
    if (key !== undefined && cols[key] === undefined) cols[key] = i;
  });
  for (const k of ['traceId', 'timestamp', 'lat', 'lon'] as const) {
    if (cols[k] === undefined) return `header has no ${k === 'traceId' ? 'trace_id' : k} column`;
  }
  return { speed: -1, heading: -1, ...cols } as Columns;
}

function looksLikeHeader(row: string[]): boolean {
  return row.length >= 4 && (!Number.isFinite(Number(row[2])) || !Number.isFinite(Number(row[3])));
}

/** Reads CSV probe records from a stream; malformed rows go to `onIssue` with their line number. */
export async function* readCsvProbes(input: Readable, onIssue: (issue: ParseIssue) => void): AsyncGenerator<ProbeRecord> {
  const parser = input.pipe(parse({
    relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true, info: true, comment: '#',
  }));
  let cols: Columns | undefined;
  for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    const row = item.record;
    const line = item.info.lines;
    if (cols === undefined) {
      if (looksLikeHeader(row)) {
        const h = headerColumns(row);
        if (typeof h === 'string') {
          onIssue({ line, message: h });
          cols = POSITIONAL;
        } else cols = h;
        continue;
      }
      cols = POSITIONAL;
    }
    if (row.length < 4) {
      onIssue({ line, message: `expected at least 4 columns (trace_id,timestamp,lat,lon), got ${row.length}` });
      continue;
    }
    const at = (i: number): string | undefined => (i >= 0 && i < row.length ? row[i] : undefined);
    const rec = makeRecord(at(cols.traceId), at(cols.timestamp), at(cols.lat), at(cols.lon), at(cols.speed), at(cols.heading));
    if (typeof rec === 'string') onIssue({ line, message: rec });
    else yield rec;
  }
}
