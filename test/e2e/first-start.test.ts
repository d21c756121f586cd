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
import { request } from 'node:http';
import { createHash } from 'node:crypto';
import { hashTokenFor } from '../../src/auth/index.js';
import { docExamples, type DocExample } from '../helpers/doc-examples.js';
import { apiOf, shapeProblem } from '../helpers/error-shapes.js';

/** One HTTP request over TCP (fetch refuses a GET with a body; the availability example has one). */
function httpRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    if (body !== undefined) req.setHeader('content-length', Buffer.byteLength(body));
    req.end(body);
  });
}

/**
 * What a successful query example lacks to show something, or undefined: FindRoute / GetRoute a
 * route longer than 0, GetRouteTravelTimes a travel time above 0, /lots lots, /blocks blocks,
 * metrics rows, metadata intersections, availability windows.
 */
function contentProblem(path: string, type: string, text: string): string | undefined {
  const u = new URL(path, 'http://x');
  const json = /json/.test(type) ? (JSON.parse(text) as Record<string, any>) : undefined;
  const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  if (/^\/traffic\//i.test(u.pathname)) {
    const action = [...u.searchParams].find(([k]) => k.toLowerCase() === 'action')?.[1].toLowerCase();
    if (action === 'getroutetraveltimes') {
      const minutes: number[] = json
        ? (json.result?.trip?.route?.travelTimes ?? []).map(
            (t: { travelTimeMinutes?: number }) => t.travelTimeMinutes ?? 0,
          )
        : [...text.matchAll(/ travelTimeMinutes="(\d+)"/g)].map((m) => Number(m[1]));
      return minutes.some((m) => m > 0) ? undefined : 'no travel time above 0';
    }
    if (action === 'findroute' || action === 'getroute') {
      const distance = json
        ? Number(json.result?.trip?.routes?.[0]?.totalDistance ?? 0)
        : Number(/ totalDistance="([\d.]+)"/.exec(text)?.[1] ?? 0);
      return distance > 0 ? undefined : 'a route of length 0';
    }
    return undefined;
  }
  if (u.pathname === '/lots') return count(json?.result) > 0 ? undefined : 'no lots';
  if (u.pathname === '/blocks' || u.pathname === '/blocks/v3') return count(json?.result) > 0 ? undefined : 'no blocks';
  if (u.pathname === '/v1/metrics/intersections') return count(json?.data?.rows) > 0 ? undefined : 'no metric rows';
  if (u.pathname === '/v1/metadata/intersections') return count(json?.data) > 0 ? undefined : 'no intersections';
  if (u.pathname === '/v1/metrics/intersections/availability')
    return count(json?.data?.rows) > 0 ? undefined : 'no availability window';
  return undefined;
}

/** YYYY-MM-DD of `days` from now (UTC). */
function isoDay(days: number): string {
  return new Date(Date.now() + days * 86400_000).toISOString().slice(0, 10);
}

/**
 * Runs every example request of the README and docs/ against the server, in order (user
 * registrations first: the reservation examples log in as that user), with the placeholders filled
 * in; returns what did not answer as documented.
 */
async function runDocExamples(
  base: string,
  appId: string,
  appKey: string,
  token: string,
): Promise<{ run: number; failures: string[] }> {
  const examples: DocExample[] = docExamples(process.cwd());
  // user registrations first (the reservation examples log in as that user), deletions last
  const rank = (e: DocExample) => (e.method === 'POST' && e.url === '/user/' ? 0 : e.method === 'DELETE' ? 2 : 1);
  examples.sort((a, b) => rank(a) - rank(b));
  const failures: string[] = [];
  const last: { routeId?: string; reservationId?: string; basic?: string; privateKey?: string } = {};
  const fill = (s: string) =>
    s
      .replaceAll('http://localhost:8080', base)
      .replaceAll('$TOKEN', token)
      .replaceAll('<app token>', token)
      .replaceAll('<admin app token>', token)
      .replaceAll('<appId>', appId)
      .replaceAll('<sha1>', hashTokenFor(appId, appKey))
      .replaceAll('<tomorrow>', isoDay(1))
      .replaceAll('<a week ago>', isoDay(-7))
      .replaceAll('<2 minutes ago>', new Date(Date.now() - 120_000).toISOString())
      .replaceAll('<unix now>', String(Math.floor(Date.now() / 1000)))
      .replaceAll('<route id>', last.routeId ?? 'none-yet')
      .replaceAll('<pk_reservation>', last.reservationId ?? 'none-yet');
  /** chk of a hashed product request (docs/reservations.md): sorted parameter values, then the publisher's key */
  const chkOf = (url: string) => {
    const q = new URL(url).searchParams;
    const values = [...q.entries()]
      .filter(([k]) => !['pub_id', 'chk', 'callback', '_'].includes(k.toLowerCase()))
      .sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))
      .map(([, v]) => v);
    return createHash('md5')
      .update([...values, last.privateKey ?? ''].join('|'))
      .digest('hex');
  };
  for (const ex of examples) {
    let url = fill(ex.url);
    if (!/^https?:/.test(url)) url = base + url;
    if (url.includes('<chk>')) url = url.replace('<chk>', chkOf(url.replace('&chk=<chk>', '')));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(ex.headers)) headers[k] = fill(v);
    if (headers.authorization === 'Basic …') headers.authorization = last.basic ?? '';
    if (headers.authorization?.startsWith('Basic ')) last.basic = headers.authorization;
    // the docs say in prose which token a request needs; an example without one gets the demo app's
    const tokenInUrl = /[?&](token|accesstoken)=/i.test(url);
    if (!headers.authorization && !tokenInUrl && ex.status !== 401 && !/token/i.test(ex.note ?? ''))
      headers.authorization = `Bearer ${token}`;
    const body = ex.body === undefined ? undefined : fill(ex.body);
    const key = body === undefined ? null : /"private_key":\s*"([^"]+)"/.exec(body);
    if (key) last.privateKey = key[1];
    if (body !== undefined && !headers['content-type'])
      headers['content-type'] =
        body.trim().startsWith('{') || body.trim().startsWith('[')
          ? 'application/json'
          : 'application/x-www-form-urlencoded';
    let r: { status: number; type: string; text: string };
    try {
      r = await httpRequest(url, ex.method, headers, body);
    } catch (err) {
      failures.push(
        `no answer (${(err as Error).message}): ${ex.where} ${ex.method} ${url.replace(base, '').slice(0, 120)}`,
      );
      continue;
    }
    const res = { status: r.status, headers: { get: (_: string) => r.type } };
    const text = r.text;
    const what = `${ex.where} ${ex.method} ${url.replace(base, '').slice(0, 120)} → ${res.status}: ${text.slice(0, 300)}`;
    if (res.status >= 500) failures.push(`server error: ${what}`);
    else if (ex.status !== undefined && res.status !== ex.status) failures.push(`documented ${ex.status}: ${what}`);
    else if (ex.error && res.status < 400) failures.push(`documented as an error: ${what}`);
    else if (!ex.error && res.status >= 400) failures.push(`failed: ${what}`);
    else if (res.status >= 400) {
      const problem = shapeProblem(apiOf(url.replace(base, '')), {
        statusCode: res.status,
        headers: { 'content-type': res.headers.get('content-type') ?? '' },
        body: text,
      });
      if (problem) failures.push(`${problem}: ${what}`);
    }
    // every successful query example answers with content: a route longer than 0, lots, blocks,
    // intersections, metric rows (an empty answer shows a new user nothing)
    if (!ex.error && res.status < 300) {
      const empty = contentProblem(url.replace(base, ''), res.headers.get('content-type') ?? '', text);
      if (empty) failures.push(`${empty}: ${what}`);
    }
    if (res.status < 300 && /json/.test(res.headers.get('content-type') ?? '')) {
      const j = JSON.parse(text) as {
        result?: { trip?: { routes?: Array<{ id: string }> } };
        Reservations?: Array<{ pk_reservation: string }>;
      };
      if (j.result?.trip?.routes?.[0]?.id) last.routeId = j.result.trip.routes[0].id;
      if (j.Reservations?.[0]?.pk_reservation) last.reservationId = j.Reservations[0].pk_reservation;
    }
    if (res.status < 300 && /xml/.test(res.headers.get('content-type') ?? '')) {
      const id = /<Route id="(\d+)"/.exec(text)?.[1];
      if (id) last.routeId = id;
    }
  }
  return { run: examples.length, failures };
}

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
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATABASE_URL: '',
      },
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

    // Every example request of the README and docs/ answers as documented on this fresh start.
    const docs = await runDocExamples(base, appId, appKey, token);
    console.log(
      `docs examples: ${docs.run} requests from README.md and docs/ run against the fresh demo, ${docs.failures.length} not as documented`,
    );
    expect(docs.run).toBeGreaterThan(40);
    if (docs.failures.length > 0) console.log(docs.failures.join('\n'), err.slice(-3000));
    expect(docs.failures).toEqual([]);

    // window tables come from the window builder thread: a serving thread receives them and builds none
    const route = /"(http[^"]+FindRoute[^"]+)"/.exec(out)![1].replace('$TOKEN', token);
    let metrics = '';
    for (let i = 0; i < 240 && !/streetwise_window_tables\{event="received"\} [1-9]/.test(metrics); i++) {
      await fetch(route);
      await new Promise((r) => setTimeout(r, 250));
      metrics = await (await fetch(`${base}/metrics`)).text();
    }
    expect(metrics).toMatch(/streetwise_window_tables\{event="received"\} [1-9]/);
    expect(metrics).toMatch(/streetwise_window_tables\{event="built"\} 0\n/);
  }, 300_000);
});
