/**
 * The `streetwise` command line. Global flags set configuration (they win over environment
 * variables; see `streetwise --help` and the README's configuration table).
 */
import { Command, Option } from 'commander';
import { loadConfig, ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { allMigrations } from '../app/migrations.js';
import { DataDirBusyError, openDb, runMigrations, type Db } from '../store/index.js';
import type { CliDeps } from './deps.js';
import { owningServer } from './server-client.js';
import { registerServe } from './serve.js';
import { registerApps } from './apps.js';
import { registerImport } from './import.js';
import { registerDemo } from './demo.js';
import { registerIngest } from './ingest.js';
import { registerSimulate } from './simulate.js';
import { registerParking } from './parking.js';
import { registerAnalytics } from './analytics.js';
import { registerExportSpeeds } from './export-speeds.js';

const program = new Command('streetwise')
  .description('Routing, parking and intersection analytics APIs on your own OpenStreetMap region.')
  .showHelpAfterError()
  // `streetwise serve --help` lists the settings (global flags) too
  .configureHelp({ showGlobalOptions: true })
  .addOption(new Option('--data-dir <dir>', 'data directory (embedded database, regions, demo files) [env DATA_DIR]'))
  .addOption(
    new Option(
      '--database-url <url>',
      'PostgreSQL URL; default: embedded PGlite in the data directory [env DATABASE_URL]',
    ),
  )
  .addOption(new Option('--region <name>', 'region to serve / write (default demo) [env REGION]'))
  .addOption(new Option('--port <port>', 'HTTP port (default 8080) [env PORT]'))
  .addOption(new Option('--host <host>', 'interface to bind (default 127.0.0.1) [env HOST]'))
  .addOption(
    new Option(
      '--threads <n>',
      'threads answering HTTP requests, 0 = one per CPU core (default 0) [env SERVING_THREADS]',
    ),
  )
  .addOption(new Option('--services <list>', 'APIs to serve: routing,parking,analytics [env SERVICES]'))
  .addOption(
    new Option(
      '--roles <list>',
      'what serve runs: serving (HTTP), ingestion (probe processing); default both [env ROLES]',
    ),
  )
  .addOption(
    new Option('--nats-url <url>', 'ingestion role: NATS JetStream probe feed to consume [env PROBES_NATS_URL]'),
  )
  .addOption(new Option('--nats-subject <subject>', 'ingestion role: subject of that feed [env PROBES_NATS_SUBJECT]'))
  .addOption(new Option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent [env LOG_LEVEL]'));

let config: Config | undefined;
let server: ReturnType<typeof owningServer> | undefined;
/** the command being run ("apps create"), named in the data directory's lock */
let commandPath = 'cli';
program.hook('preAction', (_root, action) => {
  const names: string[] = [];
  for (let c: Command | null = action; c !== null && c !== program; c = c.parent) names.unshift(c.name());
  commandPath = names.join(' ') || 'cli';
});
const deps: CliDeps = {
  config: () => {
    if (!config) {
      const o = program.opts<Record<string, string | undefined>>();
      config = loadConfig({
        'store.dataDir': o.dataDir,
        'store.databaseUrl': o.databaseUrl,
        'region.name': o.region,
        'server.port': o.port,
        'server.host': o.host,
        'server.services': o.services,
        'server.roles': o.roles,
        'probes.natsUrl': o.natsUrl,
        'probes.natsSubject': o.natsSubject,
        'server.threads': o.threads,
        'server.logLevel': o.logLevel,
      });
    }
    return config;
  },
  withDb: async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    const c = deps.config();
    const db = await openDb({ databaseUrl: c.store.databaseUrl || undefined, dataDir: c.store.dataDir }, commandPath);
    try {
      await runMigrations(db, allMigrations());
      return await fn(db);
    } finally {
      await db.close();
    }
  },
  server: () => (server ??= owningServer(deps.config())),
  regionGiven: () => program.opts<Record<string, string | undefined>>().region !== undefined || !!process.env.REGION,
};

registerServe(program, deps);
registerImport(program, deps);
registerDemo(program, deps);
registerApps(program, deps);
registerIngest(program, deps);
registerSimulate(program, deps);
registerParking(program, deps);
registerAnalytics(program, deps);
registerExportSpeeds(program, deps);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof DataDirBusyError) {
    console.error(`error: ${err.message}.`);
    console.error(
      err.owner.role === 'serve'
        ? 'Stop that server first, or use another --data-dir (or DATABASE_URL for several processes on one database).'
        : 'Wait until it has finished, or use another --data-dir.',
    );
    process.exit(3);
  }
  console.error(err instanceof Error ? `error: ${err.message}` : err);
  process.exit(1);
}
