/** Envelope of parking responses: the common fields with the parking API's version (reference §1: 5.2). */
import { envelope } from '../envelope.js';

/** Version the parking envelopes report. */
export const PARKING_VERSION_NUMBER = '5.2';

/** copyright, versionNumber "5.2", createdDate, responseId for a response created at `nowMs`. */
export function parkingEnvelope(nowMs: number): ReturnType<typeof envelope> {
  return { ...envelope(nowMs), versionNumber: PARKING_VERSION_NUMBER };
}
