/** Former name of the NDJSON reader module, kept for existing importers of `recordFromObject`. */
export { recordFromObject } from './json-record.js';
export { readNdjsonProbes as readJsonlProbes } from './ndjson.js';
