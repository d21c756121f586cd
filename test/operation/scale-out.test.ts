/**
 * Ingestion scaled out: one seeded feed, interleaved in time, stored batch by batch while ingestion
 * workers (`serve --roles ingestion`, real processes) run on one PostgreSQL — once with one worker,
 * once with three of which one is killed with SIGKILL mid-feed and started again later. The
 * traversals, intersection facts and learned speed bins end identical, with every ping stored
 * once and no trace left pending; every partition is held again after the kill.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/index.js';
import type { Region } from '../../src/network/region.js';
import { simulate } from '../../src/sim/simulator.js';
import type { ProbeRecord } from '../../src/probes/ingest/records.js';
import { ingestRecords } from '../../src/probes/ingest/ingest.js';
import { pendingBacklog } from '../../src/probes/ingest/pending.js';
import { openPostgres, runMigrations, type Db } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';
import { startServer, type ServerProcess } from '../helpers/processes.js';
import { countHeld } from '../../src/store/partition-leases.js';
import { probePool } from '../../src/app/ingestion/intake.js';
import { testDatabaseUrl } from '../helpers/context.js';

const baseUrl = testDatabaseUrl();
if (!baseUrl) {
  if (process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set under CI=true');
  console.warn('ingestion scale-out: skipped (set TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test)');
}

/** The tables a feed leaves, in a fixed order. */
async function dump(db: Db): Promise<Record<string, unknown[]>> {
  const q = async (sql: string): Promise<unknown[]> => (await db.query(sql)).rows;
  return {
    traversals: await q(
      'SELECT trace_id, part, seq, map_version, edge_id, enter_s, exit_s, covered, bin_of_week, speed_kph, pings::text AS pings FROM probe_traversals ORDER BY trace_id, part, seq',
    ),
    facts: await q(
      `SELECT trace_id, part, intersection_key, occurrence, movement_id, in_edge, out_edge, entry_s, exit_s,
         local_day::text, local_minute, zone_length_m, travel_time_s, free_flow_s, control_delay_s, stopped,
         stop_duration_s, approach_speed_kph FROM analytics_fact ORDER BY trace_id, part, intersection_key, occurrence`,
    ),
    learned: await q('SELECT * FROM learned_speed_bins ORDER BY map_version, edge_id, bin_of_week'),
    pings: await q('SELECT count(*)::int AS n FROM probe_pings'),
  };
}

const until = async (what: string, ok: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

describe.skipIf(!baseUrl)('ingestion scaled out over worker processes on one PostgreSQL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-scale-'));
  const tag = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let region: Region;
  const batches: ProbeRecord[][] = [];
  const opened: Array<{ db: Db; schema: string }> = [];
  const workers: ServerProcess[] = [];

  beforeAll(async () => {
    await createDemoRegion(dataDir);
    renameSync(join(dataDir, 'regions', 'demo'), join(dataDir, 'regions', 'scale'));
    region = loadRegion(join(dataDir, 'regions', 'scale'));
    const startS = Date.UTC(2026, 0, 7, 12, 30) / 1000;
    const records: ProbeRecord[] = [];
    for await (const b of simulate(region, {
      startS,
      durationS: 1200,
      penetration: 0.3,
      tripsPerDay: 20_000,
      intervalS: 3,
      seed: 11,
      tracePrefix: 'so',
      stopAtEnd: true,
    }))
      records.push(...b);
    records.sort((a, b) => a.ping.tS - b.ping.tS);
    for (let i = 0; i < records.length; i += 300) batches.push(records.slice(i, i + 300));
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) await w.kill().catch(() => undefined);
    for (const { db, schema } of opened) {
      await db.close();
      const a = await openPostgres(baseUrl!);
      await a.query(`DROP SCHEMA ${schema} CASCADE`);
      await a.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A fresh schema, its URL and an open connection. */
  async function schemaDb(name: string): Promise<{ db: Db; url: string }> {
    const schema = `t_so_${name}_${tag}`;
    const a = await openPostgres(baseUrl!);
    await a.query(`CREATE SCHEMA ${schema}`);
    await a.close();
    const url = `${baseUrl}${baseUrl!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const db = await openPostgres(url);
    await runMigrations(db, allMigrations());
    opened.push({ db, schema });
    return { db, url };
  }

  const worker = async (url: string): Promise<ServerProcess> => {
    const w = await startServer({ DATA_DIR: dataDir, DATABASE_URL: url, REGION: 'scale', ROLES: 'ingestion' });
    workers.push(w);
    return w;
  };

  /** Stores the feed batch by batch (a few ms apart); `at(i)` runs before batch i. */
  async function feed(db: Db, at: (i: number) => Promise<void>): Promise<void> {
    for (let i = 0; i < batches.length; i++) {
      await at(i);
      await ingestRecords(db, batches[i], { region: region.meta.name });
      await new Promise((r) => setTimeout(r, 20));
    }
    await until('every trace is processed', async () => (await pendingBacklog(db, region.meta.name)).traces === 0);
  }

  it('gives the same tables with 1 worker and with 3 workers of which one is killed mid-feed', async () => {
    expect(batches.length).toBeGreaterThan(20);
    const one = await schemaDb('one');
    const solo = await worker(one.url);
    await feed(one.db, async () => undefined);
    await solo.stop();
    const expected = await dump(one.db);
    const pings = batches.reduce((n, b) => n + b.length, 0);
    expect(expected.pings).toEqual([{ n: pings }]);
    expect(expected.traversals.length).toBeGreaterThan(1000);
    expect(expected.facts.length).toBeGreaterThan(100);
    expect(expected.learned.length).toBeGreaterThan(100);

    const three = await schemaDb('three');
    const w = [await worker(three.url), await worker(three.url), await worker(three.url)];
    await until(
      'the partitions are spread over three workers',
      async () => (await countHeld(three.db, probePool(region.meta.name))) === 64,
    );
    const killAt = Math.floor(batches.length / 3);
    const restartAt = Math.floor((2 * batches.length) / 3);
    await feed(three.db, async (i) => {
      if (i === killAt) {
        await w[1].kill();
        await until(
          'the killed worker’s partitions are taken over',
          async () => (await countHeld(three.db, probePool(region.meta.name))) === 64,
        );
      }
      if (i === restartAt) w[1] = await worker(three.url);
    });
    for (const x of w) await x.stop();
    const got = await dump(three.db);
    expect(got.pings).toEqual(expected.pings);
    expect(got.traversals).toEqual(expected.traversals);
    expect(got.facts).toEqual(expected.facts);
    expect(got.learned).toEqual(expected.learned);
  }, 600_000);
});
