/**
 * Test context: an in-memory PGlite with every migration, the Fastify app built on it (use
 * `app.inject`, no port), and two app tokens (normal and admin).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app/context.js';
import { allMigrations } from '../../src/app/migrations.js';
import { DbAuthService, createApp, hashTokenFor } from '../../src/auth/index.js';
import { loadConfig } from '../../src/config/load.js';
import { buildApp } from '../../src/http/app.js';
import type { Region } from '../../src/network/region.js';
import { openPglite, openPostgres, runMigrations, type Db } from '../../src/store/index.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { tinyRegion } from './tiny-region.js';
import { IngestionWorker } from '../../src/app/ingestion/worker.js';
import { soloLeases } from '../../src/store/partition-leases.js';
import { PARTITIONS } from '../../src/probes/partition.js';
import { latestChangeSeq } from '../../src/store/changes.js';
import { followChanges } from '../../src/app/follow-changes.js';

export interface TestContext {
  ctx: AppContext;
  app: FastifyInstance;
  /** app token of a normal application */
  token: string;
  /** app token of an admin application */
  adminToken: string;
  /** the normal app's credentials */
  appId: string;
  appKey: string;
  close: () => Promise<void>;
}

/** Options of `makeTestContext`. */
export interface TestContextOptions {
  region?: Region;
  /** fixed clock, unix ms (default: real clock) */
  now?: () => number;
  /** use this database instead of a fresh in-memory PGlite (migrations are still run) */
  db?: Db;
  /** config overrides as flag keys, e.g. { 'server.services': 'routing' } */
  config?: Record<string, string>;
  /** log to this stream (level from `server.logLevel`); default: no logging */
  logStream?: { write(line: string): void };
  /**
   * run an ingestion worker on the database (every partition) and follow the change log into
   * `ctx.speeds`, as a `serve` process does; default false (probe posts then stay pending)
   */
  ingestion?: boolean;
}

/** Builds a fresh context and app. Call `close()` in afterAll. */
export async function makeTestContext(opts: TestContextOptions = {}): Promise<TestContext> {
  const db = opts.db ?? (await openPglite());
  await runMigrations(db, allMigrations());
  const now = opts.now ?? Date.now;
  const config = loadConfig({ 'store.dataDir': '/tmp/streetwise-test', ...opts.config }, {});
  const auth = new DbAuthService(db, now);
  const ctx: AppContext = { config, db, region: opts.region ?? tinyRegion(), speeds: new SpeedFeeds(), auth, now };
  let worker: IngestionWorker | undefined;
  if (opts.ingestion) {
    worker = new IngestionWorker({
      db,
      region: ctx.region,
      leases: async () => soloLeases(db, PARTITIONS),
      pollMs: 200,
    });
    worker.start();
    ctx.ingestion = { workers: async () => 1 };
    ctx.changes = await followChanges(ctx, await latestChangeSeq(db), (err) => {
      throw err;
    });
  }
  const app = await buildApp(ctx, { logger: opts.logStream !== undefined, logStream: opts.logStream });
  await app.ready();
  const normal = await createApp(db, { name: 'test app' });
  const admin = await createApp(db, { name: 'test admin', admin: true });
  const token = (await auth.issueAppToken(normal.appId, hashTokenFor(normal.appId, normal.appKey))).token;
  const adminToken = (await auth.issueAppToken(admin.appId, hashTokenFor(admin.appId, admin.appKey))).token;
  return {
    ctx,
    app,
    token,
    adminToken,
    appId: normal.appId,
    appKey: normal.appKey,
    close: async () => {
      await app.close();
      await ctx.changes?.stop();
      await worker?.stop();
      if (!opts.db) await db.close();
    },
  };
}

/** The PostgreSQL test database URL (CI sets TEST_DATABASE_URL), or undefined. */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

/**
 * True when PostgreSQL suites should skip (visibly, with `describe.skipIf`): no TEST_DATABASE_URL
 * outside CI. Under CI=true they run, and `openTestPostgres` fails on a missing URL.
 */
export const withoutPostgres = !testDatabaseUrl() && process.env.CI !== 'true';

/**
 * Opens a PostgreSQL database in a fresh schema (so tests don't see each other's rows), or
 * returns undefined when TEST_DATABASE_URL is unset. Under CI=true an unset URL is an error.
 */
export async function openTestPostgres(): Promise<{ db: Db; drop: () => Promise<void> } | undefined> {
  const url = testDatabaseUrl();
  if (!url) {
    if (process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set under CI=true');
    console.warn('TEST_DATABASE_URL is not set: skipping the PostgreSQL run of this suite');
    return undefined;
  }
  const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = await openPostgres(url);
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.close();
  const sep = url.includes('?') ? '&' : '?';
  const db = await openPostgres(`${url}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`);
  return {
    db,
    drop: async () => {
      await db.close();
      const a = await openPostgres(url);
      await a.query(`DROP SCHEMA ${schema} CASCADE`);
      await a.close();
    },
  };
}
