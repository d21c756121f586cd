/**
 * Probe pings in one broker message: NDJSON (one ping object per line) or one JSON value — a
 * ping object, an array of ping objects, or `{"pings": [...]}`. Ping fields as in
 * `ingest/json-record.ts`. Messages are small (a broker caps them, 1 MB by default in NATS), so
 * a payload is parsed whole.
 */
import { recordFromObject } from '../ingest/json-record.js';
import type { ParseIssue, ProbeRecord } from '../ingest/records.js';

/** What one message holds. */
export interface PayloadPings {
  records: ProbeRecord[];
  /** malformed pings (`index` in a JSON array, `line` in NDJSON) */
  issues: ParseIssue[];
}

/** Parses a message payload into ping records; never throws. */
export function pingsFromPayload(text: string): PayloadPings {
  const records: ProbeRecord[] = [];
  const issues: ParseIssue[] = [];
  const trimmed = text.trim();
  if (trimmed === '') return { records, issues: [{ message: 'empty message' }] };
  let whole: unknown;
  let isJson = false;
  try {
    whole = JSON.parse(trimmed);
    isJson = true;
  } catch {
    // not one JSON value: read it as NDJSON below
  }
  if (isJson) {
    const list = Array.isArray(whole)
      ? whole
      : whole !== null && typeof whole === 'object' && Array.isArray((whole as { pings?: unknown }).pings)
        ? (whole as { pings: unknown[] }).pings
        : [whole];
    list.forEach((o, index) => {
      const r = recordFromObject(o);
      if (typeof r === 'string') issues.push({ index, message: r });
      else records.push(r);
    });
    return { records, issues };
  }
  const lines = trimmed.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      issues.push({ line: i + 1, message: 'not valid JSON' });
      continue;
    }
    const r = recordFromObject(o);
    if (typeof r === 'string') issues.push({ line: i + 1, message: r });
    else records.push(r);
  }
  return { records, issues };
}
