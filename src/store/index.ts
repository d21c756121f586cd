/** Database access: the port, both backends, the embedded database's thread and lock, the migration runner. */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Db } from './db.js';
import { openPglite } from './pglite-db.js';
import { openPostgres } from './postgres-db.js';
import { openEmbedded, type EmbeddedDb } from './remote-db.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';

export type { Db, Queryable, QueryResult, Migration } from './db.js';
export { runMigrations, splitStatements } from './migrate.js';
export { realAsRead } from './db.js';
export { openPglite } from './pglite-db.js';
export { openPostgres } from './postgres-db.js';
export { openEmbedded, remoteDb, type EmbeddedDb } from './remote-db.js';
export {
  acquireDataDirLock,
  findDataDirOwner,
  describeOwner,
  DataDirBusyError,
  type DataDirLock,
  type DataDirOwner,
} from './data-dir-lock.js';

/** Where the database is: a PostgreSQL URL, or PGlite files under a data directory, or memory. */
export interface DbLocation {
  /** postgres://… — when set, PostgreSQL is used */
  databaseUrl?: string;
  /** data directory: PGlite files go to `<dataDir>/db`; omitted = in memory */
  dataDir?: string;
}

/** An opened database; `embedded` and `lock` are set for PGlite files under a data directory. */
export interface OpenedDb {
  db: Db;
  /** the embedded database's owner handle (to connect other threads) */
  embedded?: EmbeddedDb;
  /** this process's hold on the data directory (released by `db.close()`) */
  lock?: DataDirLock;
}

/**
 * Opens the configured backend: PostgreSQL when a URL is given; otherwise PGlite files under
 * `<dataDir>/db`, in their own thread (at `opts.nice`), after taking the data directory's lock for
 * `role` (throws DataDirBusyError when another process holds it); PGlite in memory without either.
 */
export async function openDbFull(loc: DbLocation, role = 'cli', opts: { nice?: number } = {}): Promise<OpenedDb> {
  if (loc.databaseUrl) return { db: await openPostgres(loc.databaseUrl) };
  if (!loc.dataDir) return { db: await openPglite() };
  const lock = await acquireDataDirLock(loc.dataDir, role);
  try {
    const dir = join(loc.dataDir, 'db');
    mkdirSync(dir, { recursive: true });
    const embedded = await openEmbedded(dir, opts);
    const close = embedded.close;
    const db: EmbeddedDb = {
      ...embedded,
      async close() {
        try {
          await close();
        } finally {
          await lock.release();
        }
      },
    };
    return { db, embedded: db, lock };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/** `openDbFull` for callers that need only the `Db`. */
export async function openDb(loc: DbLocation, role = 'cli'): Promise<Db> {
  return (await openDbFull(loc, role)).db;
}
