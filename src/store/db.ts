/**
 * The database port: a tiny interface over PostgreSQL that both backends implement
 * (PGlite embedded, `pg` against a server). Same SQL everywhere; parameters are `$1, $2, …`.
 */

/** Result of a query: rows as plain objects keyed by column name. */
export interface QueryResult<T> {
  rows: T[];
  /** rows affected by INSERT/UPDATE/DELETE (0 when unknown) */
  rowCount: number;
}

/** Something that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

/** The database: queries, transactions, and a way to close it. */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `fn` in a transaction (BEGIN … COMMIT, ROLLBACK on throw). Use `tx` for every statement
   * inside. Isolation is READ COMMITTED unless `fn` sets it; use row locks for capacity checks.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Executes several statements separated by semicolons (no parameters): migrations. */
  exec(sql: string): Promise<void>;
  /**
   * Calls `onNotify` with the payload of every `NOTIFY channel` (`pg_notify`) committed by any
   * process on this database; returns an unsubscribe function. Notifications may be lost when a
   * connection drops: callers that must not miss a change also re-read periodically.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** One versioned migration. Versions are unique integers; see `src/app/migrations.ts` for ranges. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * An `int[]` query parameter as PostgreSQL's array literal (`{1,2,3}`; `null` stays NULL): for
 * thousands of ids one string is far cheaper to send than a JS array the driver escapes element by
 * element. Use with a `$n::int[]` cast.
 */
export function intArrayLiteral(ids: readonly number[] | null): string | null {
  if (ids === null) return null;
  for (const i of ids) if (!Number.isSafeInteger(i)) throw new Error(`not an integer id: ${i}`);
  return `{${ids.join(',')}}`;
}
