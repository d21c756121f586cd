/**
 * Probe feed from NATS JetStream: a durable pull consumer on one subject, at least once. Several
 * processes may consume with the same durable name: JetStream hands each message to one of them
 * (and again to another when it is not acknowledged within the ack wait, e.g. its consumer died).
 * Each pull of up to `batch` messages is parsed (`payload.ts`), its pings are stored in one call
 * to the store, and only then are the messages acknowledged — so a crash before the
 * acknowledgement redelivers them, and the store's idempotence by (region, trace id, timestamp)
 * makes a redelivery harmless. The order of delivery does not matter: the owner of a trace
 * processes it from what is stored. A message without a single readable ping is terminated
 * (`term`: never redelivered) and logged; pings that fail validation inside an otherwise good
 * message are logged and skipped. When the target waits for processing (`flush`), it is asked to
 * every `flushEveryS` seconds or `flushEveryPings` pings, and once more when the feed stops (abort
 * signal, or `untilIdleS` seconds without messages and nothing pending on the consumer).
 */
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  JetStreamApiError,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import type { ProbeRecord } from '../ingest/records.js';
import { pingsFromPayload } from './payload.js';

/** Where the feed puts pings: stores batches (idempotent), waits for their processing. */
export interface PingStoreTarget {
  /** resolves once the pings are durably stored */
  store(records: readonly ProbeRecord[]): Promise<{ inserted: number; duplicates: number }>;
  /**
   * waits until what was stored is processed (by the owners of its traces, or here when nobody
   * would); absent in an ingestion process, whose own worker processes what it stores
   */
  flush?(): Promise<unknown>;
}

/** Options of `consumeNatsProbes`. */
export interface NatsFeedOptions {
  /** server URL(s), e.g. `nats://127.0.0.1:4222` (comma-separated for a cluster) */
  servers: string;
  /** subject the pings are published on (may be a wildcard such as `probes.>`) */
  subject: string;
  /** JetStream stream; default: the stream that captures `subject`, created as `PROBES` when none does */
  stream?: string;
  /** durable consumer name (default `streetwise-probes`): the feed resumes where this consumer stopped */
  durable?: string;
  /** messages per pull, 1..10000 (default 100) */
  batch?: number;
  /** seconds before an unacknowledged message is redelivered, e.g. after its consumer died (default 10) */
  ackWaitS?: number;
  /** wait for the processing of stored pings at least this often, seconds (default 10) */
  flushEveryS?: number;
  /** …or after this many new pings (default 50 000) */
  flushEveryPings?: number;
  /** stop once nothing arrived for this many seconds and the consumer has nothing pending */
  untilIdleS?: number;
  /** stops the feed: the current pull ends, its pings are stored and acknowledged, then a last flush */
  signal?: AbortSignal;
  /** one line per notable event (stream created, message terminated, flush) */
  log?: (line: string) => void;
  /** called after each pull with running totals */
  onProgress?: (t: NatsFeedTotals) => void;
}

/** Running totals of a feed. */
export interface NatsFeedTotals {
  /** messages acknowledged after their pings were stored */
  acked: number;
  /** messages terminated because they held no readable ping */
  terminated: number;
  /** pings read from acknowledged messages */
  pings: number;
  inserted: number;
  duplicates: number;
  /** malformed pings skipped inside acknowledged messages */
  malformedPings: number;
  /** times the stored pings were processed */
  flushes: number;
}

const DEFAULT_DURABLE = 'streetwise-probes';
const DEFAULT_STREAM = 'PROBES';

/**
 * Consumes probe pings from a JetStream subject into `target` until stopped; resolves with the totals.
 * @example
 * const ac = new AbortController();
 * process.once('SIGTERM', () => ac.abort());
 * await consumeNatsProbes(sink, { servers: 'nats://127.0.0.1:4222', subject: 'probes.fleet1', signal: ac.signal });
 */
export async function consumeNatsProbes(target: PingStoreTarget, opts: NatsFeedOptions): Promise<NatsFeedTotals> {
  const log = opts.log ?? (() => {});
  const batch = opts.batch ?? 100;
  const durable = opts.durable ?? DEFAULT_DURABLE;
  const flushEveryMs = (opts.flushEveryS ?? 10) * 1000;
  const flushEveryPings = opts.flushEveryPings ?? 50_000;
  const totals: NatsFeedTotals = {
    acked: 0,
    terminated: 0,
    pings: 0,
    inserted: 0,
    duplicates: 0,
    malformedPings: 0,
    flushes: 0,
  };
  const nc = await connect({ servers: opts.servers.split(','), name: `streetwise ingest (${durable})` });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = await ensureStream(jsm, opts.subject, opts.stream, log);
    await ensureConsumer(jsm, stream, durable, opts.subject, opts.ackWaitS ?? 10);
    const consumer = await jetstream(nc).consumers.get(stream, durable);
    let lastMessageAt = Date.now();
    let lastFlushAt = Date.now();
    let unflushed = 0;
    const flush = async (): Promise<void> => {
      if (unflushed === 0) return;
      await target.flush?.();
      totals.flushes++;
      log(`processed ${unflushed} new pings`);
      unflushed = 0;
      lastFlushAt = Date.now();
    };
    // A pull waits at most this long for messages, so idle checks and flushes still run (1 s is the minimum).
    const expires = Math.max(1000, Math.min(5000, ((opts.untilIdleS ?? 10) * 1000) / 2));
    while (opts.signal?.aborted !== true) {
      const messages = await consumer.fetch({ max_messages: batch, expires });
      const stop = (): void => {
        void messages.close();
      };
      opts.signal?.addEventListener('abort', stop, { once: true });
      const got: JsMsg[] = [];
      try {
        for await (const m of messages) got.push(m);
      } finally {
        opts.signal?.removeEventListener('abort', stop);
      }
      if (got.length > 0) {
        lastMessageAt = Date.now();
        const stored = await storeMessages(target, got, totals, log);
        unflushed += stored;
        // The acknowledgements reach the server before the next pull (and before a flush).
        await nc.flush();
        opts.onProgress?.(totals);
      }
      if (unflushed >= flushEveryPings || (unflushed > 0 && Date.now() - lastFlushAt >= flushEveryMs)) await flush();
      if (opts.untilIdleS !== undefined && Date.now() - lastMessageAt >= opts.untilIdleS * 1000) {
        const info = await consumer.info();
        if (info.num_pending === 0 && info.num_ack_pending === 0) break;
      }
    }
    await flush();
    return totals;
  } finally {
    await closeQuietly(nc);
  }
}

/** Stores the pings of a pull in one call, then acknowledges (or terminates) each message. Returns new pings. */
async function storeMessages(
  target: PingStoreTarget,
  msgs: readonly JsMsg[],
  totals: NatsFeedTotals,
  log: (l: string) => void,
): Promise<number> {
  const records: ProbeRecord[] = [];
  const verdicts: Array<'ack' | string> = [];
  for (const m of msgs) {
    const { records: rs, issues } = pingsFromPayload(m.string());
    if (rs.length === 0) {
      const why = issues.length > 0 ? issues[0].message : 'no pings';
      verdicts.push(why);
      continue;
    }
    if (issues.length > 0) {
      totals.malformedPings += issues.length;
      const where = issues[0].line !== undefined ? `line ${issues[0].line}` : `ping ${issues[0].index}`;
      log(
        `message ${m.seq} (${m.subject}): ${issues.length} malformed ping(s) skipped, first at ${where}: ${issues[0].message}`,
      );
    }
    for (const r of rs) records.push(r);
    totals.pings += rs.length;
    verdicts.push('ack');
  }
  let inserted = 0;
  if (records.length > 0) {
    let r: { inserted: number; duplicates: number };
    try {
      r = await target.store(records);
    } catch (err) {
      // Not stored: ask for redelivery now rather than after the ack wait.
      for (const m of msgs) m.nak();
      throw err;
    }
    inserted = r.inserted;
    totals.inserted += r.inserted;
    totals.duplicates += r.duplicates;
  }
  msgs.forEach((m, i) => {
    const v = verdicts[i];
    if (v === 'ack') {
      m.ack();
      totals.acked++;
    } else {
      m.term();
      totals.terminated++;
      log(`message ${m.seq} (${m.subject}) terminated, not redelivered: no readable ping (${v})`);
    }
  });
  return inserted;
}

/**
 * The stream to read: the one named (created when missing), or the one capturing the subject, or
 * `PROBES` (created, or made to capture the subject too).
 */
async function ensureStream(
  jsm: JetStreamManager,
  subject: string,
  name: string | undefined,
  log: (l: string) => void,
): Promise<string> {
  if (name !== undefined) {
    try {
      await jsm.streams.info(name);
      return name;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  } else {
    try {
      return await jsm.streams.find(subject);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  const stream = name ?? DEFAULT_STREAM;
  try {
    const info = await jsm.streams.info(stream);
    // the stream exists for other subjects: it captures this one too
    await jsm.streams.update(stream, { ...info.config, subjects: [...(info.config.subjects ?? []), subject] });
    log(`JetStream stream ${stream} now also captures ${subject}`);
    return stream;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await jsm.streams.add({ name: stream, subjects: [subject] });
  log(`created JetStream stream ${stream} capturing ${subject}`);
  return stream;
}

/** Creates the durable pull consumer, or brings an existing one's ack wait up to date. */
async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
  subject: string,
  ackWaitS: number,
): Promise<void> {
  const ackWait = nanos(ackWaitS * 1000);
  try {
    const info = await jsm.consumers.info(stream, durable);
    if (info.config.filter_subject !== undefined && info.config.filter_subject !== subject) {
      throw new Error(
        `consumer ${durable} on stream ${stream} reads ${info.config.filter_subject}, not ${subject}: choose another --durable`,
      );
    }
    if (info.config.ack_wait !== ackWait) await jsm.consumers.update(stream, durable, { ack_wait: ackWait });
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await jsm.consumers.add(stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: subject,
    ack_wait: ackWait,
  });
}

/**
 * Whether a JetStream API call failed because the stream or consumer does not exist (status 404:
 * `StreamNotFoundError` and `ConsumerNotFoundError`, also the "no stream matches subject" answer).
 */
export function isNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.status === 404;
}

async function closeQuietly(nc: NatsConnection): Promise<void> {
  try {
    await nc.drain();
  } catch {
    await nc.close().catch(() => {});
  }
}
