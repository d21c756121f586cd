/** The server backend: PostgreSQL through a `pg` connection pool. */
import pg from 'pg';
import type { Db, QueryResult, Queryable } from './db.js';

// BIGINT (int8) as JS numbers, like PGlite: every id we store is below 2^53.
pg.types.setTypeParser(20, (v: string) => Number(v));

/**
 * Opens a pool on `url` (postgres://…) and checks the connection. `applicationName` names the
 * sessions in `pg_stat_activity` (e.g. `streetwise ingestion`), so an operator can tell which
 * role a backend works for.
 */
export async function openPostgres(url: string, opts: { max?: number; applicationName?: string } = {}): Promise<Db> {
  // No JIT compilation: our statements are short, and when the planner overestimates one (the
  // rows of a trace before the table's statistics catch up) compiling it took 100–350 ms of a
  // statement that runs in 2 ms. Set on each new connection before the pool hands it out.
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'streetwise',
    onConnect: async (client) => {
      await client.query('SET jit = off');
    },
  });
  pool.on('error', () => {
    /* idle client errors are reported on the next query; keep the process alive */
  });
  const client = await pool.connect();
  client.release();
  const listener = new Listener(url);
  const run = async <T>(c: Pick<pg.Pool, 'query'>, sql: string, params?: unknown[]): Promise<QueryResult<T>> => {
    const r = await c.query(sql, params?.map(asParam));
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  };
  return {
    kind: 'postgres',
    query: <T>(sql: string, params?: unknown[]) => run<T>(pool, sql, params),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const result = await fn({ query: <U>(sql: string, params?: unknown[]) => run<U>(c, sql, params) });
        await c.query('COMMIT');
        return result;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        c.release();
      }
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    listen: (channel, onNotify) => listener.add(channel, onNotify),
    async close(): Promise<void> {
      await listener.close();
      await pool.end();
    },
  };
}

/**
 * A flat array of numbers, strings, booleans and nulls as a PostgreSQL array literal, built in
 * one pass: `pg` prepares and escapes every element on its own, which for the ingestion's
 * arrays of hundreds of thousands of values is most of the cost of a statement on the client.
 * Anything else (nested arrays, dates, buffers, objects) is left to `pg`.
 */
export function asParam(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  const parts = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x === 'number' || typeof x === 'boolean') parts[i] = String(x);
    else if (typeof x === 'string') parts[i] = NEEDS_ESCAPE.test(x) ? `"${x.replace(ESCAPED, '\\$&')}"` : `"${x}"`;
    else if (x === null || x === undefined) parts[i] = 'NULL';
    else return v;
  }
  return `{${parts.join(',')}}`;
}
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/** Delay before a dropped LISTEN connection is opened again, ms. */
const RELISTEN_DELAY_MS = 500;

/**
 * One dedicated connection that LISTENs on every subscribed channel and reconnects when it drops
 * (notifications sent meanwhile are lost: subscribers re-read periodically anyway). Opened on the
 * first subscription only, so processes that never listen hold no extra connection.
 */
class Listener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly channels = new Map<string, Set<(payload: string) => void>>();
  private closed = false;

  constructor(private readonly url: string) {}

  async add(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.channels.get(channel);
    const isNew = set === undefined;
    if (set === undefined) this.channels.set(channel, (set = new Set()));
    set.add(onNotify);
    await this.ensureConnected();
    if (isNew && this.client) await this.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    return async () => {
      set.delete(onNotify);
    };
  }

  private ensureConnected(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const c = new pg.Client({ connectionString: this.url });
      c.on('notification', (n) => {
        for (const fn of this.channels.get(n.channel) ?? []) fn(n.payload ?? '');
      });
      c.on('error', () => this.dropped(c));
      c.on('end', () => this.dropped(c));
      await c.connect();
      for (const ch of this.channels.keys()) await c.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
      this.client = c;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private dropped(c: pg.Client): void {
    if (this.client !== c) return;
    this.client = null;
    c.end().catch(() => undefined);
    if (this.closed) return;
    const retry = (): void => {
      if (this.closed) return;
      this.ensureConnected().catch(() => setTimeout(retry, RELISTEN_DELAY_MS).unref());
    };
    setTimeout(retry, RELISTEN_DELAY_MS).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = null;
    await this.connecting?.catch(() => undefined);
    await (c ?? this.client)?.end().catch(() => undefined);
  }
}
