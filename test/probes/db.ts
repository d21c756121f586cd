/** Test database for probe tests: PGlite in memory with the probe migrations applied. */
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { migrations } from '../../src/probes/migrations.js';

/** Opens an in-memory PGlite with the probe pipeline's tables. */
export async function openProbeTestDb(): Promise<Db> {
  const db = await openPglite();
  await runMigrations(db, migrations);
  return db;
}
