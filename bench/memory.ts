/**
 * Memory of a server by serving threads: `streetwise serve` (compiled) on Baltimore and on the
 * generated grid with 1M directed edges, with 1, 2 (the default on a 2-core machine) and 3 serving
 * threads; after start-up and 50 FindRoutes at Monday 08:00 (so each thread has built its window
 * tables for that bin), the process's peak RSS (VmHWM). The graph is shared between the threads;
 * each thread holds its own routing engine. `BENCH_MEMORY_GRID=0` skips the grid.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRegion, loadRegion } from '../src/network/index.js';
import type { Region } from '../src/network/region.js';
import { signalizedGrid } from '../test/routing/fixtures.js';
import { BALTIMORE_PBF, baltimoreDataDir, startBaltimoreServer } from './lib/baltimore-server.js';
import { ensureBuilt } from './lib/built.js';
import { odPairs } from './routing.js';
import { runLoad } from './lib/http-load.js';
import { socketSharing } from '../src/app/serving/socket-sharing.js';

// more than one serving thread needs reusePort (Node 22.12+ on Linux; src/app/serving/socket-sharing.ts)
const THREADS = socketSharing() === 'reusePort' ? [1, 2, 3] : [1];

function peakMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function measure(label: string, dataDir: string, regionName: string, region: Region): Promise<void> {
  const pairs = odPairs(region.graph, 50, 7);
  const rows: string[] = [];
  let first = NaN;
  for (const n of THREADS) {
    const t0 = Date.now();
    const { server, token } = await startBaltimoreServer(dataDir, {
      env: { SERVING_THREADS: String(n), REGION: regionName },
    });
    const startS = (Date.now() - t0) / 1000;
    try {
      const { port } = new URL(server.url);
      const requests = pairs.map(([a, b]) => ({
        path: `/traffic/api.ashx?Action=FindRoute&Format=JSON&WP_1=${a.lat.toFixed(6)},${a.lon.toFixed(6)}&WP_2=${b.lat.toFixed(6)},${b.lon.toFixed(6)}&DepartureTime=2026-11-30T13:00:00Z&Token=${token}`,
      }));
      // new connections: the kernel spreads them over the threads
      const r = await runLoad({
        host: '127.0.0.1',
        port: Number(port),
        requests,
        connections: n,
        newConnection: true,
        total: 50 * n,
      });
      await new Promise((res) => setTimeout(res, 2000));
      const mb = peakMb(server.child.pid!);
      if (n === 1) first = mb;
      rows.push(
        `  ${n} serving thread${n > 1 ? 's' : ' '}  peak RSS ${mb.toFixed(0).padStart(5)} MB${n > 1 ? `  (+${((mb - first) / (n - 1)).toFixed(0)} MB per added thread)` : ''}  ready in ${startS.toFixed(1)} s  (${r.ms.length} routes answered)`,
      );
    } finally {
      await server.stop();
    }
  }
  console.log(label);
  for (const r of rows) console.log(r);
}

/** Runs the memory benchmark. */
export async function benchMemory(): Promise<void> {
  ensureBuilt();
  const dir = await baltimoreDataDir('streetwise-bench-mem-');
  if (dir === undefined) console.log(`memory: ${BALTIMORE_PBF} not found, Baltimore skipped`);
  else {
    try {
      await measure(
        `Baltimore (${dir.region.graph.nodeCount} nodes, ${dir.region.graph.edgeCount} edges), embedded database`,
        dir.dataDir,
        'baltimore',
        dir.region,
      );
    } finally {
      dir.remove();
    }
  }
  if (process.env.BENCH_MEMORY_GRID === '0') return;
  const gridDir = mkdtempSync(join(tmpdir(), 'streetwise-bench-mem-grid-'));
  try {
    writeRegion(join(gridDir, 'regions', 'grid'), signalizedGrid(501, 10));
    const grid = loadRegion(join(gridDir, 'regions', 'grid'));
    await measure(
      `grid (${grid.graph.nodeCount} nodes, ${grid.graph.edgeCount} edges), embedded database`,
      gridDir,
      'grid',
      grid,
    );
  } finally {
    rmSync(gridDir, { recursive: true, force: true });
  }
}
