/**
 * Start-up of a serving process: make sure the region exists (the demo city is generated on the
 * first start), load it, open and migrate the database, restore learned/live speeds, and on the
 * first start of the demo in a database load its parking data and run its traffic simulation.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../config/load.js';
import { loadRegion, regionExists } from '../network/index.js';
import { createDemoRegion } from '../demo/create-demo-region.js';
import { openDb, runMigrations, type Db } from '../store/index.js';
import { allMigrations } from './migrations.js';
import { DbAuthService } from '../auth/index.js';
import { SpeedFeeds } from '../traffic/feeds.js';
import { loadSpeedFeeds } from '../traffic/learned-speeds.js';
import { refreshLiveSpeeds } from '../traffic/live-speeds.js';
import type { AppContext } from './context.js';
import { ensureDemoApp, isDone, markDone, type DemoCredentials } from './demo-app.js';
import { loadParkingDocument } from './parking-upload.js';
import { runDemoTraffic } from './demo-traffic.js';

/** The started context, the demo app's credentials when serving the demo, and a closer. */
export interface Started {
  ctx: AppContext;
  demoApp?: DemoCredentials;
  close: () => Promise<void>;
}

/** Brings up everything `serve` needs; `log` receives human-readable progress lines. */
export async function bootstrap(config: Config, log: (line: string) => void): Promise<Started> {
  const regionDir = join(config.store.dataDir, 'regions', config.region.name);
  const isDemo = config.region.name === 'demo';
  if (!regionExists(regionDir)) {
    if (!isDemo || !config.region.demoIfMissing) {
      throw new ConfigError(`region "${config.region.name}" not found in ${regionDir}: import one with \`streetwise import <file.osm.pbf> --name ${config.region.name}\``);
    }
    log(`generating the demo city (seed ${config.region.demoSeed}) and importing it…`);
    const r = await createDemoRegion(config.store.dataDir, { seed: config.region.demoSeed });
    log(`demo region: ${r.imported.nodes} nodes, ${r.imported.edges} edges, ${r.imported.intersections} intersections, ${r.imported.lots} lots`);
  }
  const t0 = Date.now();
  const region = loadRegion(regionDir);
  log(`region "${region.meta.name}" loaded in ${Date.now() - t0} ms (${region.graph.nodeCount} nodes, ${region.graph.edgeCount} edges)`);

  const db: Db = await openDb({ databaseUrl: config.store.databaseUrl || undefined, dataDir: config.store.dataDir });
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
      const r = await loadParkingDocument(db, JSON.parse(await readFile(upload, 'utf8')));
      log(`demo parking data: ${r.lots} lots, ${r.blocks} blocks, ${r.products} products`);
      if (config.region.demoSimulate) {
        log('simulating demo traffic (first start only)…');
        const s = await runDemoTraffic(ctx, log);
        log(`demo traffic: ${s.vehicles} vehicles, ${s.pings} pings, ${s.trajectories} trajectories, ${s.facts} intersection facts`);
      }
      await markDone(db, key, { at: new Date().toISOString() });
    }
  }
  const fed = await loadSpeedFeeds(db, region.graph, speeds, { mapVersion: region.meta.mapVersion, nowS: Date.now() / 1000 });
  if (fed.learnedEdges || fed.liveEdges) log(`speeds: ${fed.learnedEdges} edges with learned profiles, ${fed.liveEdges} with live speeds`);
  // Several processes may share the database: pick up live speeds others ingested, and drop old ones.
  const SPEED_REFRESH_MS = 60_000;
  const timer = setInterval(() => {
    const nowS = Date.now() / 1000;
    speeds.expireLive(nowS - 3600);
    refreshLiveSpeeds(db, speeds, region.meta.mapVersion, nowS).catch((err: unknown) => log(`live speed refresh failed: ${String(err)}`));
  }, SPEED_REFRESH_MS);
  timer.unref();
  return {
    ctx, demoApp,
    close: async () => {
      clearInterval(timer);
      await db.close();
    },
  };
}
