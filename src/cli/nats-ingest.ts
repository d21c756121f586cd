/**
 * `streetwise ingest probes --from nats://… --subject …`: runs the JetStream probe feed into the
 * CLI's probe sink until SIGINT/SIGTERM (or `--until-idle`), logging totals as they grow. On a
 * signal it stops pulling, stores and acknowledges what it holds, processes, and exits 0.
 */
import type { ProbeSink } from '../app/probe-sink.js';
import { consumeNatsProbes, type NatsFeedOptions, type NatsFeedTotals } from '../probes/feeds/nats-feed.js';
import { formatDuration } from './progress.js';

/** The NATS flags of `ingest probes`. */
export interface NatsCliOptions {
  from?: string;
  subject?: string;
  stream?: string;
  durable: string;
  batch: string;
  ackWait: string;
  flushEvery: string;
  flushPings: string;
  untilIdle?: string;
}

/** Reads a number flag or throws naming it. */
function num(flag: string, v: string, min: number, max: number, integer: boolean): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new Error(`--${flag} must be ${integer ? 'an integer' : 'a number'} in ${min}..${max} (got ${v})`);
  }
  return n;
}

/** Checks the NATS flags and turns them into feed options. */
export function natsOptionsFrom(o: NatsCliOptions): NatsFeedOptions {
  const from = o.from ?? '';
  if (!/^(nats|tls):\/\/[^\s/]+(,(nats|tls):\/\/[^\s/]+)*$/.test(from))
    throw new Error(`--from must be a NATS URL such as nats://127.0.0.1:4222 (got ${from})`);
  if (o.subject === undefined || !/^[^\s]+$/.test(o.subject))
    throw new Error('--subject is required with --from (e.g. --subject probes.fleet1)');
  for (const [flag, name] of [
    ['stream', o.stream],
    ['durable', o.durable],
  ] as const) {
    if (name !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(name))
      throw new Error(`--${flag} must be 1-64 letters, digits, _ or - (got ${name})`);
  }
  return {
    servers: from,
    subject: o.subject,
    stream: o.stream,
    durable: o.durable,
    batch: num('batch', o.batch, 1, 10_000, true),
    ackWaitS: num('ack-wait', o.ackWait, 1, 3600, false),
    flushEveryS: num('flush-every', o.flushEvery, 0.1, 86_400, false),
    flushEveryPings: num('flush-pings', o.flushPings, 1, 10_000_000, true),
    untilIdleS: o.untilIdle === undefined ? undefined : num('until-idle', o.untilIdle, 0.1, 86_400, false),
  };
}

/** Runs the feed into `sink`, stopping cleanly on SIGINT/SIGTERM; prints the totals. */
export async function ingestFromNats(
  sink: ProbeSink,
  opts: NatsFeedOptions,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<NatsFeedTotals> {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    stream.write(`${sig}: stopping after the current pull (stored pings are acknowledged and processed)\n`);
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const t0 = Date.now();
  let lastLog = 0;
  const line = (t: NatsFeedTotals): string => {
    const s = (Date.now() - t0) / 1000;
    return (
      `nats: ${t.acked} messages, ${t.pings} pings (${t.inserted} new, ${t.duplicates} already stored, ${t.malformedPings} malformed), ` +
      `${t.terminated} messages rejected, ${Math.round(t.pings / Math.max(0.001, s))} pings/s, ${formatDuration(s)} elapsed`
    );
  };
  stream.write(
    `nats: consuming ${opts.subject} from ${opts.servers} as ${opts.durable ?? 'streetwise-probes'} into ${sink.via}\n`,
  );
  try {
    const totals = await consumeNatsProbes(sink, {
      ...opts,
      signal: ac.signal,
      log: (l) => stream.write(`nats: ${l}\n`),
      onProgress: (t) => {
        if (Date.now() - lastLog < 2000) return;
        lastLog = Date.now();
        stream.write(`${line(t)}\n`);
      },
    });
    console.log(line(totals).replace(/^nats: /, 'nats done: '));
    return totals;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
