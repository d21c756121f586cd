/**
 * Park events feed curb occupancy: cars parking on a curb segment (POST /USS) raise its occupancy
 * and lower its `probability` on /blocks; cars leaving raise it again.
 *
 *   block 77 runs west → east along lat 39.2900 from lon -76.6100 to -76.6080 (≈172 m)
 *        north curb (left): 28 spaces, free
 *   A ─────────────────────────────────────────► B
 *        south curb (right): 28 spaces, free
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { tinyRegion } from '../helpers/tiny-region.js';

// Monday 23 Nov 2026, 14:00 UTC = 09:00 in Baltimore
const NOW_MS = Date.UTC(2026, 10, 23, 14, 0);
let t: TestContext;

beforeAll(async () => {
  const region = tinyRegion();
  const tags = { 'parking:lane:both': 'parallel', 'parking:condition:both': 'free' };
  region.blocks = [
    {
      id: 77,
      name: 'Test St',
      fromNode: 0,
      toNode: 1,
      edges: [],
      geometry: [
        [39.29, -76.61],
        [39.29, -76.608],
      ],
      lengthM: 172,
      curb: [
        { side: 'left', startM: 0, endM: 172, kind: 'parallel', condition: 'free', maxStay: '', spaces: 28, tags },
        { side: 'right', startM: 0, endM: 172, kind: 'parallel', condition: 'free', maxStay: '', spaces: 28, tags },
      ],
    },
  ];
  t = await makeTestContext({ region, now: () => NOW_MS });
});
afterAll(async () => {
  await t?.close();
});

function parkEvent(lat: number, lon: number, parkedOut: boolean, at: string, n: number) {
  return {
    data: {
      metaData: null,
      reports: Array.from({ length: n }, (_, i) => ({
        identity: { sensorId: `veh-${i}` },
        measurements: [
          { location: { coordinates: [lat, lon + i * 0.00001] }, observationTime: at, parkedOut: String(parkedOut) },
        ],
      })),
    },
    vendorId: 'v1',
    vendorName: 'Sensors Inc',
    requestId: `req-${parkedOut}-${at}`,
  };
}

async function segments(): Promise<Record<string, { probability: number; bucket: number }>> {
  const r = await t.app.inject({ url: `/blocks?id=77&accesstoken=${t.token}` });
  expect(r.statusCode).toBe(200);
  const out: Record<string, { probability: number; bucket: number }> = {};
  for (const s of JSON.parse(r.body).result[0].segments) out[s.side] = { probability: s.probability, bucket: s.bucket };
  return out;
}

const post = (body: unknown) =>
  t.app.inject({
    method: 'POST',
    url: '/USS',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    payload: body as object,
  });

describe('park events and /blocks occupancy', () => {
  it('park-ins on the south curb lower its probability; the north curb is unchanged', async () => {
    const before = await segments();
    expect(before.RIGHT.probability).toBe(before.LEFT.probability);
    // 6 cars park on the south curb (≈ 5 m south of the centre line) a minute ago
    const res = await post(parkEvent(39.28996, -76.6095, false, '2026-11-23T13:59:00Z', 6));
    expect(res.statusCode).toBe(200);
    const obs = await t.ctx.db.query<{ target_id: string; occupied: number; capacity: number; source: string }>(
      'SELECT target_id, occupied, capacity, source FROM parking_occupancy_observation ORDER BY id',
    );
    // 08:59 local, weekday on-street profile (08:45 bin: 75 + 0.75·(82 − 75) = 80.25 %): 22 of 28 cars; six more fill the curb
    expect(obs.rows.map((r) => r.occupied)).toEqual([23, 24, 25, 26, 27, 28]);
    expect(new Set(obs.rows.map((r) => `${r.target_id}|${r.capacity}|${r.source}`))).toEqual(
      new Set(['77-R1|28|park_events']),
    );
    const after = await segments();
    expect(after.RIGHT.probability).toBeLessThan(before.RIGHT.probability);
    expect(after.RIGHT.probability).toBe(0);
    expect(after.RIGHT.bucket).toBe(1);
    expect(after.LEFT).toEqual(before.LEFT);
  });

  it('park-outs free the curb again', async () => {
    const full = await segments();
    const res = await post(parkEvent(39.28996, -76.6095, true, '2026-11-23T13:59:30Z', 8));
    expect(res.statusCode).toBe(200);
    const after = await segments();
    expect(after.RIGHT.probability).toBeGreaterThan(full.RIGHT.probability);
  });

  it('does not count events far from any curb, and still stores them', async () => {
    const n = (await t.ctx.db.query('SELECT count(*)::int AS n FROM parking_occupancy_observation')).rows[0] as {
      n: number;
    };
    const res = await post(parkEvent(39.295, -76.6, false, '2026-11-23T13:59:40Z', 2));
    expect(res.statusCode).toBe(200);
    const m = (await t.ctx.db.query('SELECT count(*)::int AS n FROM parking_occupancy_observation')).rows[0] as {
      n: number;
    };
    expect(m.n).toBe(n.n);
    const ev = (await t.ctx.db.query('SELECT count(*)::int AS n FROM pk_park_event WHERE lat = 39.295')).rows[0] as {
      n: number;
    };
    expect(ev.n).toBe(2);
  });
});
