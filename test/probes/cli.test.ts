import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/index.js';
import { loadConfig } from '../../src/config/load.js';
import { registerIngest } from '../../src/cli/ingest.js';
import { registerSimulate } from '../../src/cli/simulate.js';
import type { CliDeps } from '../../src/cli/deps.js';
import type { Db } from '../../src/store/db.js';
import { openProbeTestDb } from './db.js';
import { runMigrations } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';

describe('streetwise simulate / ingest probes (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'streetwise-probes-cli-'));
  let db: Db;
  let deps: CliDeps;
  beforeAll(async () => {
    await createDemoRegion(dir);
    db = await openProbeTestDb();
    await runMigrations(db, allMigrations()); // the CLI's withDb migrates everything
    const config = loadConfig({ 'store.dataDir': dir, 'region.name': 'demo' }, {});
    deps = { config: () => config, withDb: (fn) => fn(db), server: async () => undefined, regionGiven: () => true };
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (...args: string[]): Promise<string> => {
    const program = new Command().exitOverride();
    registerIngest(program, deps);
    registerSimulate(program, deps);
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
      lines.push(a.join(' '));
    });
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await program.parseAsync(['node', 'streetwise', ...args]);
    } finally {
      spy.mockRestore();
      err.mockRestore();
    }
    return lines.join('\n');
  };

  it('simulates to a CSV file, ingests it with malformed rows reported by line, and re-ingests idempotently', async () => {
    const csv = join(dir, 'sim.csv');
    const out = await run(
      'simulate',
      '--hours',
      '0.5',
      '--start',
      '2026-01-06T07:30:00',
      '--penetration',
      '0.3',
      '--trips-per-day',
      '8000',
      '--seed',
      '5',
      '--out',
      csv,
      '--no-ingest',
    );
    expect(out).toMatch(/simulated 0\.5 h from 2026-01-06T12:30:00.000Z/);
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows[0]).toBe('trace_id,timestamp,lat,lon,speed_kph,heading');
    writeFileSync(csv, `${rows.join('\n')}\nbroken-row\n`);
    const first = await run('ingest', 'probes', csv);
    expect(first).toContain(`pings: ${rows.length - 1} read, ${rows.length - 1} new, 0 already stored, 1 malformed`);
    expect(first).toContain(`line ${rows.length + 1}: expected at least 4 columns`);
    expect(first).toMatch(/speeds: these traces cover [1-9]\d* edges/);
    // distinct edges, never a sum over batches: at most the region's edge count
    const covered = Number(/these traces cover (\d+) edges/.exec(first)![1]);
    expect(covered).toBeLessThanOrEqual(loadRegion(join(dir, 'regions', 'demo')).graph.edgeCount);
    expect(first).toMatch(/intersection facts: [1-9]\d* from [1-9]\d* trajectories/);
    const again = await run('ingest', 'probes', csv);
    expect(again).toContain(`0 new, ${rows.length - 1} already stored`);
  });

  it('rejects bad options naming them', async () => {
    await expect(run('simulate', '--penetration', '2')).rejects.toThrow(/--penetration must be a number in 0\.\.1/);
    await expect(run('ingest', 'probes', join(dir, 'x.txt'))).rejects.toThrow(
      /--format must be json, ndjson \(jsonl\), csv or fcd/,
    );
    await expect(run('ingest', 'probes', join(dir, 'x.json'), '--columns', 'speed=v:mps')).rejects.toThrow(
      '--columns and --header apply to CSV files only',
    );
    await expect(run('ingest', 'probes', join(dir, 'x.csv'), '--columns', 'speed=v:furlongs')).rejects.toThrow(
      'columns: unknown speed unit "furlongs" for column v',
    );
    await expect(run('ingest', 'probes', '--from', 'http://x', '--subject', 's')).rejects.toThrow(
      /--from must be a NATS URL/,
    );
    await expect(run('ingest', 'probes', '--from', 'nats://127.0.0.1:4222')).rejects.toThrow(/--subject is required/);
    await expect(run('ingest', 'probes')).rejects.toThrow(/give a probe file/);
  });

  it('says what to do in CLI syntax: every missing column, and a file whose rows are all malformed fails', async () => {
    const noTime = join(dir, 'no-time.csv');
    writeFileSync(noTime, 'vehicle,when,lat,lon\na,2026-01-06T07:30:00Z,39.29,-76.61\n');
    await expect(run('ingest', 'probes', noTime)).rejects.toThrow(/map one with --columns 'time=<name>'$/);
    const tsIso = join(dir, 'ts-iso.csv');
    writeFileSync(tsIso, 'vehicle_id,ts_iso,lat,lon\nb,not-a-time,39.29,-76.61\nb,also-not,39.29,-76.61\n');
    await expect(run('ingest', 'probes', tsIso)).rejects.toThrow(/no ping could be read: all 2 rows are malformed/);
  });

  it('reads a bare speed column as km/h (the rule of every probe format); --columns gives another unit', async () => {
    const csv = join(dir, 'legacy.csv');
    // An old simulator file: speed in km/h under a bare "speed" header; one trace along a demo street.
    const sim = readFileSync(join(dir, 'sim.csv'), 'utf8').trim().split('\n').slice(1, 40);
    writeFileSync(
      csv,
      ['vehicle,time,lat,lon,speed,heading', ...sim.map((r) => r.replace(/^[^,]+/, 'legacy-1'))].join('\n'),
    );
    const out = await run('ingest', 'probes', csv);
    expect(out).toContain('pings: 39 read, 39 new, 0 already stored, 0 malformed (region demo, into the database)');
    const first = async (trace: string) =>
      (
        await db.query<{ s: number }>(
          `SELECT speed_kph AS s FROM probe_pings WHERE trace_id = '${trace}' ORDER BY t_s LIMIT 1`,
        )
      ).rows[0].s;
    expect(await first('legacy-1')).toBeCloseTo(Number(sim[0].split(',')[4]), 1);
    writeFileSync(
      csv,
      ['vehicle,time,lat,lon,speed,heading', ...sim.map((r) => r.replace(/^[^,]+/, 'legacy-mph'))].join('\n'),
    );
    await run('ingest', 'probes', csv, '--columns', 'speed=speed:mph');
    expect(await first('legacy-mph')).toBeCloseTo(Number(sim[0].split(',')[4]) * 1.609344, 1);
  });
});
