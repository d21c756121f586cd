/** Every error code of the parking inventory catalog is mapped to an HTTP status and documented. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PARKING_ERRORS, ParkingError, type ParkingErrorCode } from '../../src/parking/index.js';
import { PARKING_STATUS_OF_KIND } from '../../src/http/parking/inventory-errors.js';

describe('parking inventory error catalog', () => {
  const docs = readFileSync(new URL('../../docs/parking.md', import.meta.url), 'utf8');
  for (const code of Object.keys(PARKING_ERRORS) as ParkingErrorCode[]) {
    it(`${code} has an HTTP status and a line in docs/parking.md`, () => {
      const e = new ParkingError(code, 'x');
      expect(PARKING_STATUS_OF_KIND[e.kind]).toBeGreaterThanOrEqual(400);
      const row = docs.split('\n').find((l) => l.startsWith(`| \`${code}\``));
      expect(row).toBeDefined();
      expect(row).toContain(`| ${PARKING_STATUS_OF_KIND[e.kind]} |`);
    });
  }
});
