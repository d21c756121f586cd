/**
 * Import benchmark: for each `*.osm.pbf` in ../shared/data, imports it in a fresh child process
 * (so peak RSS is the import's own) and reports import time, peak memory, graph size, intersections,
 * signals, blocks, lots, and the start-up cost of `serve` with the bundle (loadRegion + locate index).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importRegion, loadRegion, locatorOf } from '../src/network/index.js';

const DATA_DIR = '../shared/data';
const SELF = fileURLToPath(import.meta.url);

interface WorkerResult {
  file: string;
  importMs: number;
  peakRssMb: number;
  nodes: number;
  edges: number;
  routableEdges: number;
  intersections: number;
  signals: number;
  blocks: number;
  lots: number;
  bundleMb: number;
  loadMs: number;
  locateIndexMs: number;
}

async function worker(file: string, outDir: string): Promise<void> {
  const name = file.replace(/^.*\//, '').replace(/\.osm\.pbf$/, '');
  const s = await importRegion(file, outDir, { name });
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  let bundleBytes = 0;
  for (const f of readdirSync(outDir)) bundleBytes += statSync(join(outDir, f)).size;
  const t0 = performance.now();
  const region = loadRegion(outDir);
  const t1 = performance.now();
  locatorOf(region.graph);
  const t2 = performance.now();
  const r: WorkerResult = {
    file: name,
    importMs: s.durationMs,
    peakRssMb,
    nodes: s.nodes,
    edges: s.edges,
    routableEdges: s.routableEdges,
    intersections: s.intersections,
    signals: s.signals,
    blocks: s.blocks,
    lots: s.lots,
    bundleMb: bundleBytes / 1e6,
    loadMs: t1 - t0,
    locateIndexMs: t2 - t1,
  };
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

/** Prints one line per extract in ../shared/data (nothing to do when the folder is absent). */
export async function benchImport(): Promise<void> {
  if (!existsSync(DATA_DIR)) {
    console.log(`no extracts: ${DATA_DIR} not found`);
    return;
  }
  const files = readdirSync(DATA_DIR)
    .filter((f) => f.endsWith('.osm.pbf'))
    .sort();
  const tmp = mkdtempSync(join(tmpdir(), 'streetwise-bench-import-'));
  try {
    console.log(
      'extract      import ms  peak RSS MB  nodes   edges (routable)   intersections  signals  blocks  lots  bundle MB  load ms  locate index ms',
    );
    for (const f of files) {
      const out = spawnSync(process.execPath, ['--import', 'tsx', SELF, '--worker', join(DATA_DIR, f), join(tmp, f)], {
        encoding: 'utf8',
      });
      if (out.status !== 0) {
        console.log(`${f}: import failed: ${out.stderr.trim().split('\n').slice(-3).join(' | ')}`);
        continue;
      }
      const r = JSON.parse(out.stdout.trim().split('\n').pop()!) as WorkerResult;
      console.log(
        `${r.file.padEnd(12)} ${String(r.importMs).padStart(9)}  ${r.peakRssMb.toFixed(0).padStart(11)}  ${String(r.nodes).padStart(5)}  ` +
          `${String(r.edges).padStart(6)} (${String(r.routableEdges).padStart(6)})   ${String(r.intersections).padStart(13)}  ${String(r.signals).padStart(7)}  ` +
          `${String(r.blocks).padStart(6)}  ${String(r.lots).padStart(4)}  ${r.bundleMb.toFixed(2).padStart(9)}  ${r.loadMs.toFixed(0).padStart(7)}  ${r.locateIndexMs.toFixed(0).padStart(15)}`,
      );
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF && process.argv[2] === '--worker') {
  await worker(process.argv[3], process.argv[4]);
} else if (process.argv[1] === SELF) {
  await benchImport();
}
