import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openPglite, runMigrations, splitStatements, type Db, type Migration } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';
import { openTestPostgres } from '../helpers/context.js';

const demoMigrations: Migration[] = [
  {
    version: 9001,
    name: 'items',
    sql: 'CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, price numeric(10,2), tags jsonb); -- a comment; with a semicolon\nCREATE INDEX items_name ON items (name)',
  },
  {
    version: 9002,
    name: 'function with dollar quotes',
    sql: "CREATE FUNCTION twice(x int) RETURNS int AS $$ SELECT x * 2; $$ LANGUAGE sql; INSERT INTO items VALUES (1, 'it''s; fine', 9.99, '{\"a\": 1}')",
  },
];

/** The same store suite for every backend. */
function storeSuite(name: string, open: () => Promise<{ db: Db; close: () => Promise<void> } | undefined>) {
  describe(`store on ${name}`, () => {
    let db: Db | undefined;
    let close: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      const r = await open();
      db = r?.db;
      close = r?.close;
    });
    afterAll(async () => {
      await close?.();
    });

    it('applies migrations once and records them', async (t) => {
      if (!db) return t.skip();
      expect(await runMigrations(db, demoMigrations)).toEqual([9001, 9002]);
      expect(await runMigrations(db, demoMigrations)).toEqual([]);
      const r = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(r.rows.map((x) => x.version)).toEqual([9001, 9002]);
    });

    it('round-trips rows with bigint as number, numeric as string and jsonb as object', async (t) => {
      if (!db) return t.skip();
      const r = await db.query<{ id: number; name: string; price: string; tags: unknown; d: number }>(
        'SELECT id, name, price, tags, twice(21) AS d FROM items WHERE id = $1',
        [1],
      );
      expect(r.rows).toEqual([{ id: 1, name: "it's; fine", price: '9.99', tags: { a: 1 }, d: 42 }]);
    });

    it('commits a transaction and rolls back a failed one completely', async (t) => {
      if (!db) return t.skip();
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO items (id, name) VALUES (2, 'two')");
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO items (id, name) VALUES (3, 'three')");
          await tx.query("INSERT INTO items (id, name) VALUES (2, 'duplicate')");
        }),
      ).rejects.toThrow();
      const r = await db.query<{ id: number }>('SELECT id FROM items ORDER BY id');
      expect(r.rows.map((x) => x.id)).toEqual([1, 2]);
      const u = await db.query("UPDATE items SET name = name || '!' WHERE id >= 1");
      expect(u.rowCount).toBe(2);
    });

    it('applies every project migration', async (t) => {
      if (!db) return t.skip();
      const applied = await runMigrations(db, allMigrations());
      expect(applied).toEqual(allMigrations().map((m) => m.version));
      const r = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'applications'",
      );
      expect(r.rows[0].n).toBeGreaterThanOrEqual(1);
    });
  });
}

storeSuite('PGlite', async () => {
  const db = await openPglite();
  return { db, close: () => db.close() };
});

storeSuite('PostgreSQL', async () => {
  const pg = await openTestPostgres();
  return pg && { db: pg.db, close: pg.drop };
});

describe('migrations under concurrency', () => {
  it('two runners starting at once apply each migration exactly once (PostgreSQL)', async (t) => {
    const a = await openTestPostgres();
    if (!a) return t.skip();
    try {
      const results = await Promise.all([runMigrations(a.db, demoMigrations), runMigrations(a.db, demoMigrations)]);
      expect(results.map((r) => r.length).sort()).toEqual([0, 2]);
    } finally {
      await a.drop();
    }
  });
});

describe('splitStatements', () => {
  it('splits on semicolons outside quotes, comments and dollar quotes', () => {
    expect(splitStatements("a; b 'x;y'; -- c;\n $f$ d; $f$; e")).toEqual(['a', "b 'x;y'", '$f$ d; $f$', 'e']);
  });
});
