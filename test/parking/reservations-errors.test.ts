/** Every error code of the reservations catalog is mapped to an HTTP status and documented. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  RESERVATIONS_ERRORS,
  ReservationsError,
  type ReservationsErrorCode,
} from '../../src/parking/reservations/index.js';
import { errorCodeOf, STATUS_OF_KIND } from '../../src/http/parking/reservations-errors.js';

describe('reservations error catalog', () => {
  const docs = readFileSync(new URL('../../docs/reservations.md', import.meta.url), 'utf8');
  for (const code of Object.keys(RESERVATIONS_ERRORS) as ReservationsErrorCode[]) {
    it(`${code} has an HTTP status, a Users ErrorCode and a line in docs/reservations.md`, () => {
      const e = new ReservationsError(code, 'x');
      expect(STATUS_OF_KIND[e.kind]).toBeGreaterThanOrEqual(400);
      expect([1, 2, 3, -1, 1004, 1005]).toContain(errorCodeOf(e));
      expect(docs).toContain(`\`${code}\``);
    });
  }
});
