/**
 * NDJSON (JSON lines) probe reader: one ping object per line, fields as in `json-record.ts`.
 * Streams line by line; blank lines are skipped.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { recordFromObject } from './json-record.js';
import type { ParseIssue, ProbeRecord } from './records.js';

/** Reads NDJSON probe records; malformed lines go to `onIssue` with their line number. */
export async function* readNdjsonProbes(
  input: Readable,
  onIssue: (issue: ParseIssue) => void,
): AsyncGenerator<ProbeRecord> {
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
