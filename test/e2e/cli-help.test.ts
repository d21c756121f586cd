/**
 * What the command line says before anything runs: `serve --help` lists its settings, a port that
 * is taken names the port and how to choose another, `npm run bench -- --help` prints usage
 * without running a benchmark.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/processes.js';

describe('command line help and start-up errors', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-cli-help-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('streetwise serve --help lists the settings (port, host, data directory, database, threads)', async () => {
    const r = await runCli(['serve', '--help'], { DATA_DIR: dataDir });
    expect(r.code).toBe(0);
    for (const flag of ['--port <port>', '--host <host>', '--data-dir <dir>', '--database-url <url>', '--threads <n>'])
      expect(r.stdout).toContain(flag);
    expect(r.stdout).toMatch(/PORT \/ --port/);
  });

  it('a port already in use stops serve at once, naming the port and the setting to change', async () => {
    const taken: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)),
    );
    try {
      const r = await runCli(['serve'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use by another program`);
      expect(r.stderr).toContain('--port <n> (or PORT=<n>)');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('npm run bench -- --help prints the benchmarks and runs none', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(/^usage: npm run bench/);
    expect(out).toMatch(/\n {2}routing +FindRoute latency/);
    expect(out).not.toContain('=== ');
  });
});
