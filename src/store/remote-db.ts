/**
 * The database port over a MessagePort: how every thread of a process reaches the embedded
 * database that runs in its own thread (`pglite-host.ts`). `openEmbedded` starts that thread and
 * returns the owner's handle; `connect()` on it makes a port for another thread, which turns it
 * into a `Db` with `remoteDb(port)`.
 */
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { Db, QueryResult, Queryable } from './db.js';
import { siblingModule, startThread } from './thread.js';
import { RpcClient } from './rpc.js';

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

/** A statement sent to the database thread (see `pglite-host.ts` for the protocol). */
export type DbRequest =
  | { t: 'q'; sql: string; params?: unknown[]; tx?: number }
  | { t: 'x'; sql: string }
  | { t: 'begin'; tx: number }
  | { t: 'end'; tx: number; commit: boolean };

/** A statement's result as it crosses the port. */
export interface DbResult {
  rows: unknown[];
  rowCount: number;
}

/** A notification forwarded by the database thread. */
export interface DbNotification {
  t: 'n';
  channel: string;
  payload: string;
}

/**
 * A `Db` whose statements run in the database thread at the other end of `port`.
 * The port keeps the thread alive only while a statement is under way.
 */
export function remoteDb(port: MessagePort): Db {
  const subscribers = new Map<string, Set<(payload: string) => void>>();
  const rpc = new RpcClient<DbRequest, DbResult, DbNotification>(port, {
    peer: 'the database thread',
    toError: (fields) => new RemoteDbError(fields),
    onOther: (m) => {
      for (const fn of subscribers.get(m.channel) ?? []) fn(m.payload);
    },
  });
  let nextTx = 1;
  const call = async <T>(req: DbRequest): Promise<QueryResult<T>> => {
    const r = await rpc.call(req);
    return { rows: r.rows as T[], rowCount: r.rowCount };
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
        rpc.send({ t: 'listen', channel });
      }
      set.add(onNotify);
      return async () => {
        set.delete(onNotify);
      };
    },
    async close(): Promise<void> {
      rpc.close();
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
