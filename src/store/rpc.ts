/**
 * A typed request/response protocol over a MessagePort, for every thread protocol of a process:
 * the client sends its request with an id, the server answers `{ t: 'r', id, result }` or
 * `{ t: 'e', id, error }` (an error's fields, since an Error does not cross a port whole). The
 * client keeps the pending requests by id; messages that are not replies (notifications) go to
 * `onOther`. The port holds its thread's event loop open only while a request is pending.
 * A thread's start-up and shutdown steps (`ready`, `closed`, …) are awaited with `nextMessage`.
 */
import type { MessagePort, Worker } from 'node:worker_threads';

/** A reply on the wire. */
export type RpcReply<R> = { t: 'r'; id: number; result: R } | { t: 'e'; id: number; error: Record<string, unknown> };

/** A request on the wire: the request's fields and its id. */
export type RpcRequest<Q> = Q & { id: number };

/** Settings of an `RpcClient`. */
export interface RpcClientOptions<N> {
  /** the Error a failure's fields become (default: an Error with their message) */
  toError?: (fields: Record<string, unknown>) => Error;
  /** called with every message that is not a reply (e.g. notifications) */
  onOther?: (message: N) => void;
  /** what to call the other end in errors, e.g. "the database thread" */
  peer: string;
}

/** True when `m` is a reply (has `t` 'r' or 'e' and a numeric id). */
function isReply<R>(m: unknown): m is RpcReply<R> {
  if (typeof m !== 'object' || m === null) return false;
  const { t, id } = m as { t?: unknown; id?: unknown };
  return (t === 'r' || t === 'e') && typeof id === 'number';
}

/** The requesting end: `call` sends a request of type Q and resolves with its result R. */
export class RpcClient<Q extends object, R, N = never> {
  private readonly pending = new Map<number, { resolve: (r: R) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly port: MessagePort,
    private readonly opts: RpcClientOptions<N>,
  ) {
    port.unref();
    port.on('message', (m: RpcReply<R> | N) => {
      if (isReply<R>(m)) this.settle(m);
      else opts.onOther?.(m);
    });
    port.on('close', () => {
      this.closed = true;
      for (const p of this.pending.values()) p.reject(new Error(`${opts.peer} has closed`));
      this.pending.clear();
    });
  }

  /** Sends request `req` and resolves with the other end's result (rejects with its error). */
  call(req: Q): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`the connection to ${this.opts.peer} is closed`));
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.port.ref();
      const message: RpcRequest<Q> = { ...req, id };
      this.port.postMessage(message);
    });
  }

  /** Sends a message that expects no reply. */
  send(message: object): void {
    if (!this.closed) this.port.postMessage(message);
  }

  /** Closes the port: pending requests fail. */
  close(): void {
    this.closed = true;
    this.port.close();
  }

  private settle(m: RpcReply<R>): void {
    const p = this.pending.get(m.id);
    if (p === undefined) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.port.unref();
    if (m.t === 'r') p.resolve(m.result);
    else p.reject(this.opts.toError ? this.opts.toError(m.error) : new Error(String(m.error.message ?? 'failed')));
  }
}

/** The answering end: replies to request `id` on `port` with `result`. */
export function rpcReply<R>(port: MessagePort, id: number, result: R): void {
  const message: RpcReply<R> = { t: 'r', id, result };
  port.postMessage(message);
}

/** The answering end: fails request `id` on `port` with the fields of `error`. */
export function rpcFail(port: MessagePort, id: number, error: Record<string, unknown>): void {
  const message: RpcReply<never> = { t: 'e', id, error };
  port.postMessage(message);
}

/**
 * Resolves with the next message of type `t` that worker thread `w` posts (messages of other
 * types are left to other listeners); rejects when the thread exits first.
 */
export function nextMessage<M extends { t: string }, T extends M['t']>(w: Worker, t: T): Promise<Extract<M, { t: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: M): void => {
      if (m.t !== t) return;
      w.off('message', onMessage);
      w.off('exit', onExit);
      resolve(m as Extract<M, { t: T }>);
    };
    const onExit = (code: number): void => {
      w.off('message', onMessage);
      reject(new Error(`the thread exited with code ${code} before sending ${t}`));
    };
    w.on('message', onMessage);
    w.once('exit', onExit);
  });
}
