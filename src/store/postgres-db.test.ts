import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import type { Db } from './index.js';
import { asParam } from './postgres-db.js';
import { openTestPostgres, withoutPostgres } from '../../test/helpers/context.js';
import { createRng } from '../sim/prng.js';

describe('PostgreSQL parameters and sessions', () => {
  it('builds literals for flat arrays and leaves everything else to pg', () => {
    expect(asParam([1, 2.5, null, -0.125])).toBe('{1,2.5,NULL,-0.125}');
    expect(asParam(['a', 'b"c', 'd\\e', ''])).toBe('{"a","b\\"c","d\\\\e",""}');
    expect(asParam([true, false])).toBe('{true,false}');
    expect(asParam('x')).toBe('x');
    const nested = [[1, 2]];
    expect(asParam(nested)).toBe(nested);
    const dates = [new Date(0)];
    expect(asParam(dates)).toBe(dates);
  });

  // what PostgreSQL reads back from the literal is the value sent
  describe.skipIf(withoutPostgres)('read back by PostgreSQL', () => {
    let pg: { db: Db; drop: () => Promise<void> } | undefined;
    beforeAll(async () => {
      pg = await openTestPostgres();
    });
    afterAll(async () => {
      await pg?.drop();
    });

    it('runs with JIT compilation off, on every connection of the pool', async () => {
      if (pg === undefined) throw new Error('PostgreSQL did not open');
      const shown = await Promise.all(
        Array.from({ length: 4 }, () =>
          pg!.db.transaction(async (tx) => (await tx.query<{ jit: string }>('SHOW jit')).rows[0].jit),
        ),
      );
      expect(shown).toEqual(['off', 'off', 'off', 'off']);
    });

    it('round-trips text with quotes, backslashes, braces, commas, blanks, NULL-like words and unicode', async () => {
      if (pg === undefined) throw new Error('PostgreSQL did not open');
      const xs: Array<string | null> = [
        '',
        ' ',
        'NULL',
        'null',
        '{a,b}',
        'a,b',
        '"',
        '\\',
        '\\"',
        'x\\\\y',
        'tab\there',
        'line\nbreak',
        'é—中文',
        'trace-1',
        null,
        ' lead',
        'trail ',
      ];
      const rows = (
        await pg.db.query<{ v: string | null }>(
          'SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS t(v, i) ORDER BY i',
          [xs],
        )
      ).rows;
      expect(rows.map((r) => r.v)).toEqual(xs);
    });

    it('round-trips float8 values exactly, with NaN, infinities and extremes', async () => {
      if (pg === undefined) throw new Error('PostgreSQL did not open');
      const rnd = createRng(20261126).next;
      const xs: number[] = [
        0,
        1,
        -1,
        0.1,
        1 / 3,
        1e-300,
        5e-324,
        1.7976931348623157e308,
        1e21,
        123456789.12345679,
        Infinity,
        -Infinity,
        NaN,
      ];
      for (let i = 0; i < 2000; i++) xs.push((rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20));
      const rows = (
        await pg.db.query<{ v: number }>('SELECT v FROM unnest($1::float8[]) WITH ORDINALITY AS t(v, i) ORDER BY i', [
          xs,
        ])
      ).rows;
      const got = rows.map((r) => Number(r.v));
      expect(got.filter((g, i) => !Object.is(g, xs[i]))).toEqual([]);
    });
  });
});
