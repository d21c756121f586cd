import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import polyline from '@mapbox/polyline';
import { M_PER_DEG } from '../../src/geo/index.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { parkingRegion, P, chordDistanceM } from './inventory-fixture.js';

// Monday 2026-11-23 15:00 UTC = 10:00 in New York
const NOW = Date.UTC(2026, 10, 23, 15, 0);

describe('GET /lots, /blocks, /blocks/v3 on the hand-built fixture', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await makeTestContext({ region: parkingRegion(), now: () => NOW });
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string, token: string | null = t.token) =>
    t.app.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const near = `point=${P.lat}|${P.lon}`;

  describe('tokens', () => {
    it('refuses /lots without a token (401, parking error shape)', async () => {
      const r = await get(`/lots?${near}&radius=500`, null);
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ status: 401, code: 'PARKING_TOKEN_INVALID', versionNumber: '5.2' });
      expect(r.json().responseId).toMatch(/^[0-9a-f-]{36}$/);
    });
    it('accepts the accesstoken query parameter in any case on /lots and /blocks', async () => {
      expect((await get(`/lots?${near}&radius=500&AccessToken=${t.token}`, null)).statusCode).toBe(200);
      expect((await get(`/blocks?${near}&radius=500&accesstoken=${t.token}`, null)).statusCode).toBe(200);
    });
    it('accepts /blocks/v3 only with the Authorization header', async () => {
      expect((await get(`/blocks/v3?${near}&radius=500&accesstoken=${t.token}`, null)).statusCode).toBe(401);
      expect((await get(`/blocks/v3?${near}&radius=500`)).statusCode).toBe(200);
    });
    it('refuses a garbage token and a malformed Authorization header', async () => {
      expect((await get(`/lots?${near}`, 'not-a-token')).statusCode).toBe(401);
      const r = await t.app.inject({ url: `/lots?${near}`, headers: { authorization: 'Token abc' } });
      expect(r.statusCode).toBe(401);
    });
  });

  describe('location parameter rules', () => {
    const bad = async (url: string, parameter: string, message: RegExp) => {
      const r = await get(url);
      expect(r.statusCode).toBe(400);
      expect(r.json().parameter).toBe(parameter);
      expect(r.json().message).toMatch(message);
    };
    it('rejects two location parameters', async () => {
      await bad(`/lots?id=11&${near}`, 'point', /only one location parameter.*id and point/);
      await bad(
        `/lots?box=39.3|-76.62,39.28|-76.6&polygon=39.29|-76.61,39.30|-76.61,39.30|-76.60`,
        'polygon',
        /only one location parameter/,
      );
      await bad(`/blocks?alias=osm|1&id=1`, 'alias', /only one location parameter/);
    });
    it('rejects radius without point, and radius with box or geoId', async () => {
      await bad(`/lots?id=11&radius=100`, 'radius', /radius requires point/);
      await bad(`/lots?radius=100`, 'radius', /radius requires point/);
      await bad(`/lots?box=39.3|-76.62,39.28|-76.6&radius=100`, 'radius', /radius cannot be combined with box/);
      await bad(`/blocks/v3?geoId=5&radius=100`, 'radius', /radius cannot be combined with geoid/);
    });
    it('requires a location parameter', async () => {
      const r = await get(`/lots?limit=5`);
      expect(r.statusCode).toBe(400);
      expect(r.json().code).toBe('PARKING_LOCATION_MISSING');
    });
    it('rejects geoId (no geography table) and parameters of other operations', async () => {
      await bad(`/blocks/v3?geoId=5`, 'geoId', /no geography table/);
      await bad(`/blocks/v3?id=1`, 'id', /not a parameter of GET \/blocks\/v3/);
      await bad(`/blocks?polygon=39.29|-76.61,39.30|-76.61,39.30|-76.60`, 'polygon', /not a parameter of GET \/blocks/);
      await bad(`/lots?${near}&restrictions=R`, 'restrictions', /not a parameter of GET \/lots/);
    });
    it('names malformed values', async () => {
      await bad(`/lots?point=39.29`, 'point', /<lat>\|<lon>/);
      await bad(`/lots?box=39.3|-76.62`, 'box', /north-west corner/);
      await bad(`/lots?${near}&radius=-5`, 'radius', /positive/);
      await bad(`/lots?${near}&radius=20000`, 'radius', /exceeds 10000/);
      await bad(`/lots?${near}&limit=0`, 'limit', /between 1 and 1000/);
      await bad(`/lots?${near}&sort=name`, 'sort', /only "distance"/);
      await bad(`/lots?${near}&outputfields=name,colour`, 'outputfields', /unknown field\(s\) colour/);
      await bad(`/lots?${near}&entry_time=2026-13-01T10:00`, 'entry_time', /valid/);
      await bad(`/lots?${near}&duration=60|abc`, 'duration', /integer/);
      await bad(`/lots?id=11|x`, 'id', /positive integer/);
      await bad(`/lots?${near}&locale=english!`, 'locale', /ISO 15897/);
    });
    it('refuses historical entry times on /blocks/v3', async () => {
      await bad(`/blocks/v3?${near}&entry_time=2026-11-20T10:00Z`, 'entry_time', /historical/);
    });
  });

  describe('lots queries', () => {
    const ids = async (url: string) => (await get(url)).json().result.map((l: { id: number }) => l.id);

    it('finds lots within a radius sorted by distance, with geodesic distances in metres', async () => {
      const r = (await get(`/lots?${near}&radius=500&sort=distance`)).json().result;
      expect(r.map((l: { id: number }) => l.id)).toEqual([11, 221, 44]);
      expect(r[0].distance).toBe(Math.round(chordDistanceM(P.lat, P.lon, 39.291, -76.61)));
      expect(r[0].distance).toBe(111);
      expect(r[2].distance).toBe(Math.round(chordDistanceM(P.lat, P.lon, 39.2905, -76.605)));
    });
    it('returns unsorted (id order) results without sort', async () => {
      expect(await ids(`/lots?${near}&radius=2000`)).toEqual([11, 33, 44, 221]);
    });
    it('pages with offset and limit as a hard stop', async () => {
      expect(await ids(`/lots?${near}&radius=2000&sort=distance&limit=2`)).toEqual([11, 221]);
      expect(await ids(`/lots?${near}&radius=2000&sort=distance&limit=2&offset=2`)).toEqual([44, 33]);
      expect(await ids(`/lots?${near}&radius=2000&sort=distance&offset=4`)).toEqual([]);
    });
    it('keeps only the output fields asked for, plus the id', async () => {
      const r = (await get(`/lots?id=11&outputfields=name,distance`)).json().result;
      expect(r).toEqual([{ id: 11, name: 'Garage A', distance: null }]);
    });
    it('queries by id list, alias, box, polygon and route corridor', async () => {
      expect(await ids(`/lots?id=44|11|999`)).toEqual([44, 11]); // in the order asked
      expect(await ids(`/lots?alias=osm|w22`)).toEqual([221]);
      expect(await ids(`/lots?box=39.2925|-76.6101,39.2895|-76.6040`)).toEqual([11, 44, 221]);
      expect(await ids(`/lots?polygon=39.2895|-76.6101,39.2925|-76.6101,39.2925|-76.6085,39.2895|-76.6085`)).toEqual([
        11, 221,
      ]);
      // a route along Main St, then north: East Lot is 56 m from it, Garage A 0 m, Lot B ≈ 80 m
      const corridor = (await get(`/lots?polyline=39.2900|-76.6120,39.2900|-76.6050&sort=distance`)).json().result;
      expect(corridor.map((l: { id: number }) => l.id)).toEqual([44]);
      expect(corridor[0].distance).toBe(Math.round(chordDistanceM(39.2905, -76.605, 39.29, -76.605)));
    });
    it('answers 404 for ids that match nothing', async () => {
      const r = await get(`/lots?id=999`);
      expect(r.statusCode).toBe(404);
      expect(r.json().code).toBe('PARKING_NOT_FOUND');
    });
    it('pre-filters by operator (pipe list, case-insensitive)', async () => {
      expect(await ids(`/lots?${near}&radius=2000&operator=metro parking`)).toEqual([11, 33]);
      expect(await ids(`/lots?${near}&radius=2000&operator=City|Harbor Co`)).toEqual([44, 221]);
    });
    it('prices each duration at the entry time in local time, and says null without a duration', async () => {
      const r = (await get(`/lots?id=11|221|44&entry_time=2026-11-23T10:00&duration=30|90|120`)).json().result;
      const byId = Object.fromEntries(r.map((l: { id: number }) => [l.id, l]));
      expect(byId[11].calculatedRates).toEqual([
        { rate_cost: 3, quoted_duration: '01:00:00', rate_type: 'B' },
        { rate_cost: 6, quoted_duration: '02:00:00', rate_type: 'B' },
        { rate_cost: 6, quoted_duration: '02:00:00', rate_type: 'B' },
      ]);
      expect(byId[221].calculatedRates[1]).toEqual({ rate_cost: 0, quoted_duration: '01:30:00', rate_type: 'B' });
      expect(byId[44].calculatedRates).toBeNull();
      expect(byId[44].isOpen).toBeNull();
      expect(byId[11]).toMatchObject({
        isOpen: true,
        tz: 'America/New_York',
        offset: -18000,
        rateCard: ['Mon-Sun 24 Hours: $3.00 per 1 Hr'],
        costIndex: 5,
      }); // dearer of the two priced lots
      expect(byId[221].costIndex).toBe(1);
      const none = (await get(`/lots?id=11`)).json().result[0];
      expect(none.calculatedRates).toBeNull();
    });
    it('renders rate cards in the requested locale', async () => {
      const r = (await get(`/lots?id=11&locale=fr-FR`)).json().result[0];
      expect(r.rateCard.map((l: string) => l.replace(/\s/g, ' '))).toEqual(['Lun-Dim 24 h: 3,00 $US par 1 h']);
    });
    it('changes the occupancy prediction with the entry time (UTC with Z, else local)', async () => {
      const at = async (e: string) => (await get(`/lots?id=11&entry_time=${e}`)).json().result[0].occupancy;
      const night = await at('2026-11-24T03:00');
      const noon = await at('2026-11-24T12:00');
      expect(noon.pct).toBe(90); // weekday 12:00 of the Public Parking profile
      expect(night.pct).toBe(10); // weekday 03:00
      expect(await at('2026-11-24T17:00Z')).toEqual(noon); // 17:00 UTC = 12:00 New York
      expect(noon).toMatchObject({ available: 20, rank: 2 });
      expect(night).toMatchObject({ available: 180, probability: 100, bucket: 3 });
    });
  });

  describe('blocks', () => {
    it('returns blocks with merged segments, offsets, sides, polylines and GeoJSON', async () => {
      const r = (await get(`/blocks?${near}&radius=100&sort=distance&entry_time=2026-11-23T10:00&duration=60`)).json()
        .result;
      expect(r.map((b: { blockID: number }) => b.blockID)).toEqual([1, 2]);
      const main = r[0];
      expect(main).toMatchObject({
        name: 'Main St',
        address: 'Main St from Side St to East Ave',
        polyline: 'oyxnFn{qrM?oK',
        distance: 0,
        offset: -18000,
      });
      expect(main.geojson).toEqual({
        type: 'LineString',
        coordinates: [
          [-76.61, 39.29],
          [-76.608, 39.29],
        ],
      });
      expect(main.polyline6).toBe('_ha}iA~{{bqC?_|B');
      const segs = main.segments.map((s: Record<string, unknown>) => [
        s.segmentID,
        s.side,
        s.start,
        s.end,
        s.spacesTotal,
        s.isOpen,
      ]);
      expect(segs).toEqual([
        ['1-R1', 'RIGHT', 0, 150, 22, true], // driveway of 15 m merged away
        ['1-L1', 'LEFT', 0, 80, 13, true],
        ['1-L2', 'LEFT', 80, 100, 0, false], // 20 m gap kept: the rules change across it
        ['1-L3', 'LEFT', 100, 170, 11, false], // residents only: closed to the public
      ]);
      // segment lines follow their curb, 4 m right (south) / left (north) of the eastbound street
      const [r0, r1] = polyline.decode(main.segments[0].polyline6, 6);
      expect(r0[0]).toBeCloseTo(39.29 - 4 / M_PER_DEG, 6);
      expect(r1[1]).toBeCloseTo(-76.61 + 150 / (M_PER_DEG * Math.cos((39.29 * Math.PI) / 180)), 5);
      expect(polyline.decode(main.segments[1].polyline6, 6)[0][0]).toBeCloseTo(39.29 + 4 / M_PER_DEG, 6);
      expect(main.segments[1].calculatedRates).toEqual([{ rate_cost: 2, quoted_duration: '01:00:00', rate_type: 'B' }]);
      expect(main.segments[2].calculatedRates).toEqual([]);
      expect(main.probability).toBeGreaterThan(90);
      expect(main.bucket).toBe(3);
      // Side St: No Parking on both sides → probability and bucket null
      expect(r[1]).toMatchObject({ blockID: 2, probability: null, bucket: null });
    });
    it('keeps blocks with rules for the permits in restrictions and prices them for the holder', async () => {
      const r = (await get(`/blocks?${near}&radius=300&restrictions=R&entry_time=2026-11-23T10:00&duration=60`)).json()
        .result;
      expect(r.map((b: { blockID: number }) => b.blockID)).toEqual([1]);
      expect(r[0].segments[3]).toMatchObject({
        isOpen: true,
        calculatedRates: [{ rate_cost: 0, quoted_duration: '01:00:00', rate_type: 'B' }],
      });
    });
    it('queries blocks by id and box, with outputfields', async () => {
      const r = (await get(`/blocks?id=2&outputfields=name`)).json().result;
      expect(r).toEqual([{ blockID: 2, name: 'Side St' }]);
      const box = (await get(`/blocks?box=39.2914|-76.6099,39.2895|-76.6070`)).json().result;
      expect(box.map((b: { blockID: number }) => b.blockID)).toEqual([1]);
    });
    it('answers /blocks/v3 for a circle', async () => {
      const r = (await get(`/blocks/v3?${near}&radius=50&limit=1`)).json();
      expect(r.result).toHaveLength(1);
      expect(r.versionNumber).toBe('5.2');
    });
  });
});
