/**
 * The NATS JetStream probe feed end to end: pings published on a fresh subject are consumed by
 * the real CLI (`ingest probes --from nats://…`) in a child process, which is killed with SIGKILL
 * mid-stream and started again; afterwards every ping is stored exactly once, every good message
 * is acknowledged, and the malformed ones are terminated rather than redelivered.
 * Needs nats-server with JetStream on 127.0.0.1:4222 (`.ci/run` starts it); skipped with a
 * message when none answers, except under CI=true. The database is a fresh schema of
 * TEST_DATABASE_URL when set, else a fresh embedded data directory.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/bundle.js';
import { simulate } from '../../src/sim/simulator.js';
import { openDb, openPostgres, type Db } from '../../src/store/index.js';
import type { ProbeRecord } from '../../src/probes/ingest/records.js';

const NATS_URL = 'nats://127.0.0.1:4222';

async function natsOrUndefined(): Promise<NatsConnection | undefined> {
  try {
    return await connect({ servers: NATS_URL, timeout: 2000, reconnect: false });
  } catch {
    return undefined;
  }
}

const nc = await natsOrUndefined();
if (nc === undefined) {
  if (process.env.CI === 'true')
    throw new Error(`no NATS server with JetStream at ${NATS_URL} (CI must start one: .ci/run)`);
  console.warn(
    `SKIPPED nats-feed.test.ts: no NATS server at ${NATS_URL} (start one with: nats-server -js -a 127.0.0.1 -p 4222)`,
  );
}

/** Waits until `cond` holds, polling every `everyMs`. */
async function until(
  cond: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
  everyMs = 20,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe.skipIf(nc === undefined)('NATS JetStream probe feed (ingest probes --from)', () => {
  const tag = randomBytes(4).toString('hex');
  const subject = `streetwise.test.${tag}.pings`;
  const stream = `SWTEST_${tag}`;
  const durable = `sw-${tag}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-nats-'));
  const pgUrl = process.env.TEST_DATABASE_URL;
  const schema = `nats_feed_${tag}`;
  const databaseUrl = pgUrl
    ? `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`
    : '';
  let jsm: JetStreamManager;
  let admin: Db | undefined;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    await createDemoRegion(dataDir);
    jsm = await jetstreamManager(nc!);
    if (pgUrl) {
      admin = await openPostgres(pgUrl, { max: 1 });
      await admin.query(`CREATE SCHEMA ${schema}`);
    }
  });

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await jsm?.streams.delete(stream).catch(() => false);
    await nc?.close();
    if (admin) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts the CLI consumer; resolves its exit with the output. */
  function startConsumer(extra: string[]): {
    child: ChildProcess;
    done: Promise<{ code: number | null; signal: string | null; out: string }>;
    output: () => string;
  } {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'ingest',
        'probes',
        '--from',
        NATS_URL,
        '--subject',
        subject,
        '--stream',
        stream,
        '--durable',
        durable,
        '--batch',
        '4',
        '--ack-wait',
        '2',
        ...extra,
      ],
      {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, REGION: 'demo', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const done = new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal, out }));
    });
    return { child, done, output: () => out };
  }

  it('stores every ping exactly once across a SIGKILL and a restart, acknowledging good messages and terminating bad ones', async () => {
    // 1. Pings: 30 simulated minutes of the 07:30 peak on the demo city, 10 pings per message, three payload shapes.
    const region = loadRegion(join(dataDir, 'regions', 'demo'));
    const pings: ProbeRecord[] = [];
    for await (const b of simulate(region, {
      startS: Date.UTC(2026, 0, 5, 12, 30) / 1000,
      durationS: 1800,
      penetration: 0.3,
      tripsPerDay: 8000,
      seed: 7,
    }))
      pings.push(...b);
    const all = pings.slice(0, 2000);
    expect(all).toHaveLength(2000);
    const js = jetstream(nc!);
    await jsm.streams.add({ name: stream, subjects: [subject] });
    const asJson = (r: ProbeRecord): Record<string, unknown> => ({
      traceId: r.traceId,
      timestamp: r.ping.tS,
      lat: r.ping.lat,
      lon: r.ping.lon,
      speedKph: r.ping.speedKph,
      headingDeg: r.ping.headingDeg,
    });
    let messages = 0;
    for (let i = 0; i < all.length; i += 10) {
      const group = all.slice(i, i + 10).map(asJson);
      const k = i / 10;
      const payload =
        k % 3 === 0
          ? group.map((o) => JSON.stringify(o)).join('\n')
          : k % 3 === 1
            ? JSON.stringify(group)
            : JSON.stringify({
                pings: k === 2 ? [...group, { traceId: 'x', timestamp: 'soon', lat: 0, lon: 0 }] : group,
              });
      await js.publish(subject, payload);
      messages++;
      if (k === 50) {
        await js.publish(subject, 'not json at all');
        messages++;
      }
      if (k === 120) {
        await js.publish(subject, '{"unrelated":true}');
        messages++;
      }
    }
    expect(messages).toBe(202);

    // 2. First consumer: killed with SIGKILL once some but not all messages are acknowledged.
    const first = startConsumer(['--flush-every', '3600', '--flush-pings', '10000000']);
    let ackedAtKill = 0;
    await until(
      async () => {
        if (first.child.exitCode !== null) throw new Error(`consumer exited early: ${(await first.done).out}`);
        try {
          ackedAtKill = (await jsm.consumers.info(stream, durable)).ack_floor.stream_seq;
        } catch {
          return false; // consumer not created yet
        }
        return ackedAtKill >= 20;
      },
      60_000,
      'the first consumer to acknowledge 20 messages',
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${first.output()}`);
    });
    first.child.kill('SIGKILL');
    const firstExit = await first.done;
    expect(firstExit.signal).toBe('SIGKILL');
    const afterKill = await jsm.consumers.info(stream, durable);
    expect(afterKill.ack_floor.stream_seq).toBeLessThan(messages);

    // 3. Restart: drains the rest (and the redeliveries after the 2 s ack wait), processes, exits.
    const second = startConsumer(['--until-idle', '3']);
    const timer = setTimeout(() => second.child.kill('SIGKILL'), 60_000);
    const secondExit = await second.done;
    clearTimeout(timer);
    expect(secondExit.code, secondExit.out).toBe(0);
    expect(secondExit.out).toMatch(
      /nats done: \d+ messages, \d+ pings \(\d+ new, \d+ already stored, 0 malformed\), \d+ messages rejected/,
    );

    // 4. JetStream: nothing pending or unacknowledged; the two bad messages were terminated (delivered once).
    const info = await jsm.consumers.info(stream, durable);
    expect(info.num_pending).toBe(0);
    expect(info.num_ack_pending).toBe(0);
    expect(info.ack_floor.stream_seq).toBe(messages);

    // 5. Database: each published ping exactly once, with its values.
    const db = pgUrl ? await openPostgres(databaseUrl, { max: 1 }) : await openDb({ dataDir });
    try {
      const rows = (
        await db.query<{ trace_id: string; t_s: number; lat: number; lon: number }>(
          'SELECT trace_id, t_s, lat, lon FROM probe_pings ORDER BY trace_id COLLATE "C", t_s',
        )
      ).rows;
      const want = [...all].sort((a, b) =>
        a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.ping.tS - b.ping.tS,
      );
      expect(rows.length).toBe(2000);
      expect(rows.map((r) => `${r.trace_id}@${Number(r.t_s)}`)).toEqual(want.map((r) => `${r.traceId}@${r.ping.tS}`));
      expect(
        rows.every(
          (r, i) =>
            Math.abs(Number(r.lat) - want[i].ping.lat) < 1e-9 && Math.abs(Number(r.lon) - want[i].ping.lon) < 1e-9,
        ),
      ).toBe(true);
      // The restart processed what it stored: trajectories exist for its traces.
      const trav = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_traversals')).rows[0].n;
      expect(trav).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('creates the default stream PROBES when no stream captures the subject (no --stream)', async () => {
    const auto = `streetwise.test.${tag}.auto`;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'ingest',
        'probes',
        '--from',
        NATS_URL,
        '--subject',
        auto,
        '--durable',
        `sw-auto-${tag}`,
        '--until-idle',
        '3',
      ],
      {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const done = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    try {
      await until(
        async () => {
          try {
            return (await jsm.streams.info('PROBES')).config.subjects?.includes(auto) === true;
          } catch {
            return false;
          }
        },
        60_000,
        'stream PROBES to capture the subject',
      );
      const js = jetstream(nc!);
      for (let k = 0; k < 5; k++) {
        await js.publish(
          auto,
          JSON.stringify({ traceId: `auto-${tag}`, timestamp: 1_767_612_600 + k * 3, lat: 39.29, lon: -76.61 }),
        );
      }
      expect(await done, out).toBe(0);
      expect(out).toMatch(/stream PROBES|PROBES now also captures/);
      expect(out).toMatch(/nats done: 5 messages, 5 pings \(5 new/);
    } finally {
      const info = await jsm.streams.info('PROBES').catch(() => undefined);
      if (info) {
        const rest = (info.config.subjects ?? []).filter((x) => x !== auto);
        if (rest.length === 0) await jsm.streams.delete('PROBES').catch(() => false);
        else await jsm.streams.update('PROBES', { ...info.config, subjects: rest }).catch(() => undefined);
      }
    }
  }, 120_000);
});
