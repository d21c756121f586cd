/**
 * The probe format of an HTTP request: from its Content-Type (`application/json`,
 * `application/x-ndjson`, `text/csv`, `application/xml`) and the query parameters that tune a
 * format (`columns` and `header` for CSV, `fcdStart` and `tracePrefix` for SUMO FCD). Pure: the
 * HTTP layer turns an error into its own error shape.
 */
import { parseColumnMapping } from './csv-mapping.js';
import { ProbeFormatError } from './errors.js';
import type { ReadProbesOptions } from './ingest.js';
import { parseTimestampS, type ProbeFormat } from './records.js';

/** Media types accepted for probe bodies, and the format each one means. */
export const PROBE_CONTENT_TYPES: Readonly<Record<string, ProbeFormat>> = {
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/json-lines': 'ndjson',
  'text/csv': 'csv',
  'application/xml': 'fcd',
  'text/xml': 'fcd',
};

const ACCEPTED =
  'application/json, application/x-ndjson (or application/jsonl), text/csv, application/xml or text/xml (SUMO FCD)';

/** The format and reader options of a request body. */
export interface ProbeRequestFormat {
  format: ProbeFormat;
  options: ReadProbesOptions;
}

/** Why a request body cannot be read: 415 for its media type or charset, 400 for a query parameter. */
export interface ProbeRequestFormatError {
  status: 415 | 400;
  message: string;
  /** the query parameter at fault (400) */
  parameter?: string;
}

/** Query parameters and the format they apply to. */
const FORMAT_PARAMS: Readonly<Record<string, ProbeFormat>> = {
  columns: 'csv',
  header: 'csv',
  fcdStart: 'fcd',
  tracePrefix: 'fcd',
};

/**
 * Chooses the reader for a request from its Content-Type and query. Unknown media types (or a
 * missing one) are 415 with the accepted list; a charset other than UTF-8 is 415; a malformed or
 * misplaced format parameter is 400 naming it. Other query parameters are left to the caller.
 * @example
 * probeFormatFromRequest('text/csv; charset=utf-8', { columns: 'time=ts:ms,speed=v:mps' })
 * // → { format: 'csv', options: { columns: { time: { column: 'ts', unit: 'epoch_ms' }, speed: { column: 'v', unit: 'mps' } } } }
 */
export function probeFormatFromRequest(
  contentType: string | undefined,
  query: Record<string, unknown>,
): ProbeRequestFormat | ProbeRequestFormatError {
  const [mediaRaw, ...params] = (contentType ?? '').split(';');
  const media = mediaRaw.trim().toLowerCase();
  const format = PROBE_CONTENT_TYPES[media];
  if (format === undefined) {
    return {
      status: 415,
      message: `${media === '' ? 'a Content-Type is required' : `Content-Type ${media} is not supported`}; send ${ACCEPTED}`,
    };
  }
  for (const p of params) {
    const [k, v] = p.split('=').map((x) => x.trim().toLowerCase());
    if (k === 'charset' && !['utf-8', 'utf8', 'us-ascii'].includes((v ?? '').replace(/"/g, ''))) {
      return { status: 415, message: `charset ${v} is not supported: send UTF-8` };
    }
  }
  const options: ReadProbesOptions = {};
  for (const [name, appliesTo] of Object.entries(FORMAT_PARAMS)) {
    const raw = query[name];
    if (raw === undefined) continue;
    if (typeof raw !== 'string') return bad(name, `${name}: give it once, as text`);
    if (appliesTo !== format)
      return bad(
        name,
        `${name}: applies to ${appliesTo === 'csv' ? 'text/csv' : 'SUMO FCD (application/xml)'} bodies only`,
      );
    switch (name) {
      case 'columns':
        try {
          options.columns = parseColumnMapping(raw);
        } catch (err) {
          if (err instanceof ProbeFormatError) return bad(name, err.message);
          throw err;
        }
        break;
      case 'header':
        if (!['true', 'false', '1', '0'].includes(raw)) return bad(name, 'header: must be true or false');
        options.header = raw === 'true' || raw === '1';
        break;
      case 'fcdStart': {
        const s = parseTimestampS(raw);
        if (!Number.isFinite(s)) return bad(name, `fcdStart: ${JSON.stringify(raw)} is not ISO 8601 or unix time`);
        options.fcdStartS = s;
        break;
      }
      case 'tracePrefix':
        if (raw.length > 100) return bad(name, 'tracePrefix: at most 100 characters');
        options.tracePrefix = raw;
        break;
    }
  }
  return { format, options };
}

/** True when `probeFormatFromRequest` answered an error. */
export function isProbeRequestFormatError(
  r: ProbeRequestFormat | ProbeRequestFormatError,
): r is ProbeRequestFormatError {
  return 'status' in r;
}

function bad(parameter: string, message: string): ProbeRequestFormatError {
  return { status: 400, message, parameter };
}
