/**
 * The database port over a MessagePort: how every thread of a process reaches the embedded
 * database that runs in its own thread (`pglite-host.ts`). `openEmbedded` starts that thread and
 * returns the owner's handle; `connect()` on it makes a port for another thread, which turns it
 * into a `Db` with `remoteDb(port)`.
 */
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { Db, QueryResult, Queryable } from './db.js';
import { siblingModule, startThread } from './thread.js';

/** A database error as it crossed the port: message plus PostgreSQL's fields (code, detail, …). */
export class RemoteDbError extends Error {
  code?: string;
  detail?: string;
  constraint?: string;
  constructor(fields: Record<string, unknown>) {
    super(String(fields.message ?? 'database error'));
    Object.assign(this, fields);
    this.name = 'DatabaseError';
  }
}

interface Pending {
  resolve: (r: QueryResult<never>) => void;
  reject: (e: Error) => void;
}
type HostMessage =
  | { t: 'r'; id: number; rows: never[]; rowCount: number }
  | { t: 'e'; id: number; error: Record<string, unknown> }
  | { t: 'n'; channel: string; payload: string };

/**
 * A `Db` whose statements run in the database thread at the other end of `port`.
 * The port keeps the thread alive only while a statement is under way.
 */
export function remoteDb(port: MessagePort): Db {
  const pending = new Map<number, Pending>();
  const subscribers = new Map<string, Set<(payload: string) => void>>();
  let nextId = 1;
  let nextTx = 1;
  let closed = false;
  port.unref();
  port.on('message', (m: HostMessage) => {
    if (m.t === 'n') {
      for (const fn of subscribers.get(m.channel) ?? []) fn(m.payload);
      return;
    }
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) port.unref();
    if (m.t === 'r') p.resolve({ rows: m.rows, rowCount: m.rowCount });
    else p.reject(new RemoteDbError(m.error));
  });
  port.on('close', () => {
    closed = true;
    for (const p of pending.values()) p.reject(new Error('the database thread has closed'));
    pending.clear();
  });
  const call = <T>(msg: Record<string, unknown>): Promise<QueryResult<T>> => {
    if (closed) return Promise.reject(new Error('the database connection is closed'));
    const id = nextId++;
    return new Promise<QueryResult<T>>((resolve, reject) => {
      pending.set(id, { resolve: resolve as Pending['resolve'], reject });
      if (pending.size === 1) port.ref();
      port.postMessage({ ...msg, id });
    });
  };
  const txQuery = (tx: number): Queryable => ({
    query: <T>(sql: string, params?: unknown[]) => call<T>({ t: 'q', sql, params, tx }),
  });
  return {
    kind: 'pglite',
    query: <T>(sql: string, params?: unknown[]) => call<T>({ t: 'q', sql, params }),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const tx = nextTx++;
      await call({ t: 'begin', tx });
      let result: T;
      try {
        result = await fn(txQuery(tx));
      } catch (err) {
        await call({ t: 'end', tx, commit: false }).catch(() => undefined);
        throw err;
      }
      await call({ t: 'end', tx, commit: true });
      return result;
    },
    async exec(sql: string): Promise<void> {
      await call({ t: 'x', sql });
    },
    async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
      let set = subscribers.get(channel);
      if (set === undefined) {
        subscribers.set(channel, (set = new Set()));
        port.postMessage({ t: 'listen', channel });
      }
      set.add(onNotify);
      return async () => {
        set.delete(onNotify);
      };
    },
    async close(): Promise<void> {
      closed = true;
      port.close();
    },
  };
}

/** The owner's handle of an embedded database running in its own thread. */
export interface EmbeddedDb extends Db {
  /** A port for another thread of this process; pass it in `transferList` and open it with `remoteDb`. */
  connect(): MessagePort;
}

/**
 * Starts the embedded database (PGlite) in its own thread: on disk under `dataDir`, or in memory;
 * `nice` lowers the thread's CPU priority (Linux). `close()` closes the database and ends the thread.
 */
export async function openEmbedded(dataDir?: string, opts: { nice?: number } = {}): Promise<EmbeddedDb> {
  const worker: Worker = startThread(siblingModule(import.meta.url, 'pglite-host'), { dataDir, nice: opts.nice });
  await new Promise<void>((resolve, reject) => {
    const onMessage = (m: { t: string; error?: Record<string, unknown> }): void => {
      if (m.t === 'ready') {
        cleanup();
        resolve();
      }
      if (m.t === 'failed') {
        cleanup();
        reject(new RemoteDbError(m.error ?? {}));
      }
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`the database thread exited with code ${code} before it was ready`));
    };
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
  worker.unref();
  const connect = (): MessagePort => {
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ t: 'connect', port: port1 }, [port1]);
    return port2;
  };
  const own = remoteDb(connect());
  let closing: Promise<void> | undefined;
  return {
    ...own,
    kind: 'pglite',
    connect,
    close(): Promise<void> {
      closing ??= (async () => {
        await own.close();
        worker.ref();
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.postMessage({ t: 'close' });
        await exited;
      })();
      return closing;
    },
  };
}
