/**
 * JSON-lines probe reader: one object per line with `trace_id` (or traceId/id), `timestamp` (or
 * time/t/tS: epoch s/ms or ISO 8601), `lat`, `lon`, optional `speed` (km/h; or speedKph) and
 * `heading` (degrees; or headingDeg). Streams line by line.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { makeRecord, type ParseIssue, type ProbeRecord } from './records.js';

/** Picks the first present field among aliases. */
function pick(o: Record<string, unknown>, names: readonly string[]): unknown {
  for (const n of names) if (o[n] !== undefined) return o[n];
  return undefined;
}

/** Builds a record from one JSON object (shared by the JSON-lines reader and the HTTP endpoint). */
export function recordFromObject(o: unknown): ProbeRecord | string {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return 'expected a JSON object';
  const obj = o as Record<string, unknown>;
  return makeRecord(
    pick(obj, ['trace_id', 'traceId', 'id', 'vehicle_id']),
    pick(obj, ['timestamp', 'time', 't', 'tS']),
    pick(obj, ['lat', 'latitude']),
    pick(obj, ['lon', 'lng', 'longitude']),
    pick(obj, ['speed', 'speedKph', 'speed_kph']),
    pick(obj, ['heading', 'headingDeg', 'heading_deg', 'bearing']),
  );
}

/** Reads JSON-lines probe records; malformed lines go to `onIssue` with their line number. */
export async function* readJsonlProbes(input: Readable, onIssue: (issue: ParseIssue) => void): AsyncGenerator<ProbeRecord> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const raw of lines) {
    line++;
    const text = raw.trim();
    if (text === '') continue;
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch {
      onIssue({ line, message: 'not valid JSON' });
      continue;
    }
    const rec = recordFromObject(obj);
    if (typeof rec === 'string') onIssue({ line, message: rec });
    else yield rec;
  }
}
