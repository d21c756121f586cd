/**
 * Throughput with wrk (Debian package `wrk`), the load generator OSRM's figures are taken with:
 * a C client that spends far less CPU per request than a Node one, which matters on a 2-core
 * machine where client and server share the cores. Requests cycle through the given paths; with
 * `newConnection` every request carries `Connection: close`, so wrk opens a connection for each.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when a `wrk` binary is on the PATH. */
export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;
}

/** What wrk measured. */
export interface WrkResult {
  requestsPerS: number;
  p50Ms: number;
  p99Ms: number;
  /** non-2xx/3xx answers and socket errors */
  failed: number;
}

function ms(v: string, unit: string): number {
  const n = Number(v);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : n;
}

/** Runs wrk with `threads` threads and `connections` connections for `seconds`. */
export function runWrk(
  baseUrl: string,
  paths: readonly string[],
  opts: { connections: number; threads: number; seconds: number; newConnection: boolean },
): WrkResult {
  const dir = mkdtempSync(join(tmpdir(), 'streetwise-wrk-'));
  try {
    const script = join(dir, 'paths.lua');
    const header = opts.newConnection ? '{ ["Connection"] = "close" }' : '{}';
    writeFileSync(
      script,
      `local paths = {\n${paths.map((p) => `  ${JSON.stringify(p)},`).join('\n')}\n}\nlocal i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format("GET", paths[(i % #paths) + 1], ${header})\nend\n`,
    );
    const out = execFileSync(
      'wrk',
      [`-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency', '-s', script, baseUrl],
      { encoding: 'utf8', maxBuffer: 1 << 24 },
    );
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
    const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(out);
    const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
    const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
    const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    const sockErrors = sock ? Number(sock[1]) + Number(sock[3]) + Number(sock[4]) : 0;
    return {
      requestsPerS: rps ? Number(rps[1]) : NaN,
      p50Ms: p50 ? ms(p50[1], p50[2]) : NaN,
      p99Ms: p99 ? ms(p99[1], p99[2]) : NaN,
      failed: (non2xx ? Number(non2xx[1]) : 0) + sockErrors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
