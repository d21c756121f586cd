/**
 * Start-up of a `serve` process: own and open the database, make sure the region exists (the demo
 * city is generated on the first start) and load it, migrate, and on the first start of the demo
 * in a database load its parking data and run its traffic simulation. The roles are started by
 * `cli/serve.ts`: serving threads (`serving/`), which load speeds and follow the change log
 * themselves, and the ingestion thread (`ingestion/`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../config/load.js';
import { loadRegion, regionExists, regionIsCurrent } from '../network/index.js';
import { createDemoRegion } from '../demo/create-demo-region.js';
import { openDbFull, runMigrations, type EmbeddedDb, type OpenedDb } from '../store/index.js';
import { pruneChanges } from '../store/changes.js';
import { allMigrations } from './migrations.js';
import { DbAuthService } from '../auth/index.js';
import { SpeedFeeds } from '../traffic/feeds.js';
import { ensureOperatorApp, removeOperatorCredentials } from './operator.js';
import type { AppContext } from './context.js';
import { ensureDemoApp, isDone, markDone, type DemoCredentials } from './demo-app.js';
import { loadParkingDocument } from './parking-upload.js';
import { runDemoTraffic } from './demo-traffic.js';

/**
 * The started process: a context (used for the demo's first start; requests are served by the
 * serving threads, which build their own), the demo app's credentials when serving the demo, what
 * serving threads connect to, and a closer.
 */
export interface Started {
  ctx: AppContext;
  demoApp?: DemoCredentials;
  regionDir: string;
  /** the embedded database's owner handle (undefined with PostgreSQL) */
  embedded?: EmbeddedDb;
  /** Tells other processes where this server answers (once it listens). */
  listening: (url: string) => void;
  close: () => Promise<void>;
}

/**
 * Brings up everything `serve` needs; `log` receives human-readable progress lines. With the
 * embedded database it first takes the data directory's lock (DataDirBusyError when another
 * process holds it), so nothing is written before this process owns the directory.
 */
export async function bootstrap(config: Config, log: (line: string) => void): Promise<Started> {
  const databaseUrl = config.store.databaseUrl || undefined;
  // the embedded database's thread runs below the serving threads: under a feed it mostly writes for ingestion
  const { db, embedded, lock } = await openDbFull({ databaseUrl, dataDir: config.store.dataDir }, 'serve', { nice: 5 });
  const closers: Array<() => Promise<void>> = [() => db.close()];
  const closeAll = async (): Promise<void> => {
    for (const c of closers.reverse()) await c().catch((err: unknown) => log(`shutdown: ${String(err)}`));
  };
  try {
    return await start(config, log, { db, embedded, lock, closers, closeAll });
  } catch (err) {
    await closeAll();
    throw err;
  }
}

async function start(
  config: Config,
  log: (line: string) => void,
  opened: OpenedDb & { closers: Array<() => Promise<void>>; closeAll: () => Promise<void> },
): Promise<Started> {
  const { db, embedded, lock, closers } = opened;
  const regionDir = join(config.store.dataDir, 'regions', config.region.name);
  const isDemo = config.region.name === 'demo';
  // the demo city is generated data: an import of an older layout is generated again
  const stale = isDemo && config.region.demoIfMissing && regionExists(regionDir) && !regionIsCurrent(regionDir);
  if (stale) log('the demo city was imported by an older version of streetwise: generating it again');
  if (!regionExists(regionDir) || stale) {
    if (!isDemo || !config.region.demoIfMissing) {
      throw new ConfigError(
        `region "${config.region.name}" not found in ${regionDir}: import one with \`streetwise import <file.osm.pbf> --name ${config.region.name}\``,
      );
    }
    log(`generating the demo city (seed ${config.region.demoSeed}) and importing it…`);
    const r = await createDemoRegion(config.store.dataDir, { seed: config.region.demoSeed });
    log(
      `demo region: ${r.imported.nodes} nodes, ${r.imported.edges} edges, ${r.imported.intersections} intersections, ${r.imported.lots} lots`,
    );
  }
  const t0 = Date.now();
  const region = loadRegion(regionDir);
  log(
    `region "${region.meta.name}" loaded in ${Date.now() - t0} ms (${region.graph.nodeCount} nodes, ${region.graph.edgeCount} edges)`,
  );

  await runMigrations(db, allMigrations());
  const auth = new DbAuthService(db);
  const speeds = new SpeedFeeds();
  const ctx: AppContext = { config, db, region, speeds, auth, now: Date.now };

  let demoApp: DemoCredentials | undefined;
  if (isDemo) {
    demoApp = await ensureDemoApp(db, config.store.dataDir);
    const key = `demo-data:${region.meta.mapVersion}`;
    if (!(await isDone(db, key))) {
      const upload = join(config.store.dataDir, 'demo', 'parking-upload.json');
      const r = await loadParkingDocument(db, region.meta.name, JSON.parse(await readFile(upload, 'utf8')));
      log(`demo parking data: ${r.lots} lots, ${r.blocks} blocks, ${r.products} products`);
      if (config.region.demoSimulate) {
        log('simulating demo traffic (first start only)…');
        const s = await runDemoTraffic(ctx, log);
        log(
          `demo traffic: ${s.vehicles} vehicles, ${s.pings} pings, ${s.trajectories} trajectories, ${s.facts} intersection facts`,
        );
      }
      await markDone(db, key, { at: new Date().toISOString() });
    }
  }
  if (embedded) {
    // CLI commands run while this server owns the database go through its admin API with these
    await ensureOperatorApp(db, config.store.dataDir);
    closers.push(async () => removeOperatorCredentials(config.store.dataDir));
  }
  // old change log rows are pruned
  const timer = setInterval(() => {
    pruneChanges(db).catch((err: unknown) => log(`change log prune failed: ${String(err)}`));
  }, 60_000);
  timer.unref();
  closers.push(async () => clearInterval(timer));
  return {
    ctx,
    demoApp,
    regionDir,
    embedded,
    listening: (url) => lock?.update({ url }),
    close: opened.closeAll,
  };
}
