/**
 * Loads the configuration once: flags win over environment variables, which win over defaults.
 * Every value is validated; a bad one stops start-up with a message naming the key and variable.
 */
import { resolve } from 'node:path';
import { ROLES, SERVICES, SETTINGS, type Config, type RoleName } from './schema.js';

/** Thrown for invalid configuration; the message names the setting. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** Reads one setting's text, integer or boolean: flag, then environment variable, then default. */
interface SettingReader {
  int(key: string, min: number, max: number): number;
  bool(key: string): boolean;
  str(key: string): string;
}

function settingReader(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): SettingReader {
  const raw = (key: string): { value: string; source: string } => {
    const s = SETTINGS.find((x) => x.key === key)!;
    if (flags[key] !== undefined) return { value: flags[key]!, source: s.flag ?? key };
    if (env[s.env] !== undefined && env[s.env] !== '') return { value: env[s.env]!, source: s.env };
    return { value: s.default, source: `default of ${key}` };
  };
  return {
    int(key, min, max) {
      const { value, source } = raw(key);
      const n = Number(value);
      if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < min || n > max) {
        throw new ConfigError(
          `${source}=${JSON.stringify(value)} is invalid: ${key} must be an integer in ${min}..${max}`,
        );
      }
      return n;
    },
    bool(key) {
      const { value, source } = raw(key);
      const v = value.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(`${source}=${JSON.stringify(value)} is invalid: ${key} must be true or false`);
    },
    str: (key) => raw(key).value.trim(),
  };
}

/** A comma-separated list of names, each one of `allowed`, at least one. */
function nameList<T extends string>(
  text: string,
  allowed: readonly T[],
  envName: string,
  what: string,
  atLeast: string,
): T[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!allowed.includes(n as T))
      throw new ConfigError(`${envName} contains unknown ${what} "${n}"; choose from ${allowed.join(', ')}`);
  }
  if (names.length === 0) throw new ConfigError(`${envName} must name at least one ${atLeast}`);
  return names as T[];
}

/** Checks the settings of the process as a whole: log level, database URL, region name, host, roles. */
function checkProcessSettings(r: SettingReader, roles: readonly RoleName[]): void {
  const logLevel = r.str('server.logLevel');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(
      `LOG_LEVEL=${JSON.stringify(logLevel)} is invalid: use fatal|error|warn|info|debug|trace|silent`,
    );
  }
  const databaseUrl = r.str('store.databaseUrl');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const region = r.str('region.name');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(region))
    throw new ConfigError(`REGION=${JSON.stringify(region)} is invalid: letters, digits, _ and - only`);
  if (!r.str('server.host')) throw new ConfigError('HOST must not be empty');
  if (!databaseUrl && roles.length < ROLES.length) {
    throw new ConfigError(
      `ROLES=${roles.join(',')} needs PostgreSQL (DATABASE_URL): the embedded database has one process, which serves and ingests`,
    );
  }
}

/** Checks the NATS probe feed settings: URL, subject (required with a URL), stream and durable names. */
function checkNatsSettings(r: SettingReader): void {
  const natsUrl = r.str('probes.natsUrl');
  const natsSubject = r.str('probes.natsSubject');
  if (natsUrl && !/^(nats|tls):\/\/[^\s/]+(,(nats|tls):\/\/[^\s/]+)*$/.test(natsUrl))
    throw new ConfigError(`PROBES_NATS_URL=${JSON.stringify(natsUrl)} is invalid: e.g. nats://127.0.0.1:4222`);
  if (natsUrl && !/^[^\s]+$/.test(natsSubject))
    throw new ConfigError('PROBES_NATS_SUBJECT is required with PROBES_NATS_URL (e.g. probes.fleet1)');
  for (const [key, env] of [
    ['probes.natsStream', 'PROBES_NATS_STREAM'],
    ['probes.natsDurable', 'PROBES_NATS_DURABLE'],
  ] as const) {
    const v = r.str(key);
    if (v && !/^[A-Za-z0-9_-]{1,64}$/.test(v))
      throw new ConfigError(`${env}=${JSON.stringify(v)} is invalid: 1-64 letters, digits, _ or -`);
  }
}

/**
 * Builds the frozen Config from `flags` (keys like 'server.port', values as strings) and `env`.
 * Only this module reads environment variables.
 */
export function loadConfig(
  flags: Record<string, string | undefined> = {},
  env: NodeJS.ProcessEnv = process.env,
): Config {
  const r = settingReader(flags, env);
  const { int, bool, str } = r;
  const services = nameList(str('server.services'), SERVICES, 'SERVICES', 'service', 'service');
  const roles = nameList(str('server.roles'), ROLES, 'ROLES', 'role', 'role (serving, ingestion)');
  checkProcessSettings(r, roles);
  checkNatsSettings(r);
  const config: Config = {
    server: {
      port: int('server.port', 0, 65535),
      host: str('server.host'),
      services,
      roles,
      logLevel: str('server.logLevel') as Config['server']['logLevel'],
      bodyLimitBytes: int('server.bodyLimitBytes', 1024, 1 << 30),
      threads: int('server.threads', 0, 256),
    },
    store: { databaseUrl: str('store.databaseUrl'), dataDir: resolve(str('store.dataDir') || './data') },
    region: {
      name: str('region.name'),
      demoIfMissing: bool('region.demoIfMissing'),
      demoSimulate: bool('region.demoSimulate'),
      demoSeed: int('region.demoSeed', 0, 2 ** 31 - 1),
    },
    probes: {
      bodyLimitBytes: int('probes.bodyLimitBytes', 1024, 2 ** 40),
      maxBodies: int('probes.maxBodies', 1, 10_000),
      waitS: int('probes.waitS', 0, 86_400),
      natsUrl: str('probes.natsUrl'),
      natsSubject: str('probes.natsSubject'),
      natsStream: str('probes.natsStream'),
      natsDurable: str('probes.natsDurable') || 'streetwise-probes',
    },
    routing: {
      routeTtlHours: int('routing.routeTtlHours', 1, 24 * 30),
      routeWriteDelayMs: int('routing.routeWriteDelayMs', 0, 1000),
    },
  };
  return deepFreeze(config);
}
