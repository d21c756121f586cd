/**
 * Every setting of streetwise in one schema: its doc line, default, unit and environment
 * variable. `loadConfig` (load.ts) reads flags and the environment against it, validates, freezes.
 */

export const SERVICES = ['routing', 'parking', 'analytics'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** What a process does: answer HTTP requests (`serving`), process probe pings (`ingestion`). */
export const ROLES = ['serving', 'ingestion'] as const;
export type RoleName = (typeof ROLES)[number];

export interface Config {
  server: {
    /** TCP port */
    port: number;
    /** interface to bind */
    host: string;
    /** which APIs this process serves */
    services: ServiceName[];
    /** what this process does */
    roles: RoleName[];
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
    /** probe bodies a serving thread stores at once (more get 503 PROBES_BUSY) */
    maxBodies: number;
    /** how long a probe post waits for its processing, seconds */
    waitS: number;
    /** NATS JetStream feed consumed by the ingestion role: server URL(s), '' = none */
    natsUrl: string;
    /** subject the pings are published on */
    natsSubject: string;
    /** stream ('' = the stream capturing the subject, created as PROBES when none does) */
    natsStream: string;
    /** durable consumer shared by every ingestion process */
    natsDurable: string;
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
    key: 'server.roles',
    env: 'ROLES',
    flag: '--roles',
    default: 'serving,ingestion',
    doc: 'comma list of what this process does: serving (HTTP), ingestion (probe processing)',
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
    doc: 'threads that answer HTTP requests, sharing the loaded graph (0 = one per CPU core; more than one needs Node >= 22.12 on Linux)',
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
    key: 'probes.maxBodies',
    env: 'PROBES_MAX_BODIES',
    default: '16',
    doc: 'probe bodies one serving thread stores at once; more get 503 PROBES_BUSY',
  },
  {
    key: 'probes.waitS',
    env: 'PROBES_WAIT_S',
    default: '600',
    unit: 's',
    doc: 'how long POST /v1/probes waits for its pings to be processed before it answers with them pending',
  },
  {
    key: 'probes.natsUrl',
    env: 'PROBES_NATS_URL',
    flag: '--nats-url',
    default: '',
    doc: 'ingestion role: NATS server URL(s) of a JetStream probe feed to consume (empty = none)',
  },
  {
    key: 'probes.natsSubject',
    env: 'PROBES_NATS_SUBJECT',
    flag: '--nats-subject',
    default: '',
    doc: 'ingestion role: subject the pings are published on (required with PROBES_NATS_URL)',
  },
  {
    key: 'probes.natsStream',
    env: 'PROBES_NATS_STREAM',
    default: '',
    doc: 'ingestion role: JetStream stream (empty = the one capturing the subject, created as PROBES)',
  },
  {
    key: 'probes.natsDurable',
    env: 'PROBES_NATS_DURABLE',
    default: 'streetwise-probes',
    doc: 'ingestion role: durable consumer, shared by every ingestion process (each message goes to one)',
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
