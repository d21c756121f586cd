/**
 * The embedded database's own thread: PGlite runs here, off every event loop that serves
 * requests or ingests probes (a WebAssembly query blocks the thread it runs on). Other threads
 * talk to it through `remote-db.ts` over a MessagePort each; the port protocol is below.
 *
 * client → host: `{ t: 'q', id, sql, params, tx? }` query (inside transaction `tx` when given)
 *                `{ t: 'x', id, sql }` exec (several statements, no parameters)
 *                `{ t: 'begin', id, tx }`, `{ t: 'end', id, tx, commit }` transaction bounds
 *                `{ t: 'listen', channel }` forward NOTIFY on `channel` to this port
 * host → client: `{ t: 'r', id, result: { rows, rowCount } }` result, `{ t: 'e', id, error }` failure
 *                (`rpc.ts`),
 *                `{ t: 'n', channel, payload }` notification
 * parent → host: `{ t: 'connect', port }` a new client, `{ t: 'close' }` close the database and exit
 *
 * PGlite has one connection, so a transaction excludes every other statement until it ends;
 * a transaction left idle for TX_IDLE_MS (its client died) is rolled back.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { rpcFail, rpcReply, type RpcRequest } from './rpc.js';
import type { DbRequest, DbResult } from './remote-db.js';

/** A transaction with no statement for this long is rolled back, ms. */
const TX_IDLE_MS = 60_000;

interface HostData {
  dataDir?: string;
  nice?: number;
}
type ClientMessage = RpcRequest<DbRequest> | { t: 'listen'; channel: string };

/** An open transaction: statements wait in `queue` until the transaction's loop takes them. */
interface TxSession {
  queue: ClientMessage[];
  wake: (() => void) | null;
  idleTimer: NodeJS.Timeout | null;
}

/** Thrown inside a PGlite transaction to roll it back on the client's request. */
class Rollback extends Error {}

/** The fields of a database error worth keeping across the port (code, detail, constraint, …). */
function errorPayload(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const out: Record<string, unknown> = { message: err.message, name: err.name };
  for (const k of [
    'code',
    'detail',
    'hint',
    'constraint',
    'table',
    'column',
    'schema',
    'severity',
    'position',
    'where',
  ]) {
    const v: unknown = Reflect.get(err, k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const data = (workerData ?? {}) as HostData;
const port0 = parentPort!;
// Below the serving thread's priority (Linux nice values are per thread): under a probe feed this
// thread mostly runs the ingestion's writes, and requests must keep the cores.
if (data.nice !== undefined) {
  try {
    setPriority(data.nice);
  } catch {
    /* not permitted: normal priority */
  }
}
let pg: PGlite;
try {
  pg = data.dataDir ? await PGlite.create(data.dataDir) : await PGlite.create();
} catch (err) {
  port0.postMessage({ t: 'failed', error: errorPayload(err) });
  process.exit(1);
}

const clients = new Set<MessagePort>();
const listeners = new Map<string, Set<MessagePort>>();

function reply(port: MessagePort, id: number, res: { rows: unknown[]; affectedRows?: number }): void {
  rpcReply<DbResult>(port, id, { rows: res.rows, rowCount: res.affectedRows ?? 0 });
}

function fail(port: MessagePort, id: number, err: unknown): void {
  rpcFail(port, id, errorPayload(err));
}

/** Runs one transaction for a client: statements arrive through `session.queue` until `end`. */
function runTransaction(port: MessagePort, begin: { id: number; tx: number }, sessions: Map<number, TxSession>): void {
  const session: TxSession = { queue: [], wake: null, idleTimer: null };
  sessions.set(begin.tx, session);
  let endId = -1;
  const next = (): Promise<ClientMessage> =>
    new Promise((resolve) => {
      const take = (): void => {
        if (session.idleTimer) clearTimeout(session.idleTimer);
        session.idleTimer = null;
        resolve(session.queue.shift()!);
      };
      if (session.queue.length > 0) return take();
      session.wake = () => {
        session.wake = null;
        take();
      };
      session.idleTimer = setTimeout(() => {
        session.queue.push({ t: 'end', id: -1, tx: begin.tx, commit: false });
        session.wake?.();
      }, TX_IDLE_MS);
    });
  pg.transaction(async (tx: Transaction) => {
    reply(port, begin.id, { rows: [] });
    for (;;) {
      const m = await next();
      if (m.t === 'end') {
        endId = m.id;
        if (!m.commit) throw new Rollback();
        return;
      }
      if (m.t !== 'q') continue;
      try {
        reply(port, m.id, await tx.query(m.sql, m.params));
      } catch (err) {
        fail(port, m.id, err);
      }
    }
  })
    .then(
      () => {
        if (endId >= 0) reply(port, endId, { rows: [] });
      },
      (err: unknown) => {
        if (endId < 0) return;
        if (err instanceof Rollback) reply(port, endId, { rows: [] });
        else fail(port, endId, err);
      },
    )
    .finally(() => sessions.delete(begin.tx));
}

/** Serves one client port. */
function attach(port: MessagePort): void {
  clients.add(port);
  const sessions = new Map<number, TxSession>();
  port.on('message', (m: ClientMessage) => {
    if (m.t === 'q' && m.tx !== undefined) {
      const s = sessions.get(m.tx);
      if (!s) return fail(port, m.id, new Error(`transaction ${m.tx} is not open`));
      s.queue.push(m);
      s.wake?.();
      return;
    }
    switch (m.t) {
      case 'q':
        pg.query(m.sql, m.params).then(
          (r) => reply(port, m.id, r),
          (err: unknown) => fail(port, m.id, err),
        );
        return;
      case 'x':
        pg.exec(m.sql).then(
          () => reply(port, m.id, { rows: [] }),
          (err: unknown) => fail(port, m.id, err),
        );
        return;
      case 'begin':
        runTransaction(port, m, sessions);
        return;
      case 'end': {
        const s = sessions.get(m.tx);
        if (!s) return fail(port, m.id, new Error(`transaction ${m.tx} is not open`));
        s.queue.push(m);
        s.wake?.();
        return;
      }
      case 'listen':
        void subscribe(port, m.channel);
        return;
    }
  });
  port.on('close', () => {
    clients.delete(port);
    for (const set of listeners.values()) set.delete(port);
    // a client that went away mid-transaction: roll it back
    for (const [tx, s] of sessions) {
      s.queue.push({ t: 'end', id: -1, tx, commit: false });
      s.wake?.();
    }
  });
}

/** Forwards NOTIFY on `channel` to `port` (one LISTEN per channel for all clients). */
async function subscribe(port: MessagePort, channel: string): Promise<void> {
  let set = listeners.get(channel);
  if (set === undefined) {
    listeners.set(channel, (set = new Set()));
    await pg.listen(channel, (payload) => {
      for (const p of listeners.get(channel) ?? []) p.postMessage({ t: 'n', channel, payload });
    });
  }
  set.add(port);
}

port0.on('message', (m: { t: 'connect'; port: MessagePort } | { t: 'close' }) => {
  if (m.t === 'connect') attach(m.port);
  else {
    for (const p of clients) p.close();
    pg.close().finally(() => {
      port0.postMessage({ t: 'closed' });
      process.exit(0);
    });
  }
});
port0.postMessage({ t: 'ready' });
