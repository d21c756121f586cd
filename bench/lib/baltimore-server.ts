/**
 * What the server benchmarks share: Baltimore imported into a fresh data directory, an
 * application created in its database (`admin` for probe feeds), the compiled server started on
 * it with `env`, and the app's token.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importRegion, loadRegion } from '../../src/network/index.js';
import type { Region } from '../../src/network/region.js';
import { allMigrations } from '../../src/app/migrations.js';
import { createApp, hashTokenFor } from '../../src/auth/index.js';
import { openDbFull, openPostgres, runMigrations, type Db } from '../../src/store/index.js';
import { appToken, startServer, type ServerProcess } from '../../test/helpers/processes.js';
import { ensureBuilt } from './built.js';

/** The extract the server benchmarks serve. */
export const BALTIMORE_PBF = '../shared/data/baltimore.osm.pbf';

/** A data directory with Baltimore imported as region `baltimore`; `remove()` deletes it. */
export async function baltimoreDataDir(
  prefix: string,
): Promise<{ dataDir: string; region: Region; remove: () => void } | undefined> {
  if (!existsSync(BALTIMORE_PBF)) return undefined;
  ensureBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  await importRegion(BALTIMORE_PBF, join(dataDir, 'regions', 'baltimore'), { name: 'baltimore' });
  return {
    dataDir,
    region: loadRegion(join(dataDir, 'regions', 'baltimore')),
    remove: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** Creates an app in the database (embedded in `dataDir`, or `databaseUrl`), starts the server, returns it and a token. */
export async function startBaltimoreServer(
  dataDir: string,
  opts: {
    databaseUrl?: string;
    admin?: boolean;
    env?: Record<string, string>;
    nodeArgs?: string[];
    /** how long the server may take to start, ms (default 10 minutes) */
    timeoutMs?: number;
  } = {},
): Promise<{ server: ServerProcess; token: string }> {
  const db: Db = opts.databaseUrl ? await openPostgres(opts.databaseUrl) : (await openDbFull({ dataDir }, 'bench')).db;
  await runMigrations(db, allMigrations());
  const app = await createApp(db, { name: 'bench', admin: opts.admin ?? false });
  await db.close();
  const server = await startServer(
    {
      DATA_DIR: dataDir,
      REGION: 'baltimore',
      ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
      ...opts.env,
    },
    opts.timeoutMs ?? 600_000,
    opts.nodeArgs ?? [],
    true,
  );
  const token = (await appToken(server.url, app.appId, hashTokenFor(app.appId, app.appKey))).token!;
  return { server, token };
}
