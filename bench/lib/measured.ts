/**
 * A command run to completion with its wall time and peak resident memory, measured by GNU time
 * (`/usr/bin/time -f`, Debian package `time`) around it; without GNU time the peak is unknown.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GNU_TIME = '/usr/bin/time';

/** What a measured run gave. */
export interface MeasuredRun {
  code: number | null;
  wallS: number;
  /** peak resident set size of the command (and its children), MB; NaN without GNU time */
  peakMb: number;
  /** CPU seconds (user + system) of the command; NaN without GNU time */
  cpuS: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd args` with `env` added, to completion. */
export async function runMeasured(cmd: string, args: string[], env: Record<string, string> = {}): Promise<MeasuredRun> {
  const out = join(tmpdir(), `streetwise-time-${process.pid}-${Date.now()}`);
  const timed = existsSync(GNU_TIME);
  const [file, argv] = timed ? [GNU_TIME, ['-f', '%e %M %U %S', '-o', out, cmd, ...args]] : [cmd, args];
  const t0 = performance.now();
  const child = spawn(file, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const wallS = (performance.now() - t0) / 1000;
  let peakMb = Number.NaN;
  let cpuS = Number.NaN;
  if (timed && existsSync(out)) {
    const last = readFileSync(out, 'utf8').trim().split('\n').pop() ?? '';
    const [, kb, user, sys] = last.split(' ');
    peakMb = Number(kb) / 1024;
    cpuS = Number(user) + Number(sys);
    rmSync(out, { force: true });
  }
  return { code, wallS, peakMb, cpuS, stdout, stderr };
}

/** Peak resident memory of a running process so far (VmHWM), MB. */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Resident memory of a running process now (VmRSS), MB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** CPU seconds (user + system) a running process has used so far. */
export function cpuSecondsOf(pid: number): number {
  // fields after the command name (which may hold spaces): utime and stime are the 12th and 13th
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/**
 * Waits (up to `limitMs`) until a process is idle: under 5 % of a core over 2 s. A server that
 * builds structures in the background after its first requests (window tables) is measured once
 * they are done, as it serves for the rest of its life.
 */
export async function processIdle(pid: number, limitMs = 180_000): Promise<number> {
  const t0 = Date.now();
  let last = cpuSecondsOf(pid);
  while (Date.now() - t0 < limitMs) {
    await new Promise((r) => setTimeout(r, 2000));
    const now = cpuSecondsOf(pid);
    if (now - last < 0.1) break;
    last = now;
  }
  return (Date.now() - t0) / 1000;
}
