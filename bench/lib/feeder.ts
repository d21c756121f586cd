/**
 * A probe feed in its own process: a fleet is another client than the users asking for routes,
 * so its body generation, garbage and HTTP work never pause the event loop that times FindRoute.
 *
 * Forked by `startFeeder` (the parent's tsx loader is inherited). Messages: parent → child
 * `{ t: 'resume' }`, `{ t: 'pause' }`, `{ t: 'stop' }`; child → parent `{ t: 'ready', bodies }` once
 * the bodies are built, `{ t: 'paused' }` once the posts in flight at a pause are answered,
 * `{ t: 'stopped', pings, seconds, posts, ranOut }`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { nextMessage } from './child-messages.js';
import { loadRegion } from '../../src/network/index.js';
import { simulate } from '../../src/sim/simulator.js';
import type { ProbeRecord } from '../../src/probes/ingest/records.js';

/** Pings in each feed request. */
export const PINGS_PER_POST = 600;
/** Feed requests in flight at once. */
export const FEED_CONCURRENCY = 4;

/** What the child is told. */
interface FeederArgs {
  url: string;
  token: string;
  regionDir: string;
  minutes: number;
}
/** What a feed achieved. */
export interface FeedFigures {
  pings: number;
  seconds: number;
  posts: number;
  ranOut: boolean;
}

/**
 * Simulated pings of the region over `minutes` up to `endS` (default: now), in time order, as NDJSON
 * bodies of PINGS_PER_POST (or `parts` bodies, each grouped by vehicle).
 */
export async function feedBodies(regionDir: string, minutes: number, parts?: number, endS?: number): Promise<string[]> {
  const region = loadRegion(regionDir);
  const nowS = Math.floor(Date.now() / 1000);
  const end = endS ?? nowS;
  const all: ProbeRecord[] = [];
  for await (const batch of simulate(region, {
    startS: end - minutes * 60,
    durationS: minutes * 60,
    penetration: 1,
    intervalS: 3,
    seed: parts ? 11 : 7,
    tracePrefix: `live${nowS}${parts ? 'b' : ''}`,
    stopAtEnd: true,
  }))
    all.push(...batch);
  // a feed arrives in time order; a large upload (a fleet's day) is grouped by vehicle
  all.sort(
    parts
      ? (a, b) => (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.ping.tS - b.ping.tS)
      : (a, b) => a.ping.tS - b.ping.tS,
  );
  const bodies: string[] = [];
  const size = parts ? Math.ceil(all.length / parts) : PINGS_PER_POST;
  for (let i = 0; i < all.length; i += size) {
    bodies.push(
      all
        .slice(i, i + size)
        .map((r) => JSON.stringify({ traceId: r.traceId, timestamp: r.ping.tS, lat: r.ping.lat, lon: r.ping.lon }))
        .join('\n'),
    );
  }
  return bodies;
}

/** A running feeder: posts its bodies while resumed, FEED_CONCURRENCY in flight. */
export interface Feeder {
  /** bodies built */
  bodies: number;
  /** begins (or goes on) posting */
  resume: () => void;
  /** stops issuing posts; resolves once every post in flight is answered */
  pause: () => Promise<void>;
  /** ends the feed (after pausing) and reports the pings acknowledged over the time it was posting */
  stop: () => Promise<FeedFigures>;
}

/**
 * Starts the feeder process and waits until its bodies are built. The feed posts between
 * `resume()` and `pause()`; its figures count the time from each resume to the answer of the last
 * post in flight at the pause.
 */
export async function startFeeder(args: FeederArgs): Promise<Feeder> {
  const child: ChildProcess = fork(new URL(import.meta.url), [JSON.stringify(args)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = (t: string): Promise<Record<string, unknown>> => nextMessage(child, 'feeder', t);
  const ready = await next('ready');
  return {
    bodies: ready.bodies as number,
    resume: () => child.send({ t: 'resume' }),
    pause: async () => {
      const paused = next('paused');
      child.send({ t: 'pause' });
      await paused;
    },
    stop: async () => {
      const stopped = next('stopped');
      child.send({ t: 'stop' });
      const m = await stopped;
      child.disconnect();
      return {
        pings: m.pings as number,
        seconds: m.seconds as number,
        posts: m.posts as number,
        ranOut: m.ranOut as boolean,
      };
    },
  };
}

/** The child: builds the bodies, then posts them while resumed. */
async function child(args: FeederArgs): Promise<void> {
  const bodies = await feedBodies(args.regionDir, args.minutes);
  let pings = 0;
  let posts = 0;
  let next = 0;
  /** posting time of the finished feed windows, ms */
  let postingMs = 0;
  let resumedAt = 0;
  let lastDone = 0;
  let lanes: Promise<void>[] | null = null;
  let paused = true;
  const lane = async (): Promise<void> => {
    while (!paused && next < bodies.length) {
      const body = bodies[next++];
      const r = await fetch(`${args.url}/v1/probes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${args.token}`, 'content-type': 'application/x-ndjson' },
        body,
      });
      const rep = (await r.json()) as { received?: number };
      if (r.status === 200) {
        pings += rep.received ?? 0;
        posts++;
      }
      lastDone = performance.now();
    }
  };
  /** stops issuing posts and waits for those in flight */
  const halt = async (): Promise<void> => {
    paused = true;
    if (lanes === null) return;
    await Promise.all(lanes);
    lanes = null;
    postingMs += lastDone - resumedAt;
  };
  process.on('message', (m: { t: string }) => {
    if (m.t === 'resume') {
      if (lanes !== null) return;
      paused = false;
      resumedAt = lastDone = performance.now();
      lanes = Array.from({ length: FEED_CONCURRENCY }, () => lane());
    } else if (m.t === 'pause') {
      void halt().then(() => process.send!({ t: 'paused' }));
    } else if (m.t === 'stop') {
      void halt().then(() =>
        process.send!({ t: 'stopped', pings, seconds: postingMs / 1000, posts, ranOut: next >= bodies.length }),
      );
    }
  });
  process.send!({ t: 'ready', bodies: bodies.length });
}

if (process.send !== undefined && process.argv[2]?.startsWith('{')) {
  await child(JSON.parse(process.argv[2]) as FeederArgs);
}
