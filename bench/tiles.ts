/**
 * Map tiles over real HTTP: Baltimore imported with `streetwise import` into a temporary data
 * directory, `streetwise serve` in its own process on a random loopback port, and this process
 * fetching every basemap tile of the region at zooms 12–14 one at a time (keep-alive, gzip), twice:
 * the first pass cuts each tile (cold), the second answers from the server's tile cache (warm).
 * Prints p50 / p95 / max latency per pass, tile counts and sizes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PBF = '../shared/data/baltimore.osm.pbf';
const ZOOMS = [12, 13, 14];
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Tiles (x, y) at zoom z covering [minLat, minLon, maxLat, maxLon]. */
function tilesOver(b: [number, number, number, number], z: number): Array<[number, number]> {
  const n = 2 ** z;
  const tx = (lon: number) => Math.floor(((lon + 180) / 360) * n);
  const ty = (lat: number) => {
    const r = (lat * Math.PI) / 180;
    return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
  };
  const out: Array<[number, number]> = [];
  for (let x = tx(b[1]); x <= tx(b[3]); x++) for (let y = ty(b[2]); y <= ty(b[0]); y++) out.push([x, y]);
  return out;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
}

async function waitFor(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`serve did not answer ${url} in time`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs the benchmark. */
export async function benchTiles(): Promise<void> {
  if (!existsSync(PBF)) {
    console.log(`Baltimore: ${PBF} not found, skipped`);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-bench-tiles-'));
  let child: ChildProcess | undefined;
  try {
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' };
    const imp = spawnSync(process.execPath, [...CLI, 'import', PBF, '--name', 'baltimore'], { env, encoding: 'utf8' });
    if (imp.status !== 0) throw new Error(`import failed: ${imp.stderr}`);
    const meta = JSON.parse(readFileSync(join(dataDir, 'regions', 'baltimore', 'region.json'), 'utf8')) as {
      meta: { bounds: [number, number, number, number] };
    };
    const port = await freePort();
    child = spawn(process.execPath, [...CLI, 'serve'], {
      env: { ...env, REGION: 'baltimore', PORT: String(port), HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/healthz`, child, 120_000);

    const tiles = ZOOMS.flatMap((z) => tilesOver(meta.meta.bounds, z).map(([x, y]) => [z, x, y] as const));
    console.log(
      `Baltimore basemap: ${tiles.length} tiles at z${ZOOMS[0]}–${ZOOMS[ZOOMS.length - 1]} over the extract's bounds; one request at a time, keep-alive, gzip`,
    );
    for (const pass of ['cold (cut on request)', 'warm (from the tile cache)']) {
      const ms: number[] = [];
      let bytes = 0,
        nonEmpty = 0,
        maxBytes = 0;
      for (const [z, x, y] of tiles) {
        const t0 = performance.now();
        const r = await fetch(`${base}/tiles/${z}/${x}/${y}.pbf`, { headers: { 'accept-encoding': 'gzip' } });
        const body = new Uint8Array(await r.arrayBuffer()); // fetch decodes gzip; the timing includes it
        ms.push(performance.now() - t0);
        if (r.status === 200) {
          nonEmpty++;
          const wire = Number(r.headers.get('content-length') ?? body.length);
          bytes += wire;
          maxBytes = Math.max(maxBytes, wire);
        } else if (r.status !== 204) throw new Error(`tile ${z}/${x}/${y}: HTTP ${r.status}`);
      }
      ms.sort((a, b) => a - b);
      console.log(
        `  ${pass}: p50 ${pct(ms, 0.5).toFixed(2)} ms, p95 ${pct(ms, 0.95).toFixed(2)} ms, max ${ms[ms.length - 1].toFixed(1)} ms; ${nonEmpty} tiles with data, gzip mean ${(bytes / Math.max(1, nonEmpty) / 1024).toFixed(1)} KiB, largest ${(maxBytes / 1024).toFixed(1)} KiB`,
      );
    }
  } finally {
    child?.kill('SIGTERM');
    if (child && child.exitCode === null) await new Promise((r) => child!.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTiles();
