/**
 * Pending marks: stored pings mark their trace in the same statement; the region's ingestion
 * worker processes every marked trace whichever door stored it, and a door waits for the marks of
 * its body's traces. Without a worker, pings stay stored and pending (nothing is lost) and posts
 * answer with them pending.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { edgeGeometry } from '../../src/network/graph.js';
import { insertPings } from '../../src/probes/ingest/ping-store.js';
import { clearPending, pendingLeft, readPending } from '../../src/probes/ingest/pending.js';
import { IngestionWorker } from '../../src/app/ingestion/worker.js';
import { soloLeases } from '../../src/store/partition-leases.js';
import { PARTITIONS } from '../../src/probes/partition.js';

const nowMs = Date.UTC(2026, 0, 5, 8, 10);

/** Six pings along the first edge of the tiny region longer than 60 m, 2 s apart. */
function pingsAlongAnEdge(t: TestContext, traceId: string) {
  const g = t.ctx.region.graph;
  let e = 0;
  while (e < g.edgeCount && g.edgeLengthM[e] < 60) e++;
  const geom = edgeGeometry(g, e);
  const [a, b] = [geom[0], geom[geom.length - 1]];
  return Array.from({ length: 6 }, (_, i) => {
    const f = 0.1 + (0.8 * i) / 5;
    return {
      traceId,
      timestamp: nowMs / 1000 - 120 + i * 2,
      lat: a[0] + (b[0] - a[0]) * f,
      lon: a[1] + (b[1] - a[1]) * f,
    };
  });
}
const records = (pings: Array<{ traceId: string; timestamp: number; lat: number; lon: number }>) =>
  pings.map((p) => ({ traceId: p.traceId, ping: { tS: p.timestamp, lat: p.lat, lon: p.lon } }));
const traversals = async (t: TestContext, traceId: string): Promise<number> =>
  Number(
    (
      await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_traversals WHERE trace_id = $1', [
        traceId,
      ])
    ).rows[0].n,
  );
const post = (t: TestContext, url: string, pings: unknown[]) =>
  t.app.inject({ method: 'POST', url, payload: { pings }, headers: { authorization: `Bearer ${t.adminToken}` } });

describe('pings stored but not processed', () => {
  let t: TestContext | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('marks the traces of stored pings in the same statement; a mark bumped meanwhile stays for the new pings', async () => {
    t = await makeTestContext({ now: () => nowMs });
    const pings = pingsAlongAnEdge(t, 'busy-1');
    const first = await insertPings(t.ctx.db, 'tiny', records(pings.slice(0, 3)));
    expect(first.inserted).toBe(3);
    const [mark] = await readPending(t.ctx.db, 'tiny', ['busy-1']);
    expect([mark.traceId, mark.fromS, mark.n]).toEqual(['busy-1', pings[0].timestamp, 1]);
    const second = await insertPings(t.ctx.db, 'tiny', records(pings.slice(3)));
    expect(second.marks).toEqual([{ traceId: 'busy-1', born: first.marks[0].born, n: 2 }]);
    // a processor that read version 1 clears it; version 2 stays pending
    await t.ctx.db.transaction((tx) => clearPending(tx, 'tiny', [mark]));
    expect((await readPending(t.ctx.db, 'tiny', ['busy-1']))[0].n).toBe(2);
    expect(await pendingLeft(t.ctx.db, 'tiny', first.marks)).toBe(0);
    expect(await pendingLeft(t.ctx.db, 'tiny', second.marks)).toBe(1);
    // the same pings again store nothing and mark nothing
    expect((await insertPings(t.ctx.db, 'tiny', records(pings))).inserted).toBe(0);
    expect((await readPending(t.ctx.db, 'tiny', ['busy-1']))[0].n).toBe(2);
  });

  it('without a worker a post answers with its pings stored and pending; a worker started later processes them', async () => {
    t = await makeTestContext({ now: () => nowMs });
    const pings = pingsAlongAnEdge(t, 'late-1');
    const r = await post(t, '/v1/probes', pings);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      received: 6,
      inserted: 6,
      pendingTraces: 1,
      matched: { traces: 1, trajectories: 0 },
    });
    // the health probe looks at the backlog once a second
    let health = (await t.app.inject({ url: '/healthz' })).json();
    for (let i = 0; i < 30 && health.status !== 'degraded'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      health = (await t.app.inject({ url: '/healthz' })).json();
    }
    expect(health.status).toBe('degraded');
    expect(health.reasons.join(' ')).toMatch(/no ingestion worker of region tiny runs: 1 traces wait/);
    const db = t.ctx.db;
    const worker = new IngestionWorker({ db, region: t.ctx.region, leases: async () => soloLeases(db, PARTITIONS) });
    const done = await worker.drain();
    await worker.stop();
    expect(done.traces).toBe(1);
    expect(await traversals(t, 'late-1')).toBeGreaterThanOrEqual(1);
    expect(await readPending(db, 'tiny', ['late-1'])).toEqual([]);
  });

  it('a post waits for its traces, a failed earlier batch of the same trace included, and a retry answers the same', async () => {
    t = await makeTestContext({ now: () => nowMs, ingestion: true });
    const pings = pingsAlongAnEdge(t, 'failed-1');
    // what a batch that died after storing half the body left behind
    await insertPings(t.ctx.db, 'tiny', records(pings.slice(0, 3)));
    const r = await post(t, '/v1/probes', pings);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ received: 6, inserted: 3, duplicates: 3, pendingTraces: 0 });
    expect(body.matched).toMatchObject({ traces: 1, trajectories: 1 });
    expect(body.matched.traversals).toBeGreaterThanOrEqual(1);
    expect(await readPending(t.ctx.db, 'tiny', ['failed-1'])).toEqual([]);
    const again = await post(t, '/v1/probes', pings);
    expect(again.json()).toEqual({ ...body, inserted: 0, duplicates: 6 });
  });

  it('deferred posts only store; POST /v1/admin/probes/process waits until every pending trace is processed', async () => {
    t = await makeTestContext({ now: () => nowMs, ingestion: true });
    const pings = pingsAlongAnEdge(t, 'deferred-1');
    const stored = await t.app.inject({
      method: 'POST',
      url: '/v1/probes?defer=true',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-ndjson' },
      payload: pings.map((p) => JSON.stringify(p)).join('\n'),
    });
    expect(stored.statusCode).toBe(200);
    expect(stored.json()).toMatchObject({ received: 6, inserted: 6, pendingTraces: 1, matched: { traces: 0 } });
    const forbidden = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/probes/process',
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('ADMIN_FORBIDDEN');
    const done = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/probes/process',
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(done.statusCode).toBe(200);
    expect(await readPending(t.ctx.db, 'tiny', ['deferred-1'])).toEqual([]);
    expect(await traversals(t, 'deferred-1')).toBeGreaterThanOrEqual(1);
    expect(done.json().pendingTraces).toBe(0);
  });
});
