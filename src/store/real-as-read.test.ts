import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { openPglite, realAsRead, type Db } from './index.js';
import { createRng } from '../sim/prng.js';

// What a `real` column gives back, emulated, against PostgreSQL's own output (embedded).
describe('realAsRead', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(async () => {
    await db.close();
  });

  it('equals the value read back from a real column, for fractions, lengths and float4 edge cases', async () => {
    const rnd = createRng(20261125).next;
    const xs: number[] = [0, 1, 0.5, 0.1, 1 / 3, 2 / 3, 0.999999, 1e-7, 123.456, 65504.5, -0.25, -17.3];
    for (let i = 0; i < 6000; i++) xs.push(rnd(), rnd() * 500, rnd() * 1e-3, Math.round(rnd() * 1e6) / 1e6);
    // around powers of two, where a float4's rounding interval is lopsided
    for (let k = -20; k <= 12; k++) {
      const p = 2 ** k;
      for (const d of [-3, -2, -1, 0, 1, 2, 3]) {
        const f = new Float32Array([p]);
        const u = new Uint32Array(f.buffer);
        u[0] += d;
        xs.push(f[0]);
      }
    }
    const rows = (
      await db.query<{ v: number }>(
        'SELECT v FROM unnest($1::float8[]) WITH ORDINALITY AS t(x, i), LATERAL (SELECT x::real AS v) r ORDER BY i',
        [xs],
      )
    ).rows;
    const got = rows.map((r) => Number(r.v));
    const want = xs.map(realAsRead);
    const diff = xs.filter((_, i) => !Object.is(got[i], want[i])).slice(0, 5);
    expect(diff).toEqual([]);
  });
});
