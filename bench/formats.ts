/**
 * Probe format benchmark: reads a generated body of 1M pings (JSON, NDJSON, CSV) in a fresh child
 * process per format and reports read throughput and the child's peak RSS, next to the peak RSS of
 * a child that only generates the body (node, tsx and the generator themselves). The body is made
 * on the fly, so the difference is what the reader holds.
 */
import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { readProbes } from '../src/probes/ingest/ingest.js';
import { probeBody } from '../test/helpers/probe-bodies.js';

const SELF = fileURLToPath(import.meta.url);
const N = 1_000_000;

async function worker(format: 'json' | 'ndjson' | 'csv' | 'none'): Promise<void> {
  let bytes = 0;
  let pings = 0;
  let issues = 0;
  const t0 = performance.now();
  const chunks = (function* () {
    for (const b of probeBody(format === 'none' ? 'ndjson' : format, N)) {
      bytes += b.length;
      yield b;
    }
  })();
  if (format === 'none') for (const b of chunks) void b;
  else for await (const r of readProbes(Readable.from(chunks), format, () => issues++)) if (r) pings++;
  const s = (performance.now() - t0) / 1000;
  process.stdout.write(
    `${JSON.stringify({ format, bytes, pings, issues, s, peakRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
}

/** Prints one line per format. */
export async function benchFormats(): Promise<void> {
  console.log('format   body MB   pings      read s   pings/s    peak RSS MB');
  for (const format of ['none', 'json', 'ndjson', 'csv']) {
    const out = spawnSync(process.execPath, ['--import', 'tsx', SELF, '--worker', format], { encoding: 'utf8' });
    if (out.status !== 0) {
      console.log(`${format}: failed: ${out.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      continue;
    }
    const r = JSON.parse(out.stdout.trim().split('\n').pop()!) as {
      bytes: number;
      pings: number;
      issues: number;
      s: number;
      peakRssMb: number;
    };
    const label = format === 'none' ? 'generator only' : format;
    console.log(
      `${label.padEnd(8)} ${(r.bytes / 1e6).toFixed(0).padStart(7)}   ${String(r.pings).padStart(7)}  ${r.s.toFixed(2).padStart(7)}   ${format === 'none' ? '        -' : String(Math.round(r.pings / r.s)).padStart(9)}   ${r.peakRssMb.toFixed(0).padStart(11)}`,
    );
  }
}

if (process.argv[2] === '--worker') await worker(process.argv[3] as 'json');
