/**
 * Error catalog of probe input formats. A `ProbeFormatError` means the input as a whole cannot be
 * read as asked (a CSV header without a required column, a speed column without a unit, a column
 * mapping that does not parse, a JSON body that is not an object with `pings` or an array). Readers
 * throw it before they yield any record, so nothing of that input is stored. Problems with single
 * rows are not errors: they are reported as `ParseIssue`s and the rest is read.
 */

/** Codes: PROBES_FORMAT_1xx CSV header and mapping, 2xx JSON shape, 3xx options. */
export const PROBE_FORMAT_ERRORS = {
  /** a required field (trace id, time, lat, lon) has no column */
  PROBES_CSV_MISSING_COLUMN: 'a required column is missing',
  /** a column mapping names an unknown unit */
  PROBES_CSV_UNKNOWN_UNIT: 'a column has no or an unknown unit',
  /** the column mapping names a column the header does not have (or a position beyond the row) */
  PROBES_CSV_UNKNOWN_COLUMN: 'a mapped column does not exist',
  /** a headerless CSV has columns beyond trace_id,timestamp,lat,lon that no mapping explains */
  PROBES_CSV_AMBIGUOUS_COLUMNS: 'a headerless CSV has unexplained columns',
  /** the column mapping does not parse */
  PROBES_CSV_BAD_MAPPING: 'the column mapping is malformed',
  /** a JSON body is not an object with a `pings` array nor an array of pings */
  PROBES_JSON_SHAPE: 'the JSON body has the wrong shape',
  /** the input is not valid JSON before its first ping */
  PROBES_JSON_SYNTAX: 'the JSON body does not parse',
  /** a reader option is invalid (e.g. an FCD start time) */
  PROBES_FORMAT_OPTION: 'a format option is invalid',
} as const;

/** One code of the catalog. */
export type ProbeFormatErrorCode = keyof typeof PROBE_FORMAT_ERRORS;

/**
 * The input cannot be read in the requested format; `column` names the CSV column (or the field
 * when the column is missing), `option` the reader option at fault. HTTP answers it with 400.
 */
export class ProbeFormatError extends Error {
  constructor(
    readonly code: ProbeFormatErrorCode,
    message: string,
    readonly details: {
      column?: string;
      option?: string;
      /** the column mapping that would fix it (`time=<name>`), for the caller to show in its own syntax */
      mapping?: string;
    } = {},
  ) {
    super(message);
    this.name = 'ProbeFormatError';
  }

  /** the CSV column (or missing field) at fault, when there is one */
  get column(): string | undefined {
    return this.details.column;
  }
}
