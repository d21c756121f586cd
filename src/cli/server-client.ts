/**
 * CLI commands while a server owns the embedded database: find that server (the data directory's
 * lock names it and its loopback URL), sign in with the operator credentials it wrote
 * (`operator.json`), and call its admin API. With PostgreSQL, or when no server runs, commands use
 * the database directly and this returns undefined.
 */
import type { Readable } from 'node:stream';
import type { Config } from '../config/schema.js';
import { DataDirBusyError, describeOwner, findDataDirOwner, type DataDirOwner } from '../store/index.js';
import { hashTokenFor } from '../auth/index.js';
import { readOperatorCredentials } from '../app/operator.js';
import type { FlushReport, ProbeSink, StoreReport } from '../app/probe-sink.js';
import type { ProbeRecord } from '../probes/ingest/records.js';

/** How long a command waits for a server that is still starting, ms. */
const STARTING_WAIT_MS = 180_000;

/** The admin API of the server that owns the data directory. */
export interface ServerClient {
  /** the server's loopback URL */
  readonly url: string;
  /** the region it serves */
  readonly region: string;
  readonly owner: DataDirOwner;
  /** Sends a JSON request (or a stream with its content type); returns the parsed answer or throws its message. */
  request<T>(method: string, path: string, body?: unknown, opts?: { contentType?: string }): Promise<T>;
}

/**
 * The server owning `config`'s data directory, or undefined when the database may be used directly
 * (PostgreSQL, or nobody holds the directory). Throws DataDirBusyError when another CLI command
 * holds it; waits (saying so on `log`) while the owning server is still starting.
 */
export async function owningServer(
  config: Config,
  log: (line: string) => void = (l) => console.error(l),
): Promise<ServerClient | undefined> {
  if (config.store.databaseUrl) return undefined;
  const dataDir = config.store.dataDir;
  let owner = await findDataDirOwner(dataDir);
  if (owner === undefined) return undefined;
  if (owner.role !== 'serve') throw new DataDirBusyError(dataDir, owner);
  const deadline = Date.now() + STARTING_WAIT_MS;
  if (owner.url === undefined) log(`waiting for ${describeOwner(owner)} to finish starting…`);
  while (owner.url === undefined) {
    if (Date.now() > deadline)
      throw new Error(`${describeOwner(owner)} did not finish starting within ${STARTING_WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
    const again = await findDataDirOwner(dataDir);
    if (again === undefined) return undefined; // it stopped: the database is free
    if (again.role !== 'serve') throw new DataDirBusyError(dataDir, again);
    owner = again;
  }
  const creds = readOperatorCredentials(dataDir);
  if (creds === undefined)
    throw new Error(
      `${describeOwner(owner)} owns ${dataDir} but its operator credentials (operator.json) are missing: restart it`,
    );
  const url = owner.url;
  const tokenRes = await fetch(
    `${url}/v1/AppToken?appId=${encodeURIComponent(creds.appId)}&hashToken=${hashTokenFor(creds.appId, creds.appKey)}`,
  ).catch((err: Error) => {
    throw new Error(`cannot reach ${describeOwner(owner!)}: ${err.message}`);
  });
  const tokenBody = (await tokenRes.json()) as { result?: { token?: string } };
  const token = tokenBody.result?.token;
  if (!tokenRes.ok || !token)
    throw new Error(`${describeOwner(owner)} refused the operator credentials (HTTP ${tokenRes.status}): restart it`);
  const found = owner;
  const health = (await (await fetch(`${url}/healthz`)).json()) as { region?: string };
  return {
    url,
    owner: found,
    region: health.region ?? '',
    async request<T>(method: string, path: string, body?: unknown, opts: { contentType?: string } = {}): Promise<T> {
      const isStream = body !== undefined && typeof (body as Readable).pipe === 'function';
      const init: RequestInit & { duplex?: 'half' } = { method, headers: { authorization: `Bearer ${token}` } };
      if (body !== undefined) {
        (init.headers as Record<string, string>)['content-type'] = opts.contentType ?? 'application/json';
        init.body = isStream
          ? (body as unknown as ReadableStream)
          : typeof body === 'string'
            ? body
            : JSON.stringify(body);
        if (isStream) init.duplex = 'half';
      }
      const res = await fetch(`${url}${path}`, init).catch((err: Error) => {
        throw new Error(`the server at ${url} did not answer (${err.message}); is it still running?`);
      });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (!res.ok) {
        const e = (parsed as { error?: { userMessage?: string; message?: string } } | undefined)?.error;
        throw new Error(`the server answered ${res.status}: ${e?.userMessage ?? e?.message ?? text.slice(0, 300)}`);
      }
      return parsed as T;
    },
  };
}

/** Records as NDJSON lines (the server's `application/x-ndjson` body). */
function ndjson(records: readonly ProbeRecord[]): string {
  let out = '';
  for (const r of records) {
    const p = r.ping;
    out += `${JSON.stringify({ traceId: r.traceId, timestamp: p.tS, lat: p.lat, lon: p.lon, speedKph: p.speedKph, headingDeg: p.headingDeg })}\n`;
  }
  return out;
}

/**
 * A probe sink through the server: batches are stored with `POST /v1/probes?defer=true` (the
 * answer means stored), `flush` waits for their processing with `POST /v1/admin/probes/process`.
 */
export function serverProbeSink(server: ServerClient): ProbeSink {
  return {
    via: `the server at ${server.url}`,
    async store(records): Promise<StoreReport> {
      if (records.length === 0) return { inserted: 0, duplicates: 0 };
      const r = await server.request<{
        inserted: number;
        duplicates: number;
        malformed: number;
        issues: Array<{ line?: number; message: string }>;
      }>('POST', '/v1/probes?defer=true', ndjson(records), { contentType: 'application/x-ndjson' });
      if (r.malformed > 0) throw new Error(`the server rejected ${r.malformed} pings: ${r.issues[0]?.message ?? ''}`);
      return { inserted: r.inserted, duplicates: r.duplicates };
    },
    async flush(): Promise<FlushReport> {
      const r = await server.request<{
        matched: Omit<FlushReport, 'intersectionFacts' | 'pendingTraces'>;
        intersectionFacts: number;
        pendingTraces: number;
      }>('POST', '/v1/admin/probes/process', {});
      return { ...r.matched, intersectionFacts: r.intersectionFacts, pendingTraces: r.pendingTraces };
    },
    async close() {},
  };
}
