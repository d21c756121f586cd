/** The envelope fields every service puts on its responses (copyright, version, time, id). */
import { randomUUID } from 'node:crypto';

/** Copyright line of every response; OSM data requires the attribution (ODbL). */
export const COPYRIGHT = 'Copyright streetwise. Map data (c) OpenStreetMap contributors, ODbL.';
/** API version reported in envelopes. */
export const VERSION_NUMBER = '1.0';

/** The four common envelope fields for a response created at `nowMs`. */
export function envelope(nowMs: number = Date.now()): {
  copyright: string;
  versionNumber: string;
  createdDate: string;
  responseId: string;
} {
  return {
    copyright: COPYRIGHT,
    versionNumber: VERSION_NUMBER,
    createdDate: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    responseId: randomUUID(),
  };
}
