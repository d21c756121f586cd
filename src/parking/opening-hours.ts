/**
 * The `opening_hours` library, loaded the first time a value is read: its tables (holidays,
 * translations) are about 6 MB of JavaScript heap in every thread that loads them, which a thread
 * that never reads an opening-hours value (a serving thread answering only routes) does not hold.
 */
import { createRequire } from 'node:module';
import type OpeningHours from 'opening_hours';

let OpeningHoursClass: typeof OpeningHours | undefined;

/** Parses an OSM `opening_hours` value (throws on a malformed one, as the library does). */
export function parseOpeningHours(value: string): OpeningHours {
  OpeningHoursClass ??= createRequire(import.meta.url)('opening_hours') as typeof OpeningHours;
  return new OpeningHoursClass(value);
}
