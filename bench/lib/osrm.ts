/**
 * OSRM v6.0.0, the routing anchor (`../shared/anchors/osrm`, benchmark only): prepares an OSM file
 * for the MLD pipeline (extract, partition, customize, each timed with its peak memory) and runs
 * `osrm-routed` on loopback.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../../test/helpers/processes.js';
import { type MeasuredRun, runMeasured } from './measured.js';

/** Where the OSRM binaries and profiles are. */
export const OSRM_DIR = resolve('../shared/anchors/osrm');

/** True when the OSRM binaries are there. */
export function hasOsrm(): boolean {
  return existsSync(join(OSRM_DIR, 'bin', 'osrm-routed'));
}

/** Timing of the preparation steps. */
export interface OsrmPrepared {
  /** base path of the .osrm files */
  base: string;
  steps: Array<{ name: string; run: MeasuredRun }>;
}

/** Runs extract, partition and customize on `pbf` in `dir` (skipped when already done there). */
export async function prepareOsrm(pbf: string, dir: string): Promise<OsrmPrepared> {
  mkdirSync(dir, { recursive: true });
  const input = join(dir, 'region.osm.pbf');
  const base = join(dir, 'region.osrm');
  const steps: OsrmPrepared['steps'] = [];
  if (existsSync(`${base}.cell_metrics`)) return { base, steps };
  copyFileSync(pbf, input);
  const bin = (name: string): string => join(OSRM_DIR, 'bin', name);
  const plan: Array<[string, string[]]> = [
    ['osrm-extract', ['-p', join(OSRM_DIR, 'profiles', 'car.lua'), input]],
    ['osrm-partition', [base]],
    ['osrm-customize', [base]],
  ];
  for (const [name, args] of plan) {
    const run = await runMeasured(bin(name), args);
    if (run.code !== 0)
      throw new Error(`${name} failed (${run.code}): ${run.stderr.slice(-500)}${run.stdout.slice(-500)}`);
    steps.push({ name, run });
  }
  return { base, steps };
}

/** A running osrm-routed. */
export interface OsrmServer {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `osrm-routed --algorithm mld` on `base` and waits until it answers. */
export async function startOsrm(base: string): Promise<OsrmServer> {
  const port = await freePort();
  const child = spawn(
    join(OSRM_DIR, 'bin', 'osrm-routed'),
    ['--algorithm', 'mld', '-i', '127.0.0.1', '-p', String(port), base],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const deadline = Date.now() + 600_000;
  while (!/running and waiting for requests/.test(out)) {
    if (child.exitCode !== null) throw new Error(`osrm-routed exited ${child.exitCode}: ${out.slice(-500)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('osrm-routed did not start in time');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
