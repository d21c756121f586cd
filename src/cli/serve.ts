/**
 * `streetwise serve`: own the database, load the region, start this process's roles — the serving
 * threads (HTTP) and the ingestion thread (probe processing) — and print how to talk to it.
 */
import { createServer } from 'node:net';
import type { Command } from 'commander';
import { hashTokenFor } from '../auth/index.js';
import { bootstrap } from '../app/bootstrap.js';
import { startServingThreads, type ServingThreads } from '../app/serving/serving-threads.js';
import { startIngestionThread, type IngestionThread } from '../app/ingestion/ingestion-thread.js';
import { readGraphShared } from '../network/bundle.js';
import type { Config } from '../config/schema.js';
import type { CliDeps } from './deps.js';

/** Adds `serve`. */
export function registerServe(program: Command, deps: CliDeps): void {
  program
    .command('serve')
    .description('serve the routing, parking and analytics APIs (creates the demo region on first start)')
    .addHelpText(
      'after',
      [
        '',
        'Every setting also has an environment variable; the most used for serve:',
        '  PORT / --port, HOST / --host, DATA_DIR / --data-dir, DATABASE_URL / --database-url,',
        '  REGION / --region, SERVING_THREADS / --threads, LOG_LEVEL / --log-level,',
        '  DEMO_SIMULATE (false: no simulated probes on the first start of the demo).',
        "The README's configuration table lists them all.",
      ].join('\n'),
    )
    .action(async () => {
      const config = deps.config();
      const t0 = Date.now();
      const log = (msg: string): void => console.error(msg);
      if (config.server.roles.includes('serving')) await checkPortFree(config.server.host, config.server.port);
      const started = await bootstrap(config, log);
      const { ctx, demoApp, close, listening } = started;
      let closing = false;
      const roles: Roles = {};
      const shutdown = async (why: string, code = 0): Promise<void> => {
        if (closing) return;
        closing = true;
        log(`shutting down (${why})`);
        await roles.threads?.close();
        await roles.ingestion?.close();
        await close();
        process.exit(code);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
      await startRoles(config, started, log, roles);
      const threads = roles.threads;
      const name = ctx.region.meta.name;
      const startS = (Date.now() - t0) / 1000;
      if (threads === undefined) {
        const feed = config.probes.natsUrl
          ? `, consuming ${config.probes.natsSubject} from ${config.probes.natsUrl}`
          : '';
        console.log(`streetwise is ingesting probes of region "${name}" (ready in ${startS.toFixed(1)} s${feed})`);
        return;
      }
      threads.onFailure((err) => void shutdown(`a serving thread failed: ${err.message}`, 1));
      const { url, loopbackUrl } = serverUrls(config.server.host, threads.port);
      listening(loopbackUrl);
      console.log(banner(url, name, startS, demoApp, ctx.region.meta.bounds, threads.count));
    });
}

/** The roles this process runs, once started. */
interface Roles {
  threads?: ServingThreads;
  ingestion?: IngestionThread;
}

/**
 * Starts the ingestion thread and the serving threads `config` asks for, into `roles` as each
 * starts (a shutdown meanwhile closes what runs); on a failure closes what started and the database.
 */
async function startRoles(
  config: Config,
  started: Awaited<ReturnType<typeof bootstrap>>,
  log: (msg: string) => void,
  roles: Roles,
): Promise<void> {
  const databaseUrl = config.store.databaseUrl || undefined;
  const graphBytes = readGraphShared(started.regionDir);
  try {
    if (config.server.roles.includes('ingestion')) {
      roles.ingestion = await startIngestionThread({
        regionDir: started.regionDir,
        graphBytes,
        databaseUrl,
        embedded: started.embedded,
        nats: natsFeedOf(config),
        log,
      });
    }
    if (config.server.roles.includes('serving')) {
      roles.threads = await startServingThreads({
        config,
        regionDir: started.regionDir,
        graphBytes,
        embedded: started.embedded,
        databaseUrl,
      });
    }
  } catch (err) {
    await roles.ingestion?.close();
    await started.close();
    throw err;
  }
}

/**
 * The URL shown for a server on `host:port` (localhost when it listens on all interfaces) and the
 * one CLI commands reach it on (a loopback address then).
 */
function serverUrls(host: string, port: number): { url: string; loopbackUrl: string } {
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const loopback = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
  return { url: `http://${shownHost}:${port}`, loopbackUrl: `http://${loopback}:${port}` };
}

/** Thrown when the HTTP port is taken: names the port and the settings that change it. */
export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(
      `port ${port} on ${host} is already in use by another program. ` +
        `Start on another port with --port <n> (or PORT=<n>), or stop the program listening on ${port}`,
    );
    this.name = 'PortInUseError';
  }
}

/**
 * Fails fast, before the region is loaded, when `host:port` cannot be listened on (EADDRINUSE);
 * port 0 (any free port) always passes. Other listen errors (EACCES for ports under 1024) are
 * reported with their own message and the same hint.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new PortInUseError(host, port));
      else
        reject(
          new Error(
            `cannot listen on ${host}:${port} (${err.code ?? err.message}); choose another with --port <n> or PORT=<n>`,
          ),
        );
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The NATS feed the ingestion role consumes, from the configuration (none when PROBES_NATS_URL is empty). */
function natsFeedOf(
  config: Config,
): { servers: string; subject: string; stream?: string; durable: string } | undefined {
  const p = config.probes;
  if (!p.natsUrl) return undefined;
  return { servers: p.natsUrl, subject: p.natsSubject, stream: p.natsStream || undefined, durable: p.natsDurable };
}

function banner(
  url: string,
  region: string,
  startS: number,
  demo: { appId: string; appKey: string } | undefined,
  bounds: [number, number, number, number],
  threadCount: number,
): string {
  const lines = [
    '',
    `Console: ${url}/  (map, routes, parking, intersections)`,
    `streetwise is serving region "${region}" at ${url}  (ready in ${startS.toFixed(1)} s, ${threadCount} serving thread${threadCount === 1 ? '' : 's'})`,
    `  API docs: ${url}/docs   OpenAPI: ${url}/openapi.json   health: ${url}/healthz`,
  ];
  if (demo) {
    const hash = hashTokenFor(demo.appId, demo.appKey);
    const [minLat, minLon, maxLat, maxLon] = bounds;
    const f = (x: number) => x.toFixed(5);
    const a = `${f(minLat + (maxLat - minLat) * 0.3)},${f(minLon + (maxLon - minLon) * 0.3)}`;
    const b = `${f(minLat + (maxLat - minLat) * 0.7)},${f(minLon + (maxLon - minLon) * 0.7)}`;
    // the parking API takes "lat|lon" (URL-encoded |)
    const c = `${f((minLat + maxLat) / 2)}%7C${f((minLon + maxLon) / 2)}`;
    // local dates of the region lie within a day of the UTC date
    const endDate = new Date(Date.now() + 86400_000).toISOString().slice(0, 10);
    const weekAgo = new Date(Date.now() - 7 * 86400_000).toISOString().slice(0, 10);
    lines.push(
      '',
      'Demo application (admin):',
      `  appId:  ${demo.appId}`,
      `  appKey: ${demo.appKey}`,
      '',
      'Try it:',
      `  TOKEN=$(curl -s "${url}/v1/AppToken?appId=${demo.appId}&hashToken=${hash}" | sed -E 's/.*"token":"([^"]+)".*/\\1/')`,
      `  curl -s "${url}/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=${a}&WP_2=${b}&Token=$TOKEN"`,
      `  curl -s "${url}/lots?point=${c}&radius=1000&sort=distance" -H "Authorization: Bearer $TOKEN"`,
      `  curl -s -X POST "${url}/v1/metrics/intersections" -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"dateRanges":[{"startDate":"${weekAgo}","endDate":"${endDate}"}],"metrics":[{"name":"totalVehicleCount"},{"name":"avgControlDelay"},{"name":"LOS"}],"dimensions":[{"name":"intersectionId"}],"orderBys":[{"name":"totalVehicleCount","sortOrder":"DESCENDING"}],"pageSize":5}'`,
    );
  }
  lines.push('');
  return lines.join('\n');
}
