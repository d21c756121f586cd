/**
 * Serving first: the serving threads count the requests they are answering in shared memory, and
 * the ingestion thread steps aside while any is under way. The ingestion thread's niceness only
 * covers its own CPU; the database work it asks for (a PostgreSQL backend, the embedded database's
 * thread) and the garbage collection of what it allocates run on other threads at normal
 * priority. Holding back its next statement and its next trace while a request is answered keeps
 * those off the cores too. A pause is bounded (PAUSE_MAX_MS at a time, at most PAUSE_SHARE of any
 * second), so under a steady stream of requests ingestion still goes on.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Db, Queryable } from '../../store/db.js';

/** `Atomics.waitAsync` (Node 16+, typed from ES2024 on). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      a: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
  }
).waitAsync;

/** Longest single pause, ms. */
export const PAUSE_MAX_MS = 20;
/** Largest share of wall time spent pausing, over a window of WINDOW_MS. */
export const PAUSE_SHARE = 0.5;
/** Longest rest after a round while requests are answered, ms (`StepAside.rest`). */
export const REST_MAX_MS = 500;
const WINDOW_MS = 1000;

/** Shared memory for the count: one 32-bit counter. */
export function createRequestGauge(): SharedArrayBuffer {
  return new SharedArrayBuffer(4);
}

/** the counter of each request still counted */
const counted = new WeakMap<IncomingMessage, Int32Array>();

/**
 * Counts every request `server` answers in `gauge`, from its arrival until its response is
 * finished or the connection is gone.
 */
export function countRequests(server: Server, gauge: SharedArrayBuffer): void {
  const count = new Int32Array(gauge);
  server.prependListener('request', (req: IncomingMessage, res) => {
    Atomics.add(count, 0, 1);
    counted.set(req, count);
    res.once('close', () => releaseRequest(req));
  });
}

/**
 * Stops counting `req` (once; later calls do nothing). Also called by a handler whose request now
 * waits for the ingestion thread (a probe body, an admin task): the ingestion thread must not step
 * aside for the request that waits for it.
 */
export function releaseRequest(req: IncomingMessage): void {
  const count = counted.get(req);
  if (count === undefined) return;
  counted.delete(req);
  if (Atomics.sub(count, 0, 1) === 1) Atomics.notify(count, 0);
}

/** The ingestion side: `pause()` returns once no request is under way, or the pause is up. */
export class StepAside {
  private readonly count: Int32Array;
  /** pauses in the current window, ms */
  private paused = 0;
  private windowStart = performance.now();
  /** all pauses since this was made, ms */
  pausedMs = 0;

  constructor(
    gauge: SharedArrayBuffer,
    private readonly limits = { maxPauseMs: PAUSE_MAX_MS, share: PAUSE_SHARE },
  ) {
    this.count = new Int32Array(gauge);
  }

  /**
   * After a round of ingestion that began when `pausedMs` read `pausedBeforeMs` and took
   * `roundMs`: when the thread stepped aside during it (requests were being answered), waits as
   * long again (at most REST_MAX_MS), so that while serving the thread holds a core about half the
   * time at most; stepping aside only holds back its next statement or trace, and a request that
   * arrives while it computes still waits for a core behind it. Undefined (no wait) otherwise.
   */
  rest(pausedBeforeMs: number, roundMs: number): Promise<void> | undefined {
    if (this.pausedMs <= pausedBeforeMs || roundMs <= 0) return undefined;
    return new Promise((r) => setTimeout(r, Math.min(REST_MAX_MS, roundMs)));
  }

  /** True while a request is under way. */
  busy(): boolean {
    return Atomics.load(this.count, 0) > 0;
  }

  /** Waits while a request is under way (bounded); resolves at once when none is. */
  async pause(): Promise<void> {
    let n = Atomics.load(this.count, 0);
    if (n <= 0) return;
    const t0 = performance.now();
    if (t0 - this.windowStart > WINDOW_MS) {
      this.windowStart = t0;
      this.paused = 0;
    }
    const allowed = Math.min(this.limits.maxPauseMs, this.limits.share * WINDOW_MS - this.paused);
    while (n > 0) {
      const left = allowed - (performance.now() - t0);
      if (left <= 0) break;
      const w = waitAsync(this.count, 0, n, left);
      if (w.async) await w.value;
      n = Atomics.load(this.count, 0);
    }
    const d = performance.now() - t0;
    this.paused += d;
    this.pausedMs += d;
  }
}

/**
 * `db` whose statements each wait for `StepAside.pause` first. Inside a transaction too on
 * PostgreSQL (other connections go on meanwhile); on the embedded database only before a
 * transaction, which holds its one connection until it ends.
 */
export function steppingAside(db: Db, aside: StepAside): Db {
  const gated = (q: Queryable): Queryable => ({
    async query(sql, params) {
      await aside.pause();
      return q.query(sql, params);
    },
  });
  return {
    kind: db.kind,
    query: gated(db).query,
    async transaction(fn) {
      await aside.pause();
      return db.transaction((tx) => fn(db.kind === 'postgres' ? gated(tx) : tx));
    },
    async exec(sql) {
      await aside.pause();
      return db.exec(sql);
    },
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
  };
}
