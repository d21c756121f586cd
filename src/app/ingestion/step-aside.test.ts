import { describe, it, expect, afterEach } from 'vitest';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  PAUSE_MAX_MS,
  PAUSE_SHARE,
  REST_MAX_MS,
  StepAside,
  countRequests,
  createRequestGauge,
  releaseRequest,
  steppingAside,
} from './step-aside.js';
import type { Db, Queryable, QueryResult } from '../../store/db.js';

const count = (gauge: SharedArrayBuffer): number => Atomics.load(new Int32Array(gauge), 0);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await sleep(2);
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

describe('countRequests', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  /** A server whose handler waits until `finish` is called for that request. */
  async function holdingServer(
    gauge: SharedArrayBuffer,
    onRequest: (req: IncomingMessage) => void = () => undefined,
  ): Promise<{ port: number; held: Array<() => void> }> {
    const held: Array<() => void> = [];
    server = createServer((req, res) => {
      onRequest(req);
      held.push(() => res.end('done'));
    });
    countRequests(server, gauge);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    return { port: (server.address() as AddressInfo).port, held };
  }

  it('counts a request from its arrival until its response is finished', async () => {
    const gauge = createRequestGauge();
    const { port, held } = await holdingServer(gauge);
    const a = fetch(`http://127.0.0.1:${port}/a`).then((r) => r.text());
    const b = fetch(`http://127.0.0.1:${port}/b`).then((r) => r.text());
    await until(() => held.length === 2, 'two requests');
    expect(count(gauge)).toBe(2);
    held[0]();
    await a;
    await until(() => count(gauge) === 1, 'one request left');
    held[1]();
    await b;
    await until(() => count(gauge) === 0, 'no request left');
  });

  it('wakes a paused ingestion side when the last request ends', async () => {
    const gauge = createRequestGauge();
    const { port, held } = await holdingServer(gauge);
    const a = fetch(`http://127.0.0.1:${port}/a`).then((r) => r.text());
    await until(() => held.length === 1, 'the request');
    const aside = new StepAside(gauge, { maxPauseMs: 60_000, share: 1 });
    let resumed = false;
    const p = aside.pause().then(() => {
      resumed = true;
    });
    await sleep(10);
    expect(resumed).toBe(false);
    held[0]();
    await a;
    // woken by the request's end, not by the pause's bound (1 s here)
    const ended = performance.now();
    await p;
    expect(performance.now() - ended).toBeLessThan(500);
    expect(count(gauge)).toBe(0);
  });

  it('stops counting a request whose client went away, and one released to wait for ingestion, once each', async () => {
    const gauge = createRequestGauge();
    const { port, held } = await holdingServer(gauge, (req) => {
      if (req.url === '/release') releaseRequest(req);
    });
    const gone = httpRequest({ host: '127.0.0.1', port, path: '/gone' });
    gone.on('error', () => undefined);
    gone.end();
    await until(() => held.length === 1, 'the request');
    expect(count(gauge)).toBe(1);
    gone.destroy();
    await until(() => count(gauge) === 0, 'the aborted request to be let go');
    const released = fetch(`http://127.0.0.1:${port}/release`).then((r) => r.text());
    await until(() => held.length === 2, 'the released request');
    expect(count(gauge)).toBe(0);
    held[1]();
    await released;
    await sleep(20);
    expect(count(gauge)).toBe(0);
    held[0](); // a response to a connection already gone
    await sleep(20);
    expect(count(gauge)).toBe(0);
  });
});

/** True when `p` settles within a few microtasks, without waiting for any timer. */
async function settlesAtOnce(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  for (let i = 0; i < 5 && !done; i++) await Promise.resolve();
  return done;
}

describe('StepAside', () => {
  it('does not wait when no request is under way', async () => {
    const aside = new StepAside(createRequestGauge());
    expect(aside.busy()).toBe(false);
    expect(await settlesAtOnce(aside.pause())).toBe(true);
  });

  it('waits while a request is under way and goes on as soon as the last one ends', async () => {
    const gauge = createRequestGauge();
    const n = new Int32Array(gauge);
    Atomics.store(n, 0, 2);
    // a long bound, so only the end of the requests can end this pause
    const aside = new StepAside(gauge, { maxPauseMs: 60_000, share: 1 });
    expect(aside.busy()).toBe(true);
    let resumed = false;
    const p = aside.pause().then(() => {
      resumed = true;
    });
    await sleep(5);
    Atomics.sub(n, 0, 1);
    Atomics.notify(n, 0);
    await sleep(5);
    expect(resumed).toBe(false);
    Atomics.sub(n, 0, 1);
    Atomics.notify(n, 0);
    await p;
    expect(resumed).toBe(true);
  });

  it('pauses at most maxPauseMs at a time and the given share of a second in all, however long requests last', async () => {
    const gauge = createRequestGauge();
    Atomics.store(new Int32Array(gauge), 0, 1);
    expect(PAUSE_MAX_MS).toBeLessThanOrEqual(50);
    expect(PAUSE_SHARE).toBeLessThanOrEqual(0.5);
    const aside = new StepAside(gauge, { maxPauseMs: 20, share: 0.1 });
    const t0 = performance.now();
    await aside.pause();
    const one = performance.now() - t0;
    expect(one).toBeGreaterThanOrEqual(19);
    expect(one).toBeLessThan(500);
    // the window's budget (100 ms) is used up after a few pauses: then they return at once
    let paused = one;
    let pauses = 1;
    for (; pauses < 50; pauses++) {
      const p = aside.pause();
      if (await settlesAtOnce(p)) break;
      const s = performance.now();
      await p;
      paused += performance.now() - s;
    }
    expect(pauses).toBeLessThan(50);
    expect(paused).toBeGreaterThanOrEqual(95);
    expect(await settlesAtOnce(aside.pause())).toBe(true);
  });

  it('rests after a round as long as it took when it stepped aside during it (at most REST_MAX_MS), not otherwise', async () => {
    const gauge = createRequestGauge();
    const n = new Int32Array(gauge);
    const aside = new StepAside(gauge, { maxPauseMs: 5, share: 1 });
    // a round during which no request was answered: no rest, however long it took
    let before = aside.pausedMs;
    expect(aside.rest(before, 10_000)).toBeUndefined();
    // a round that stepped aside once
    before = aside.pausedMs;
    Atomics.store(n, 0, 1);
    await aside.pause();
    Atomics.store(n, 0, 0);
    expect(aside.pausedMs).toBeGreaterThan(before);
    let t0 = performance.now();
    await aside.rest(before, 40);
    let rested = performance.now() - t0;
    expect(rested).toBeGreaterThanOrEqual(39);
    expect(rested).toBeLessThan(REST_MAX_MS);
    // a long round rests REST_MAX_MS, not as long as it took
    t0 = performance.now();
    await aside.rest(before, 60_000);
    rested = performance.now() - t0;
    expect(rested).toBeGreaterThanOrEqual(REST_MAX_MS - 1);
    expect(rested).toBeLessThan(REST_MAX_MS + 1000);
  });
});

describe('steppingAside', () => {
  /** A database that records the statements it is given. */
  function recordingDb(kind: Db['kind']): { db: Db; seen: string[] } {
    const seen: string[] = [];
    const q: Queryable = {
      async query<T>(sql: string): Promise<QueryResult<T>> {
        seen.push(sql);
        return { rows: [], rowCount: 0 };
      },
    };
    const db: Db = {
      kind,
      query: q.query,
      exec: async (sql) => {
        seen.push(sql);
      },
      transaction: async (fn) => {
        seen.push('BEGIN');
        const r = await fn(q);
        seen.push('COMMIT');
        return r;
      },
      listen: async () => async () => undefined,
      close: async () => undefined,
    };
    return { db, seen };
  }

  it('holds each statement back while a request is under way; inside a transaction only on PostgreSQL', async () => {
    for (const kind of ['postgres', 'pglite'] as const) {
      const gauge = createRequestGauge();
      const n = new Int32Array(gauge);
      const { db, seen } = recordingDb(kind);
      // a long bound, so only the end of the request lets a statement through
      const gated = steppingAside(db, new StepAside(gauge, { maxPauseMs: 60_000, share: 1 }));
      Atomics.store(n, 0, 1);
      const q = gated.query('SELECT 1');
      await sleep(5);
      expect(seen).toEqual([]);
      Atomics.store(n, 0, 0);
      Atomics.notify(n, 0);
      await q;
      expect(seen).toEqual(['SELECT 1']);
      // a request arrives inside a transaction
      let inside!: () => void;
      const entered = new Promise<void>((r) => {
        inside = r;
      });
      let go!: () => void;
      const proceed = new Promise<void>((r) => {
        go = r;
      });
      const tx = gated.transaction(async (t) => {
        inside();
        await proceed;
        await t.query('UPDATE x');
      });
      await entered;
      Atomics.store(n, 0, 1);
      go();
      await sleep(5);
      expect(seen.slice(1)).toEqual(kind === 'postgres' ? ['BEGIN'] : ['BEGIN', 'UPDATE x', 'COMMIT']);
      Atomics.store(n, 0, 0);
      Atomics.notify(n, 0);
      await tx;
      expect(seen.slice(1)).toEqual(['BEGIN', 'UPDATE x', 'COMMIT']);
    }
  });
});
