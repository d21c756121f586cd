/** The server backend: PostgreSQL through a `pg` connection pool. */
import pg from 'pg';
import type { Db, QueryResult, Queryable } from './db.js';

// BIGINT (int8) as JS numbers, like PGlite: every id we store is below 2^53.
pg.types.setTypeParser(20, (v: string) => Number(v));

/** Opens a pool on `url` (postgres://…) and checks the connection. */
export async function openPostgres(url: string, opts: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  pool.on('error', () => {
    /* idle client errors are reported on the next query; keep the process alive */
  });
  const client = await pool.connect();
  client.release();
  const run = async <T>(c: Pick<pg.Pool, 'query'>, sql: string, params?: unknown[]): Promise<QueryResult<T>> => {
    const r = await c.query(sql, params as unknown[] | undefined);
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  };
  return {
    kind: 'postgres',
    query: <T>(sql: string, params?: unknown[]) => run<T>(pool, sql, params),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const result = await fn({ query: <U>(sql: string, params?: unknown[]) => run<U>(c, sql, params) });
        await c.query('COMMIT');
        return result;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        c.release();
      }
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
}
