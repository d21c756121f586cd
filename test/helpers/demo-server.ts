/**
 * A real demo server for browser tests: a fresh data directory, the demo city generated,
 * imported, its parking loaded and its traffic simulated exactly as on a first `streetwise serve`
 * (`bootstrap`), served over HTTP on a random loopback port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppContext } from '../../src/app/context.js';
import { bootstrap } from '../../src/app/bootstrap.js';
import { loadConfig } from '../../src/config/load.js';
import { buildApp } from '../../src/http/app.js';
import { loadSpeedFeeds } from '../../src/traffic/learned-speeds.js';
import { latestChangeSeq } from '../../src/store/changes.js';
import { followChanges } from '../../src/app/follow-changes.js';

export interface DemoServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  ctx: AppContext;
  demoApp: { appId: string; appKey: string };
  close: () => Promise<void>;
}

/** Starts the demo server; call `close()` when done (removes the data directory). */
export async function startDemoServer(log: (line: string) => void = () => undefined): Promise<DemoServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-console-'));
  const config = loadConfig(
    { 'store.dataDir': dataDir, 'store.databaseUrl': '', 'region.name': 'demo', 'server.logLevel': 'silent' },
    {},
  );
  const started = await bootstrap(config, log);
  // what a serving thread does: the speeds from the database, then the change log
  const { ctx } = started;
  const fromSeq = await latestChangeSeq(ctx.db);
  await loadSpeedFeeds(ctx.db, ctx.region.graph, ctx.speeds, {
    mapVersion: ctx.region.meta.mapVersion,
    nowS: ctx.now() / 1000,
  });
  ctx.changes = await followChanges(ctx, fromSeq, (err) => log(`change log: ${String(err)}`));
  const app = await buildApp(ctx, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  started.listening(`http://127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}`,
    ctx: started.ctx,
    demoApp: started.demoApp!,
    close: async () => {
      await app.close();
      await ctx.changes?.stop();
      await started.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
