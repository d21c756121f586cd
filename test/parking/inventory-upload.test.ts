import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { parkingRegion, P } from './inventory-fixture.js';

// Monday 2026-11-23 15:00 UTC = 10:00 in New York
const NOW = Date.UTC(2026, 10, 23, 15, 0);

describe('operator uploads and occupancy counts (admin API)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await makeTestContext({ region: parkingRegion(), now: () => NOW });
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (what: 'lots' | 'blocks', body: unknown, token = t.adminToken) =>
    t.app.inject({
      method: 'PUT',
      url: `/v1/admin/parking/${what}`,
      headers: { authorization: `Bearer ${token}` },
      payload: body as object,
    });
  const lots = async (q: string) =>
    (await t.app.inject({ url: `/lots?${q}`, headers: { authorization: `Bearer ${t.token}` } })).json().result;

  it('refuses uploads without an admin token', async () => {
    expect((await put('lots', [{ id: 11, name: 'x' }], t.token)).statusCode).toBe(403);
    const r = await t.app.inject({ method: 'PUT', url: '/v1/admin/parking/lots', payload: [] });
    expect(r.statusCode).toBe(401);
  });

  it('rejects an invalid upload as a whole, naming the field', async () => {
    const r = await put('lots', [
      { id: 11, name: 'ok' },
      { alias: 'demo|x', point: { type: 'Point', coordinates: [-76.6, 39.29] }, format: 'Tent' },
    ]);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 'PARKING_UPLOAD_INVALID', parameter: 'lots[1].format' });
    expect((await lots('id=11'))[0].name).toBe('Garage A');
    const r2 = await put('lots', [{ name: 'no identity' }]);
    expect(r2.json().message).toMatch(/one of id, alias or osm_id/);
    const r3 = await put('lots', [{ id: 11, structured_rates: [{ dow_start: 1, dow_end: 9, rate: 1 }] }]);
    expect(r3.json().parameter).toBe('lots[0].structured_rates[0].dow_end');
  });

  it('merges an upload over the OSM lot it names by osm_id: uploaded fields win, the rest stays', async () => {
    const r = await put('lots', [
      {
        alias: 'demo|garage-a',
        osm_type: 'node',
        osm_id: 11,
        name: 'Harbor Garage',
        spacesTotal: 300,
        colour: 'blue',
        structured_rates: [
          { dow_start: 1, dow_end: 7, rate: 5, increment: 60, rate_line: '1 Hr: $5' },
          {
            dow_start: 1,
            dow_end: 7,
            rate: 4,
            increment: 60,
            repeats: true,
            max: 20,
            rate_line: 'Each add. Hr $4, Daily Max $20',
          },
        ],
        peps: [{ pepPt: [-76.61, 39.2909], pepAz: 0, pepPrimary: true, pepType: 'IN/OUT' }],
        phones: [{ type: 'Lot', number: '+1 410 555 0100' }],
      },
    ]);
    expect(r.statusCode).toBe(200);
    expect(r.json().result).toMatchObject({ lots: 1, blocks: 0, ignoredFields: ['lots[0].colour'] });
    const [lot] = await lots('alias=demo|garage-a&entry_time=2026-11-23T10:00&duration=60|150|600');
    expect(lot).toMatchObject({
      id: 11,
      name: 'Harbor Garage',
      spacesTotal: 300,
      operator: 'Metro Parking',
      url: 'https://example.org/a',
      rateCard: ['1 Hr: $5', 'Each add. Hr $4, Daily Max $20'],
    });
    expect(lot.calculatedRates.map((c: { rate_cost: number }) => c.rate_cost)).toEqual([5, 13, 20]);
    expect(lot.peps[0].pepPrimary).toBe(true);
    // the OSM alias still finds it
    expect((await lots('alias=osm|n11'))[0].name).toBe('Harbor Garage');
  });

  it('updates only the fields given in a later upload of the same lot', async () => {
    await put('lots', [{ osm_type: 'node', osm_id: 11, alias: 'demo|garage-a', note: 'Enter from Side St' }]);
    const [lot] = await lots('id=11');
    expect(lot).toMatchObject({ name: 'Harbor Garage', note: 'Enter from Side St' });
  });

  it("answers the contract's paymentID (and the samples' paymentIDs) with the ids an upload gave under either name", async () => {
    const meter = [{ company: 'CurbPay', id: '4011' }];
    expect((await lots('id=11'))[0]).toMatchObject({ paymentID: [], paymentIDs: [] });
    await put('lots', [{ osm_type: 'node', osm_id: 11, alias: 'demo|garage-a', paymentID: meter }]);
    expect((await lots('id=11'))[0]).toMatchObject({ paymentID: meter, paymentIDs: meter });
    await put('lots', [
      {
        alias: 'acme|pay',
        name: 'Pay Lot',
        point: { type: 'Point', coordinates: [-76.6, 39.2904] },
        paymentIDs: [{ company: 'CurbPay', id: '4012' }],
      },
    ]);
    const [pay] = await lots('alias=acme|pay');
    expect(pay.paymentID).toEqual([{ company: 'CurbPay', id: '4012' }]);
    expect(pay.paymentIDs).toEqual(pay.paymentID);
  });

  it('adds a new lot from an alias and a point, found by the spatial index', async () => {
    const r = await put('lots', {
      lots: [
        {
          alias: 'acme|77',
          name: 'Acme Lot',
          operator: 'Acme',
          point: { type: 'Point', coordinates: [-76.6095, 39.2902] },
          spacesTotal: 12,
        },
      ],
    });
    expect(r.statusCode).toBe(200);
    const found = await lots(`point=${P.lat}|${P.lon}&radius=100&sort=distance`);
    expect(found.map((l: { name: string }) => l.name)).toEqual(['Acme Lot']);
    expect(found[0].id).toBe(2 ** 40 + found[0].id - 2 ** 40); // a safe integer id
    expect(found[0].id).toBeGreaterThan(2 ** 40);
  });

  it('rolls back an upload the inventory cannot be built from, so it never blocks later uploads', async () => {
    // a new lot (an OSM reference the region does not have) without a location
    const bad = await put('lots', [{ osm_type: 'node', osm_id: 987654, alias: 'acme|nowhere', name: 'Nowhere' }]);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'PARKING_UPLOAD_INVALID' });
    const good = await put('lots', [
      { alias: 'acme|after', name: 'After Lot', point: { type: 'Point', coordinates: [-76.6, 39.2903] } },
    ]);
    expect(good.statusCode, good.body).toBe(200);
    expect((await lots('alias=acme|after'))[0]).toMatchObject({ name: 'After Lot' });
    expect(
      (await t.app.inject({ url: `/lots?alias=acme|nowhere`, headers: { authorization: `Bearer ${t.token}` } }))
        .statusCode,
    ).toBe(404);
  });

  it('opens and closes an uploaded lot by its hrs lines', async () => {
    await put('lots', [
      {
        alias: 'acme|88',
        name: 'Office Lot',
        point: { type: 'Point', coordinates: [-76.6, 39.2902] },
        hrs: ['Mon-Fri: 8:00 AM - 6:00 PM', 'Sat-Sun: Closed'],
        structured_rates: [{ dow_start: 1, dow_end: 7, rate: 2, increment: 60, repeats: true }],
      },
    ]);
    const at = async (e: string) => (await lots(`alias=acme|88&entry_time=${e}&duration=60`))[0];
    expect(await at('2026-11-23T10:00')).toMatchObject({
      isOpen: true,
      calculatedRates: [{ rate_cost: 2, quoted_duration: '01:00:00', rate_type: 'B' }],
    });
    expect(await at('2026-11-23T19:00')).toMatchObject({ isOpen: false, calculatedRates: [] });
    // no capacity known: occupancy is null, open or closed
    expect(await at('2026-11-28T10:00')).toMatchObject({ isOpen: false, spacesTotal: null, occupancy: null });
    expect(await at('2026-11-23T10:00')).toMatchObject({ isOpen: true, spacesTotal: null, occupancy: null });
    await put('lots', [{ alias: 'acme|88', spacesTotal: 40 }]);
    expect(await at('2026-11-28T10:00')).toMatchObject({
      isOpen: false,
      occupancy: { available: 0, probability: 0, bucket: 1 },
    });
  });

  it('replaces the segments of a block and creates a new block from GeoJSON', async () => {
    const r = await put('blocks', [
      {
        blockID: 1,
        operator: 'City DOT',
        segments: [
          {
            segmentID: 'm-1',
            side: 'RIGHT',
            start: 0,
            end: 120,
            spacesTotal: 18,
            structuredRates: [
              { dow_start: 1, dow_end: 5, time_in: '07:00-09:00', rate: -1 },
              { dow_start: 1, dow_end: 7, time_in: '09:00-19:00', rate: 1.25, increment: 60, repeats: true },
            ],
          },
        ],
      },
      {
        blockID: 900,
        name: 'Pier Rd',
        geojson: {
          type: 'LineString',
          coordinates: [
            [-76.6099, 39.2901],
            [-76.6099, 39.2905],
          ],
        },
        segments: [{ side: 'LEFT', start: 0, end: 40, spacesTotal: 6, rateCards: ['Free 2 hours'] }],
      },
    ]);
    expect(r.statusCode).toBe(200);
    const res = (
      await t.app.inject({
        url: `/blocks?${'point'}=${P.lat}|${P.lon}&radius=100&sort=distance&entry_time=2026-11-23T08:00&duration=120&operator=city dot`,
        headers: { authorization: `Bearer ${t.token}` },
      })
    ).json().result;
    expect(res).toHaveLength(1);
    expect(res[0].segments).toHaveLength(1);
    expect(res[0].segments[0]).toMatchObject({
      segmentID: 'm-1',
      isOpen: false,
      calculatedRates: [],
      rateCards: ['Mon-Fri 07:00-09:00: No Parking', 'Mon-Sun 09:00-19:00: $1.25 per 1 Hr'],
    });
    expect(res[0].probability).not.toBeNull(); // temporarily forbidden: still predicted
    const at10 = (
      await t.app.inject({
        url: `/blocks?id=1&entry_time=2026-11-23T10:00&duration=90`,
        headers: { authorization: `Bearer ${t.token}` },
      })
    ).json().result[0];
    expect(at10.segments[0]).toMatchObject({
      isOpen: true,
      calculatedRates: [{ rate_cost: 2.5, quoted_duration: '02:00:00', rate_type: 'B' }],
    });
    const pier = (await t.app.inject({ url: `/blocks?id=900`, headers: { authorization: `Bearer ${t.token}` } })).json()
      .result[0];
    expect(pier).toMatchObject({
      name: 'Pier Rd',
      segments: [{ segmentID: '900-L1', rateCards: ['Free 2 hours'], spacesTotal: 6, isOpen: true }],
    });
  });

  it('applies the 25 m gap rule to uploaded segments: short No Parking gaps between equal rules vanish', async () => {
    // RIGHT: 0-50 free | 50-60 driveway | 60-120 free              -> one segment 0-120
    // LEFT:  0-50 free | 50-60 driveway | 60-120 permit, 140-160 permit -> 0-50, 50-60, 60-160
    const free = { rateCards: ['Free 2 hours'] };
    const permit = { rateCards: ['Permit R only'] };
    const r = await put('blocks', [
      {
        blockID: 901,
        name: 'Gap Rd',
        geojson: {
          type: 'LineString',
          coordinates: [
            [-76.6097, 39.29],
            [-76.6097, 39.2915],
          ],
        },
        segments: [
          { side: 'RIGHT', start: 0, end: 50, spacesTotal: 8, ...free },
          { side: 'RIGHT', start: 50, end: 60, isOpen: false },
          { side: 'RIGHT', start: 60, end: 120, spacesTotal: 10, ...free },
          { side: 'LEFT', start: 0, end: 50, ...free },
          { side: 'LEFT', start: 50, end: 60, isOpen: false },
          { side: 'LEFT', start: 60, end: 120, ...permit },
          { side: 'LEFT', start: 140, end: 160, ...permit },
        ],
      },
    ]);
    expect(r.statusCode, r.body).toBe(200);
    const block = (
      await t.app.inject({ url: '/blocks?id=901', headers: { authorization: `Bearer ${t.token}` } })
    ).json().result[0];
    const segs = block.segments.map((x: { side: string; start: number; end: number; spacesTotal: number }) => [
      x.side,
      x.start,
      x.end,
      x.spacesTotal,
    ]);
    expect(segs).toEqual([
      ['RIGHT', 0, 120, 18],
      ['LEFT', 0, 50, 8],
      ['LEFT', 50, 60, 1],
      ['LEFT', 60, 160, 13],
    ]);
    expect(block.segments[0].segmentID).toBe('901-R1');
  });

  it('corrects the occupancy prediction with an operator count', async () => {
    const before = (await lots('id=44&entry_time=2026-11-23T10:30'))[0].occupancy;
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/parking/occupancy',
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: [{ lotId: 44, occupied: 30, observedAt: '2026-11-23T15:00:00Z' }],
    });
    expect(r.statusCode).toBe(200);
    const after = (await lots('id=44&entry_time=2026-11-23T10:30'))[0].occupancy;
    expect(before).toMatchObject({ pct: 87, rank: 2 }); // 10:30: between 85 (10:00) and 88 (11:00)
    // full at 10:00 (expected 85): residual 15 × e^(-30/90) = 10.75; 86.5 + 10.75 → 97 %
    expect(after).toMatchObject({ pct: 97, available: 1, rank: 5 });
    expect(after.probability).toBeLessThan(before.probability);
    // a full count on a block segment: probability 0 at that time, bucket 1 (red)
    const block = async () =>
      (
        await t.app.inject({
          url: '/blocks?id=1&entry_time=2026-11-23T10:00',
          headers: { authorization: `Bearer ${t.token}` },
        })
      ).json().result[0];
    expect((await block()).segments[0].probability).toBeGreaterThan(50);
    await t.app.inject({
      method: 'POST',
      url: '/v1/admin/parking/occupancy',
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: [{ segmentId: 'm-1', occupied: 18, observedAt: '2026-11-23T15:00:00Z', source: 'feed' }],
    });
    const full = await block();
    expect(full.segments[0]).toMatchObject({ probability: 0, bucket: 1 });
    expect(full).toMatchObject({ probability: 0, bucket: 1 });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/parking/occupancy',
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: [{ lotId: 44, segmentId: 'x', occupied: 3 }],
    });
    expect(bad.statusCode).toBe(400);
  });

  it("lists the lot's reservation products in `reservations` when an entry time is given", async () => {
    const r = await t.app.inject({
      method: 'PUT',
      url: '/v1/admin/parking/products',
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: {
        products: [
          {
            pk_reservation_product: '6f1c2b1e-1111-4a4a-9b9b-000000000044',
            f_id: 44,
            name: 'Two hours',
            rates: [{ duration: 120, rate: 9 }],
            capacity: 30,
          },
        ],
      },
    });
    expect(r.statusCode).toBe(200);
    const [lot] = await lots('id=44&entry_time=2026-11-23T10:00&duration=60');
    expect(lot.reservations).toHaveLength(1);
    expect(lot.reservations[0]).toMatchObject({
      pk_reservation_product: '6f1c2b1e-1111-4a4a-9b9b-000000000044',
      name: 'Two hours',
      rates: [9],
      f_id: 44,
    });
    expect((await lots('id=44'))[0].reservations).toEqual([]); // needs entry_time
    // 28 reserved stays 12:30–14:30 in a 30-space lot: at 13:30 at least 28 occupied (expected 87 % → 93 %)
    const { createReservation, TestPaymentProcessor } = await import('../../src/parking/reservations/index.js');
    for (let i = 0; i < 28; i++) {
      const res = await createReservation(
        t.ctx.db,
        { kind: 'app', appId: 'ops', admin: true },
        {
          productId: '6f1c2b1e-1111-4a4a-9b9b-000000000044',
          entryAt: () => Date.UTC(2026, 10, 23, 17, 30),
          durationMin: 120,
          quoteOnly: false,
          payment: { token: 'tok_visa' },
          contact: {},
        },
        { processor: new TestPaymentProcessor(), nowMs: NOW },
      );
      expect(res.reservation.status).toBe(1);
    }
    expect((await lots('id=44&entry_time=2026-11-23T13:30'))[0].occupancy).toMatchObject({ pct: 93, available: 2 });
    expect((await lots('id=44&entry_time=2026-11-23T15:00'))[0].occupancy.pct).toBe(82); // after the stays: the profile again
  });

  it('removes an upload so the OSM data shows again', async () => {
    const r = await t.app.inject({
      method: 'DELETE',
      url: '/v1/admin/parking/lots/osm:n11',
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(r.statusCode).toBe(200);
    expect((await lots('id=11'))[0].name).toBe('Garage A');
  });

  it('keeps uploads to their region: a server for another region on the same database never answers them', async () => {
    const fixture = parkingRegion();
    const monaco = await makeTestContext({
      region: { ...fixture, meta: { ...fixture.meta, name: 'monaco' } },
      db: t.ctx.db,
      now: () => NOW,
    });
    try {
      const r = await put('lots', [
        { alias: 'acme|region-a', name: 'Region A Lot', point: { type: 'Point', coordinates: [-76.6, 39.2905] } },
      ]);
      expect(r.statusCode).toBe(200);
      expect((await lots('alias=acme|region-a'))[0].name).toBe('Region A Lot');
      const other = await monaco.app.inject({
        url: '/lots?alias=acme|region-a',
        headers: { authorization: `Bearer ${monaco.token}` },
      });
      expect(other.statusCode).toBe(404);
    } finally {
      await monaco.close();
    }
  });
});
