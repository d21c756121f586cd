/**
 * Every setting of streetwise in one schema: its doc line, default, unit and environment
 * variable. `loadConfig` (load.ts) reads flags and the environment against it, validates, freezes.
 */

export const SERVICES = ['routing', 'parking', 'analytics'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface Config {
  server: {
    /** TCP port */
    port: number;
    /** interface to bind */
    host: string;
    /** which APIs this process serves */
    services: ServiceName[];
    logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
    /** maximum request body, bytes */
    bodyLimitBytes: number;
    /** threads that answer requests (0 = one per CPU core) */
    threads: number;
  };
  store: {
    /** postgres://… ; empty = embedded PGlite under dataDir */
    databaseUrl: string;
    /** data directory: PGlite files, regions, demo files */
    dataDir: string;
  };
  region: {
    /** name of the region under <dataDir>/regions/ to serve */
    name: string;
    /** generate and import the demo city when the region is missing (only for name 'demo') */
    demoIfMissing: boolean;
    /** run a short traffic simulation on the first start of the demo region */
    demoSimulate: boolean;
    /** seed of the demo city */
    demoSeed: number;
  };
  probes: {
    /** largest streamed probe body (CSV, NDJSON, FCD, JSON) on POST /v1/probes, bytes */
    bodyLimitBytes: number;
    /** probe jobs waiting for the ingestion thread beyond the running one */
    maxQueuedJobs: number;
  };
  routing: {
    /** how long FindRoute's route ids stay valid for GetRoute, hours */
    routeTtlHours: number;
    /** routes answered within this many ms share one background INSERT */
    routeWriteDelayMs: number;
  };
}

/** One documented setting. */
export interface SettingDoc {
  key: string;
  env: string;
  flag?: string;
  default: string;
  unit?: string;
  doc: string;
}

/** The documentation table of every setting (README and `--help` are generated from the same facts). */
export const SETTINGS: readonly SettingDoc[] = [
  {
    key: 'server.port',
    env: 'PORT',
    flag: '--port',
    default: '8080',
    unit: 'TCP port',
    doc: 'port the HTTP server listens on',
  },
  { key: 'server.host', env: 'HOST', flag: '--host', default: '127.0.0.1', doc: 'interface to bind (0.0.0.0 for all)' },
  {
    key: 'server.services',
    env: 'SERVICES',
    flag: '--services',
    default: 'routing,parking,analytics',
    doc: 'comma list of APIs this process serves',
  },
  {
    key: 'server.logLevel',
    env: 'LOG_LEVEL',
    flag: '--log-level',
    default: 'info',
    doc: 'fatal|error|warn|info|debug|trace|silent',
  },
  {
    key: 'server.threads',
    env: 'SERVING_THREADS',
    flag: '--threads',
    default: '0',
    doc: 'threads that answer HTTP requests, sharing the loaded graph (0 = one per CPU core)',
  },
  {
    key: 'server.bodyLimitBytes',
    env: 'BODY_LIMIT_BYTES',
    default: '10485760',
    unit: 'bytes',
    doc: 'largest accepted request body',
  },
  {
    key: 'store.databaseUrl',
    env: 'DATABASE_URL',
    flag: '--database-url',
    default: '',
    doc: 'PostgreSQL URL; empty = embedded PGlite under DATA_DIR/db',
  },
  {
    key: 'store.dataDir',
    env: 'DATA_DIR',
    flag: '--data-dir',
    default: './data',
    doc: 'where the embedded database, regions and demo files live',
  },
  {
    key: 'region.name',
    env: 'REGION',
    flag: '--region',
    default: 'demo',
    doc: 'region (imported under DATA_DIR/regions/NAME) to serve',
  },
  {
    key: 'region.demoIfMissing',
    env: 'DEMO_IF_MISSING',
    default: 'true',
    doc: 'generate and import the demo city when region "demo" is missing',
  },
  {
    key: 'region.demoSimulate',
    env: 'DEMO_SIMULATE',
    default: 'true',
    doc: 'run a short traffic simulation when the demo region is first created',
  },
  { key: 'region.demoSeed', env: 'DEMO_SEED', flag: '--seed', default: '42', doc: 'seed of the generated demo city' },
  {
    key: 'probes.bodyLimitBytes',
    env: 'PROBES_BODY_LIMIT_BYTES',
    default: '1073741824',
    unit: 'bytes',
    doc: 'largest probe body POST /v1/probes accepts (streamed: memory stays bounded)',
  },
  {
    key: 'probes.maxQueuedJobs',
    env: 'PROBES_MAX_QUEUED_JOBS',
    default: '64',
    doc: 'probe requests waiting for the ingestion thread before new ones get 503 PROBES_BUSY',
  },
  {
    key: 'routing.routeTtlHours',
    env: 'ROUTE_TTL_HOURS',
    default: '24',
    unit: 'hours',
    doc: 'how long route ids stay valid for GetRoute',
  },
  {
    key: 'routing.routeWriteDelayMs',
    env: 'ROUTE_WRITE_DELAY_MS',
    default: '20',
    unit: 'ms',
    doc: 'routes answered within this delay share one background INSERT (0 = one per event-loop turn)',
  },
];
