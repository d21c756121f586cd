/** The embedded backend: PGlite (PostgreSQL in WebAssembly, in-process), files under a directory. */
import { PGlite } from '@electric-sql/pglite';
import type { Db, QueryResult, Queryable } from './db.js';

function wrap(q: Pick<PGlite, 'query'>): Queryable {
  return {
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      const r = await q.query<T>(sql, params as unknown[] | undefined);
      return { rows: r.rows, rowCount: r.affectedRows ?? 0 };
    },
  };
}

/**
 * Opens PGlite: persistent when `dataDir` is given (created if missing), in memory otherwise.
 * PGlite has one connection: transactions are serialised, so inside `transaction(fn)` every
 * statement must go through `tx` (using the outer Db there would wait forever).
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  const pg = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
  const base = wrap(pg);
  return {
    kind: 'pglite',
    query: base.query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return pg.transaction((tx) => fn(wrap(tx)));
    },
    async exec(sql: string): Promise<void> {
      await pg.exec(sql);
    },
    async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
      const unlisten = await pg.listen(channel, onNotify);
      return async () => {
        await unlisten();
      };
    },
    async close(): Promise<void> {
      await pg.close();
    },
  };
}
