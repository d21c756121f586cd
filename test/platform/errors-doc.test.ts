import { describe, it, expect } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { renderErrorsDoc } from '../../src/http/errors-doc.js';

describe('docs/errors.md', () => {
  it('lists every error code of every API with its HTTP status (REGEN=1 rewrites it)', () => {
    const expected = renderErrorsDoc();
    if (process.env.REGEN === '1') writeFileSync('docs/errors.md', expected);
    expect(readFileSync('docs/errors.md', 'utf8')).toBe(expected);
    for (const code of [
      'NO_TOKEN',
      'PARKING_PARAM_CONFLICT',
      'PARKING_RESERVATION_NOT_FOUND',
      'ANALYTICS_INVALID_CURSOR',
      'PROBES_FORBIDDEN',
    ]) {
      expect(expected).toContain(`| ${code} |`);
    }
  });
});
