/** Database access: the port, both backends and the migration runner. */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Db } from './db.js';
import { openPglite } from './pglite-db.js';
import { openPostgres } from './postgres-db.js';

export type { Db, Queryable, QueryResult, Migration } from './db.js';
export { runMigrations, splitStatements } from './migrate.js';
export { openPglite } from './pglite-db.js';
export { openPostgres } from './postgres-db.js';

/** Where the database is: a PostgreSQL URL, or PGlite files under a data directory, or memory. */
export interface DbLocation {
  /** postgres://… — when set, PostgreSQL is used */
  databaseUrl?: string;
  /** data directory: PGlite files go to `<dataDir>/db`; omitted = in memory */
  dataDir?: string;
}

/** Opens the configured backend: PostgreSQL when a URL is given, PGlite otherwise. */
export async function openDb(loc: DbLocation): Promise<Db> {
  if (loc.databaseUrl) return openPostgres(loc.databaseUrl);
  if (!loc.dataDir) return openPglite();
  const dir = join(loc.dataDir, 'db');
  mkdirSync(dir, { recursive: true });
  return openPglite(dir);
}
