/**
 * Real processes for operation tests: a `streetwise serve` child (the CLI from source through
 * tsx) that is ready once it prints its banner, and CLI commands run to completion.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A running server process. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** everything printed so far */
  stdout: () => string;
  stderr: () => string;
  /** SIGTERM and wait for the exit code */
  stop: () => Promise<number | null>;
  /** SIGKILL and wait */
  kill: () => Promise<void>;
}

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
/** The CLI as users run it: compiled, from dist/ (run `npm run build` first). */
const BUILT_CLI = ['bin/streetwise.js'];

/**
 * Starts `streetwise serve` with `env` (DATA_DIR, DATABASE_URL, …) and extra node flags (e.g. a
 * CPU profile) on a free port — from source through tsx, or `built` from dist/ as users run it;
 * resolves when it serves.
 */
export async function startServer(
  env: Record<string, string>,
  timeoutMs = 120_000,
  nodeArgs: string[] = [],
  built = false,
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, ...(built ? BUILT_CLI : CLI), 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      DEMO_SIMULATE: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const deadline = Date.now() + timeoutMs;
  while (!/is serving region|is ingesting probes of region/.test(out)) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}:\n${out}\n${err}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`serve did not start in time:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs a CLI command to completion. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...CLI, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  if (input !== undefined) child.stdin.end(input);
  else child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** An app token from `/v1/AppToken`, or the failing answer. */
export async function appToken(
  url: string,
  appId: string,
  hashToken: string,
): Promise<{ status: number; token?: string; statusId?: number }> {
  const r = await fetch(`${url}/v1/AppToken?appId=${appId}&hashToken=${hashToken}`);
  const body = (await r.json()) as { result?: { token?: string }; statusId?: number; status?: { statusId?: number } };
  return { status: r.status, token: body.result?.token, statusId: body.statusId };
}
