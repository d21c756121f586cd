/** What every CLI command gets: the configuration and a way to use the migrated database. */
import type { Config } from '../config/schema.js';
import type { Db } from '../store/db.js';

export interface CliDeps {
  /** configuration from the global flags and the environment (loaded lazily, validated) */
  config: () => Config;
  /** opens the database, runs migrations, calls fn, closes */
  withDb: <T>(fn: (db: Db) => Promise<T>) => Promise<T>;
}
