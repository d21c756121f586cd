/** What every CLI command gets: the configuration and a way to use the migrated database. */
import type { Config } from '../config/schema.js';
import type { Db } from '../store/db.js';
import type { ServerClient } from './server-client.js';

export interface CliDeps {
  /** configuration from the global flags and the environment (loaded lazily, validated) */
  config: () => Config;
  /**
   * opens the database, runs migrations, calls fn, closes. With the embedded database it holds
   * the data directory's lock meanwhile (DataDirBusyError when another process has it).
   */
  withDb: <T>(fn: (db: Db) => Promise<T>) => Promise<T>;
  /**
   * the server that owns the embedded database, when one runs: commands then go through its
   * admin API instead of opening the database (undefined with PostgreSQL or no server)
   */
  server: () => Promise<ServerClient | undefined>;
  /** whether the region was named (--region or REGION), not left to the default */
  regionGiven: () => boolean;
}
