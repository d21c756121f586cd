/**
 * Open spots over HTTP: park events in, open spots out, snapped to the curb of the nearest block.
 *
 *   block 77 runs west → east along lat 39.2900 from lon -76.6100 to -76.6080 (≈172 m)
 *
 *        north curb (left of the block direction)
 *   A ─────────────────────────────────────────► B
 *        south curb (right)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_SPOT_TTL_S } from '../../src/parking/reservations/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { tinyRegion } from '../helpers/tiny-region.js';
import { NOW_MS } from './reservations-fixtures.js';

let t: TestContext;
let clock = NOW_MS;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function event(lat: number, lon: number, parkedOut: boolean, at: string) {
  return {
    data: {
      metaData: null,
      reports: [
        {
          identity: { sensorId: 'veh-1' },
          measurements: [
            {
              location: { coordinates: [lat, lon], heading: '90', speed: '12', speedmetric: 'KilometersPerHour' },
              observationTime: at,
              parkedOut: String(parkedOut),
            },
          ],
        },
      ],
    },
    vendorId: 'v1',
    vendorName: 'Sensors Inc',
    requestId: 'req-1',
    arrivalDtUtc: '2026-11-23T11:58:00.123Z',
  };
}

beforeAll(async () => {
  const region = tinyRegion();
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
      curb: [],
    },
  ];
  t = await makeTestContext({ region, now: () => clock });
});
afterAll(async () => {
  await t.close();
});

const post = (body: unknown, form = false) =>
  t.app.inject({
    method: 'POST',
    url: '/USS',
    headers: { ...bearer(t.token), 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    payload: form ? new URLSearchParams({ data: JSON.stringify(body) }).toString() : (body as object),
  });
const query = (qs: string, token = t.token) =>
  t.app.inject({ url: `/USS?Type=ParkingSpots&${qs}${token ? `&accesstoken=${token}` : ''}` });

describe('open spots', () => {
  it('stores a park event sent as the form field data and echoes it', async () => {
    const ev = event(39.29002, -76.609, true, '2026-11-23T11:58:00Z');
    const res = await post(ev, true);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(ev);
    const rows = await t.ctx.db.query('SELECT sensor_id, parked_out, speed_kph FROM pk_park_event');
    expect(rows.rows).toEqual([{ sensor_id: 'veh-1', parked_out: true, speed_kph: 12 }]);
  });

  it('returns the spot snapped 3 m to the north curb with OpenAt, for a vehicle heading east towards it', async () => {
    const res = await query('Clat=392900000&Clon=-766120000&Dlat=392901000&Dlon=-766085000&Bearing=90&Velocity=30');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ versionNumber: '5.2', status: '1' });
    expect(body.result.OpenParkingSpot).toHaveLength(1);
    const spot = body.result.OpenParkingSpot[0];
    expect(spot.OpenAt).toBe('2026-11-23T11:58:00Z');
    // 3 m north of the centre line: 3 / M_PER_DEG ≈ 0.000027°
    expect(spot.Location).toEqual({ longitude: '-76.60900', latitude: '39.29003' });
  });

  it('does not return spots behind a fast vehicle unless they are near its destination', async () => {
    // vehicle 300 m east of the spot heading further east, destination far east
    const behind = await query('Clat=392900000&Clon=-766055000&Dlat=392900000&Dlon=-765900000&Bearing=90&Velocity=40');
    expect(behind.statusCode).toBe(404);
    // same vehicle, destination next to the spot
    const nearDest = await query(
      'Clat=392900000&Clon=-766055000&Dlat=392900000&Dlon=-766091000&Bearing=90&Velocity=40',
    );
    expect(nearDest.statusCode).toBe(200);
  });

  it('a car parking at the same place fills the spot; spots expire after the documented time', async () => {
    await post(event(39.29, -76.6085, true, '2026-11-23T11:59:00Z'));
    expect((await query('Clat=392900000&Clon=-766100000')).json().result.OpenParkingSpot).toHaveLength(2);
    await post(event(39.29001, -76.60901, false, '2026-11-23T11:59:30Z'));
    const after = (await query('Clat=392900000&Clon=-766100000')).json().result.OpenParkingSpot;
    expect(after).toHaveLength(1);
    expect(after[0].OpenAt).toBe('2026-11-23T11:59:00Z');
    clock = Date.parse('2026-11-23T11:59:00Z') + (OPEN_SPOT_TTL_S + 1) * 1000;
    try {
      const gone = await query('Clat=392900000&Clon=-766100000');
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toMatchObject({ status: '0', code: 'PARKING_OPEN_SPOT_NOT_FOUND' });
    } finally {
      clock = NOW_MS;
    }
  });

  it('answers 401 without a valid token and 400 for bad parameters or events', async () => {
    expect((await query('Clat=392900000&Clon=-766100000', '')).statusCode).toBe(401);
    expect((await query('Clat=392900000&Clon=-766100000', 'not-a-token')).statusCode).toBe(401);
    for (const [qs, parameter] of [
      ['Clon=-766100000', 'Clat'],
      ['Clat=abc&Clon=-766100000', 'Clat'],
      ['Clat=392900000&Clon=-766100000&Bearing=400', 'Bearing'],
      ['Clat=392900000&Clon=-766100000&Speed=3', 'Speed'],
    ]) {
      const res = await query(qs);
      expect(res.statusCode).toBe(400);
      expect(res.json().parameter).toBe(parameter);
    }
    const badType = await t.app.inject({
      url: `/USS?Type=Garages&Clat=392900000&Clon=-766100000&accesstoken=${t.token}`,
    });
    expect(badType.json().parameter).toBe('Type');
    const noCoords = await post({
      data: {
        reports: [
          {
            identity: { sensorId: 's' },
            measurements: [{ location: {}, observationTime: '2026-11-23T11:00:00Z', parkedOut: 'true' }],
          },
        ],
      },
    });
    expect(noCoords.statusCode).toBe(400);
    expect(noCoords.json().parameter).toBe('data.reports[0].measurements[0].location.coordinates');
    const noToken = await t.app.inject({
      method: 'POST',
      url: '/USS',
      payload: event(39.29, -76.609, true, '2026-11-23T11:58:00Z'),
    });
    expect(noToken.statusCode).toBe(401);
  });
});
