/**
 * An open-loop load in a process of its own that holds nothing but its requests: the client that
 * times the server must not stall on its own garbage. (A benchmark process that has loaded a
 * region collects a heap of hundreds of MB; its V8 helper threads then take both cores of a small
 * machine for tens of ms, and the requests in flight are charged with it.)
 *
 * It sends `rate` requests a second over `connections` keep-alive connections and polls
 * `/healthz` every `healthEveryMs`, from `start()` until `stop()`, and reports every request's
 * start (unix ms) and latency, so a caller can split one continuous run into windows. Forked by
 * `startTimedLoad` (the parent's tsx loader is inherited). Messages: parent → child `{ t: 'start' }`,
 * `{ t: 'stop' }`; child → parent `{ t: 'ready' }`, `{ t: 'stopped', ... }`.
 */
import { fork } from 'node:child_process';
import { nextMessage } from './child-messages.js';
import { build, LoadConnection, type LoadRequest } from './http-load.js';

/** What the child is given. */
interface TimedLoadArgs {
  host: string;
  port: number;
  requests: LoadRequest[];
  connections: number;
  rate: number;
  healthEveryMs: number;
}

/** What a run recorded; times are unix ms (`nowMs`). */
export interface TimedLoadResult {
  /** per request: start, latency ms, HTTP status (0: failed) */
  requests: Array<[number, number, number]>;
  /** per `/healthz` poll: start, latency ms, the reported status */
  health: Array<[number, number, string]>;
}

/** Unix ms with sub-ms resolution, comparable between the processes of one machine. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Forks the load process; `start()` begins the load, `stop()` ends it and returns what it recorded. */
export async function startTimedLoad(
  args: TimedLoadArgs,
): Promise<{ start: () => void; stop: () => Promise<TimedLoadResult> }> {
  const child = fork(new URL(import.meta.url), ['timed-load'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = (t: string): Promise<Record<string, unknown>> => nextMessage(child, 'load process', t);
  const ready = next('ready');
  child.send({ t: 'args', args });
  await ready;
  return {
    start: () => child.send({ t: 'start' }),
    stop: async () => {
      const stopped = next('stopped');
      child.send({ t: 'stop' });
      const m = await stopped;
      child.disconnect();
      return { requests: m.requests as TimedLoadResult['requests'], health: m.health as TimedLoadResult['health'] };
    },
  };
}

/** The child: runs the load between `start` and `stop`. */
function childMain(): void {
  let args: TimedLoadArgs;
  let built: Buffer[] = [];
  let stopped = false;
  const res: TimedLoadResult = { requests: [], health: [] };
  let running: Promise<unknown> | null = null;
  const sleepUntil = async (t: number): Promise<void> => {
    const wait = t - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  };
  let issued = 0;
  const sender = async (k: number, t0: number): Promise<void> => {
    const intervalMs = (1000 * args.connections) / args.rate;
    let nextAt = t0 + (intervalMs * k) / args.connections;
    const conn = new LoadConnection(args.host, args.port);
    while (!stopped) {
      await sleepUntil(nextAt);
      nextAt += intervalMs;
      if (stopped) break;
      const req = built[issued++ % built.length];
      const start = performance.now();
      let status = 0;
      try {
        status = await conn.exchange(req);
      } catch {
        // recorded as failed (status 0); the next request opens a new connection
      }
      res.requests.push([performance.timeOrigin + start, performance.now() - start, status]);
    }
    conn.close();
  };
  const health = async (): Promise<void> => {
    const url = `http://${args.host}:${args.port}/healthz`;
    while (!stopped) {
      const start = performance.now();
      let status = 'failed';
      try {
        const r = await fetch(url);
        status = ((await r.json()) as { status: string }).status;
      } catch {
        // recorded as failed
      }
      res.health.push([performance.timeOrigin + start, performance.now() - start, status]);
      await new Promise((r) => setTimeout(r, args.healthEveryMs));
    }
  };
  process.on('message', (m: { t: string; args?: TimedLoadArgs }) => {
    if (m.t === 'args') {
      args = m.args!;
      built = args.requests.map((r) => build(`${args.host}:${args.port}`, r, true));
      process.send!({ t: 'ready' });
    } else if (m.t === 'start') {
      const t0 = performance.now();
      running = Promise.all([...Array.from({ length: args.connections }, (_, k) => sender(k, t0)), health()]);
    } else if (m.t === 'stop') {
      stopped = true;
      void (running ?? Promise.resolve()).then(() => process.send!({ t: 'stopped', ...res }));
    }
  });
}

if (process.send !== undefined && process.argv[2] === 'timed-load') childMain();
