/**
 * GET /v1/speeds/learned: learned profiles per edge and 15-minute bin with sample counts, as JSON,
 * CSV and OSRM's segment-speed file, from bins stored the way probe processing stores them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestContext, type TestContext } from '../helpers/context.js';

describe('learned speeds out (GET /v1/speeds/learned)', () => {
  let t: TestContext;
  let edge: number;
  beforeAll(async () => {
    t = await makeTestContext();
    const g = t.ctx.region.graph;
    edge = 0;
    // 4 traversals in Monday 08:00-08:15: 1000 m in 120 s = 30 km/h; 1 in Monday 08:15 at 36 km/h
    await t.ctx.db.query(
      `INSERT INTO learned_speed_bins (map_version, edge_id, bin_of_week, samples, sum_length_mm, sum_duration_ms)
       VALUES ($1, $2, 32, 4, 1000000, 120000), ($1, $2, 33, 1, 100000, 10000), ($1, $3, 40, 2, 200000, 20000)`,
      [t.ctx.region.meta.mapVersion, edge, g.edgeCount - 1],
    );
  });
  afterAll(async () => t.close());

  const get = (q: string, token: string | null = t.token) =>
    t.app.inject({
      url: `/v1/speeds/learned?${q.replaceAll(' ', '%20')}`,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  it('answers each edge with its bins: samples, mean, the learned speed routing uses and the typical one', async () => {
    const r = await get(`edges=${edge}`);
    expect(r.statusCode, r.body).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ region: 'tiny', mapVersion: 'tiny-1', binMinutes: 15, nextAfter: null });
    expect(body.edges).toHaveLength(1);
    const e = body.edges[0];
    const g = t.ctx.region.graph;
    expect(e).toMatchObject({
      edgeId: edge,
      wayId: g.edgeWayId[edge],
      fromOsmNodeId: g.nodeOsmId[g.edgeSource[edge]],
      toOsmNodeId: g.nodeOsmId[g.edgeTarget[edge]],
    });
    expect(
      e.bins.map((b: { dayTime: string; samples: number; meanKph: number }) => [b.dayTime, b.samples, b.meanKph]),
    ).toEqual([
      ['Mon 08:00', 4, 30],
      ['Mon 08:15', 1, 36],
    ]);
    // the shrinkage toward the typical speed with 5 samples of prior weight (docs/probes.md)
    const b = e.bins[0];
    expect(b.learnedKph).toBeCloseTo((4 * 30 + 5 * b.typicalKph) / 9, 0);
  });

  it('filters by time of week and pages over edges', async () => {
    const r = await get('from=Mon 08:15&to=Mon 10:00');
    const bins = r.json().edges.flatMap((e: { bins: Array<{ bin: number }> }) => e.bins.map((b) => b.bin));
    expect(bins).toEqual([33, 40]);
    const first = await get('limit=1');
    expect(first.json().edges).toHaveLength(1);
    expect(first.json().nextAfter).toBe(edge);
    const second = await get(`limit=1&after=${first.json().nextAfter}`);
    expect(second.json().edges[0].edgeId).toBe(t.ctx.region.graph.edgeCount - 1);
  });

  it('writes CSV per edge and bin, and the OSRM segment-speed file (from_osm_id,to_osm_id,speed_kmh)', async () => {
    const csv = await get(`edges=${edge}&format=csv`);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const lines = csv.body.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'edge_id,way_id,from_osm_node_id,to_osm_node_id,bin_of_week,day_time,samples,mean_kph,learned_kph,typical_kph',
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^0,\d+,\d+,\d+,32,Mon 08:00,4,30,[\d.]+,[\d.]+$/);
    const osrm = await get(`edges=${edge}&format=osrm&from=Mon 08:00&to=Mon 08:00`);
    const g = t.ctx.region.graph;
    const from = g.nodeOsmId[g.edgeSource[edge]];
    const to = g.nodeOsmId[g.edgeTarget[edge]];
    const learned = (await get(`edges=${edge}`)).json().edges[0].bins[0].learnedKph;
    expect(osrm.body).toBe(`${from},${to},${Math.round(learned)}\n`);
    expect(osrm.headers['x-edges-without-osm-nodes']).toBe('0');
  });

  it('needs an app token and names a bad parameter', async () => {
    expect((await get('', null)).statusCode).toBe(401);
    const bad = await get('from=Monday 8am');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^from: "Monday 8am" is not a day and 15-minute time/);
    expect((await get('colour=red')).json().error.message).toMatch(/^colour: unknown parameter/);
  });
});
