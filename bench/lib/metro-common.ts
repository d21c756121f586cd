/**
 * What the steps of the metro benchmark share: its options, the working directory that keeps the
 * generated file, the imported data directory and the OSRM files between steps (so each step can
 * run alone), the figures file every step adds to, and the departure times.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { decodeGraph } from '../../src/network/index.js';
import type { Graph } from '../../src/network/graph.js';
import { localParts, parseIsoToUnixS } from '../../src/time/index.js';
import { quantile, type LoadResult } from './http-load.js';
import { runMeasured } from './measured.js';

/** Options of one run of the metro benchmark. */
export interface MetroBench {
  edges: number;
  seed: number;
  /** working directory kept between runs */
  dir: string;
  /** the generated OSM file */
  file: string;
  /** data directory with region `metro` imported */
  dataDir: string;
}

/** Reads `--edges N --seed N --dir DIR --step NAME` from the command line. */
export function metroOptions(argv: readonly string[]): MetroBench & { step?: string } {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const edges = Number(value('--edges') ?? 1_000_000);
  const seed = Number(value('--seed') ?? 42);
  if (!Number.isInteger(edges) || edges < 1000) throw new Error('--edges must be an integer ≥ 1000');
  if (!Number.isInteger(seed) || seed < 0) throw new Error('--seed must be a non-negative integer');
  const dir = resolve(
    value('--dir') ?? process.env.BENCH_METRO_DIR ?? join(tmpdir(), `streetwise-bench-metro-${edges}-${seed}`),
  );
  mkdirSync(dir, { recursive: true });
  return { edges, seed, dir, file: join(dir, 'metro.osm.pbf'), dataDir: join(dir, 'data'), step: value('--step') };
}

/** The CLI as users run it (compiled). */
export const CLI = [process.execPath, 'bin/streetwise.js'] as const;

/** Generates the metro file unless it is there; returns the measured run when it generated. */
export async function ensureMetroFile(b: MetroBench, force = false): Promise<ReturnType<typeof runMeasured> | null> {
  if (!force && existsSync(b.file)) return null;
  const run = await runMeasured(CLI[0], [
    CLI[1],
    'demo',
    '--size',
    'metro',
    '--no-import',
    '--edges',
    String(b.edges),
    '--seed',
    String(b.seed),
    '--out',
    b.file,
  ]);
  if (run.code !== 0) throw new Error(`metro generation failed: ${run.stderr.slice(-800)}`);
  return run;
}

/** The imported metro's graph (read from graph.bin, without the rest of the bundle). */
export function metroGraph(dataDir: string, region = 'metro'): Graph {
  return decodeGraph(readFileSync(join(dataDir, 'regions', region, 'graph.bin')));
}

/** Adds figures under `key` to `<dir>/figures.json`. */
export function recordFigures(b: MetroBench, key: string, figures: Record<string, unknown>): void {
  const path = join(b.dir, 'figures.json');
  const all = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  all[key] = { ...figures, at: new Date().toISOString() };
  writeFileSync(path, `${JSON.stringify(all, null, 2)}\n`);
}

/** Every figure recorded so far. */
export function readFigures(b: MetroBench): Record<string, Record<string, number | string>> {
  const path = join(b.dir, 'figures.json');
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
}

/** Unix seconds of the next Monday at `hh`:00 local time in `tz`. */
export function nextMonday(tz: string, hh: number): number {
  for (let d = 1; d <= 8; d++) {
    const p = localParts(Date.now() / 1000 + d * 86400, tz);
    if (p.dayOfWeek !== 1) continue;
    const iso = `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}T${String(hh).padStart(2, '0')}:00:00`;
    return parseIsoToUnixS(iso, tz) as number;
  }
  throw new Error('no Monday ahead');
}

/** ISO 8601 UTC without milliseconds. */
export function isoZ(s: number): string {
  return new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** p50 / p99 / failures of a load run. */
export function latencyOf(r: LoadResult): { p50: number; p99: number; failed: number; sample?: string } {
  const failed = r.errors + [...r.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
  return { p50: quantile(r.ms, 0.5), p99: quantile(r.ms, 0.99), failed, sample: r.sampleFailure };
}

/** "p50 1.23 ms  p99 4.56 ms" (and failures). */
export function fmtLatency(l: ReturnType<typeof latencyOf>): string {
  return `p50 ${l.p50.toFixed(2)} ms  p99 ${l.p99.toFixed(2)} ms${l.failed ? `  (${l.failed} failed, e.g. ${l.sample})` : ''}`;
}
