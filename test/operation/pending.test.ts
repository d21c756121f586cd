/**
 * Pings stored by a batch that failed before they were processed are not lost: a re-post of the
 * batch processes them (it answers "duplicates" and still matches them), and so does the
 * `process-pending` task the ingestion thread runs in the background.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { edgeGeometry } from '../../src/network/graph.js';
import { insertPings } from '../../src/probes/ingest/ping-store.js';
import { pendingBacklog, readPending } from '../../src/probes/ingest/pending.js';
import { runTask, type ProcessPendingReport } from '../../src/app/ingestion/tasks.js';

describe('pings stored but not processed', () => {
  let t: TestContext;
  const nowMs = Date.UTC(2026, 0, 5, 8, 10);
  beforeAll(async () => {
    t = await makeTestContext({ now: () => nowMs });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Six pings along the first edge of the tiny region longer than 60 m, 2 s apart. */
  function pingsAlongAnEdge(traceId: string): Array<{ traceId: string; timestamp: number; lat: number; lon: number }> {
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
  const records = (pings: ReturnType<typeof pingsAlongAnEdge>) =>
    pings.map((p) => ({ traceId: p.traceId, ping: { tS: p.timestamp, lat: p.lat, lon: p.lon } }));
  const traversals = async (traceId: string) =>
    Number(
      (
        await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_traversals WHERE trace_id = $1', [
          traceId,
        ])
      ).rows[0].n,
    );

  it('marks the traces of stored pings in the same statement, and a re-post processes them', async () => {
    const pings = pingsAlongAnEdge('failed-1');
    // what a batch that died after storing left behind
    expect(await insertPings(t.ctx.db, records(pings), undefined, t.ctx.region.meta.mapVersion)).toBe(6);
    expect((await readPending(t.ctx.db, ['failed-1'])).map((m) => [m.traceId, m.fromS, m.n])).toEqual([
      ['failed-1', pings[0].timestamp, 1],
    ]);
    expect(await traversals('failed-1')).toBe(0);

    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/probes',
      payload: { pings },
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      received: 6,
      inserted: 0,
      duplicates: 6,
      matched: { traces: 1, trajectories: 1 },
    });
    expect(await traversals('failed-1')).toBeGreaterThanOrEqual(1);
    expect(await readPending(t.ctx.db, ['failed-1'])).toEqual([]);
    // processed now: a third post finds nothing to do
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/probes',
      payload: { pings },
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(again.json()).toMatchObject({ duplicates: 6, matched: { traces: 0, trajectories: 0 } });
  });

  it('keeps a mark that a batch arriving during processing bumped', async () => {
    const pings = pingsAlongAnEdge('busy-1');
    await insertPings(t.ctx.db, records(pings.slice(0, 3)), undefined, t.ctx.region.meta.mapVersion);
    const [mark] = await readPending(t.ctx.db, ['busy-1']);
    await insertPings(t.ctx.db, records(pings.slice(3)), undefined, t.ctx.region.meta.mapVersion);
    const { clearPending } = await import('../../src/probes/ingest/pending.js');
    expect(await clearPending(t.ctx.db, [mark])).toBe(0);
    expect((await readPending(t.ctx.db, ['busy-1']))[0].n).toBe(2);
  });

  it('the process-pending task processes every pending trace of the region and clears the marks', async () => {
    const r = (await runTask(
      { db: t.ctx.db, region: t.ctx.region, nowS: nowMs / 1000 },
      { kind: 'process-pending' },
    )) as ProcessPendingReport;
    expect(r.matched.traces).toBe(1);
    expect(await traversals('busy-1')).toBeGreaterThanOrEqual(1);
    expect(await pendingBacklog(t.ctx.db)).toEqual({ traces: 0, oldestS: 0 });
  });

  it('POST /v1/admin/probes/process does the same through the admin API; deferred posts only store', async () => {
    const pings = pingsAlongAnEdge('deferred-1');
    const stored = await t.app.inject({
      method: 'POST',
      url: '/v1/probes?defer=true',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-ndjson' },
      payload: pings.map((p) => JSON.stringify(p)).join('\n'),
    });
    expect(stored.statusCode).toBe(200);
    expect(stored.json()).toMatchObject({ received: 6, inserted: 6, matched: { traces: 0 } });
    expect(await traversals('deferred-1')).toBe(0);
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
    expect(done.json()).toMatchObject({ matched: { traces: 1, trajectories: 1 } });
    expect(await traversals('deferred-1')).toBeGreaterThanOrEqual(1);
  });
});
