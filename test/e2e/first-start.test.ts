/**
 * The new user's path: `streetwise serve` on an empty data directory generates the demo city,
 * loads its parking data, simulates its traffic, prints the demo app and curl commands, and then
 * answers them: an app token, a route, lots near the centre, intersection metrics.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { hashTokenFor } from '../../src/auth/index.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('first start of the demo', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'streetwise-e2e-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves all three APIs with the printed demo application', async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const deadline = Date.now() + 170_000;
    while (!/curl -s/.test(out)) {
      if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${err}`);
      if (Date.now() > deadline) throw new Error(`serve did not start in time:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(out).toContain(`http://127.0.0.1:${port}`);
    const appId = /appId:\s+(\S+)/.exec(out)![1];
    const appKey = /appKey:\s+(\S+)/.exec(out)![1];
    const base = `http://127.0.0.1:${port}`;

    const tok = await fetch(`${base}/v1/AppToken?appId=${appId}&hashToken=${hashTokenFor(appId, appKey)}`);
    expect(tok.status).toBe(200);
    const token = ((await tok.json()) as { result: { token: string } }).result.token;
    expect(token.split('.')).toHaveLength(3);

    // Every curl line of the banner works as printed (with $TOKEN substituted).
    const curls = out.split('\n').filter((l) => l.trim().startsWith('curl -s') && !l.includes('AppToken'));
    expect(curls.length).toBe(3);
    for (const line of curls) {
      const url = /"(http[^"]+)"/.exec(line)![1].replace('$TOKEN', token);
      const post = line.includes('-X POST');
      const body = post ? /-d '([^']+)'/.exec(line)![1] : undefined;
      const res = await fetch(url, {
        method: post ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${token}`, ...(post ? { 'content-type': 'application/json' } : {}) },
        body,
      });
      const text = await res.text();
      expect(res.status, `${url}\n${text.slice(0, 500)}`).toBeLessThan(300);
      if (url.includes('/traffic/')) expect(JSON.parse(text).statusId).toBe(0);
      if (url.includes('/lots')) expect(JSON.parse(text).result.length).toBeGreaterThan(0);
      if (url.includes('/metrics/')) expect(JSON.parse(text).data.rows.length).toBeGreaterThan(0);
    }
  }, 180_000);
});
