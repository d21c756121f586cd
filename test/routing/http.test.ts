import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { makeTestContext, type TestContext } from '../helpers/context.js';
import { NO_CRITERIA } from '../../src/routing/index.js';
import { RouteStore } from '../../src/routing/route-store.js';
import { openPglite } from '../../src/store/index.js';
import { DESTINATION, E, ORIGIN, monday, twoRoutes, type TwoRoutes } from './fixtures.js';
import { ERROR_SHAPE, TRAVEL_TIMES_SHAPE, TRIP_RESPONSE_SHAPE, checkShape } from './shape.js';

// twoRoutes (see fixtures.ts): motorway route 12.2 km, ~580 s off-peak / ~2020 s at 08:00;
// primary route 10.2 km, ~796 s. HTTP runs use the default turn costs (a few seconds).
let t: TestContext;
let f: TwoRoutes;
const WP = `WP_1=${ORIGIN.lat},${ORIGIN.lon}&WP_2=${DESTINATION.lat},${DESTINATION.lon}`;
const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) =>
    ['Route', 'Maneuver', 'Road', 'WayPoint', 'Point', 'TravelTime', 'SpeedBucket', 'Incident'].includes(name),
});

beforeAll(async () => {
  f = twoRoutes();
  t = await makeTestContext({ region: f.region, now: () => monday(0) * 1000 });
  twoRoutes({}, t.ctx.speeds); // same graph: learned profiles into the context's feeds
});
afterAll(async () => t.close());

async function get(query: string) {
  const r = await t.app.inject({ method: 'GET', url: `/traffic/Streetwise.ashx?${query}` });
  return {
    status: r.statusCode,
    body: r.body,
    type: String(r.headers['content-type']),
    json: () => JSON.parse(r.body),
  };
}

async function findJson(extra: string) {
  const r = await get(`Action=FindRoute&Token=${t.token}&${WP}&Format=JSON&${extra}`);
  expect(r.status, r.body).toBe(200);
  return r.json();
}

const motorwayMiles = 12.2 / 1.609344;

describe('FindRoute over HTTP', () => {
  it('answers the JSON envelope with the motorway route at 03:00', async () => {
    const body = await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteOutputFields=All');
    expect(checkShape(body, TRIP_RESPONSE_SHAPE)).toEqual([]);
    expect(body).toMatchObject({
      docType: 'FindRoute',
      statusId: 0,
      statusText: 'OK',
      versionNumber: '11.2',
      createdDate: '2026-11-23T00:00:00Z',
    });
    const r = body.result.trip.routes[0];
    expect(body.result.trip.routes).toHaveLength(1);
    expect(r.totalDistance).toBe(Math.round(motorwayMiles * 100) / 100);
    expect(r.travelTimeMinutes).toBe(10);
    expect(r.uncongestedTravelTimeMinutes).toBe(9);
    expect(r.abnormalityMinutes).toBe(0);
    expect(r.routeQuality).toBe(3);
    expect(r.trafficConsidered).toBe(true);
    expect(r.summary.roads[0]).toEqual({ roadClass: 0, name: 'I-95 E' });
    expect(r.maneuvers[0].turnType).toBe('depart');
    expect(r.maneuvers.at(-1).text).toBe('Arrive at destination');
    expect(r.points.coordinates[0]).toEqual([ORIGIN.lon, ORIGIN.lat]);
    expect(body.result.trip.wayPoints.map((w: { id: number }) => w.id)).toEqual([1, 2]);
  });

  it('reports kilometres and km/h with Units=1', async () => {
    const r = (await findJson('DepartureTime=2026-11-23T03:00:00Z&Units=1')).result.trip.routes[0];
    expect(r.totalDistance).toBe(12.2);
    // 12.2 km in 580 s plus a few seconds of turns ≈ 74–76 km/h
    expect(r.averageSpeed).toBeGreaterThanOrEqual(73);
    expect(r.averageSpeed).toBeLessThanOrEqual(76);
    const miles = (await findJson('DepartureTime=2026-11-23T03:00:00Z&Units=0')).result.trip.routes[0];
    expect(Math.abs(miles.averageSpeed - r.averageSpeed / 1.609344)).toBeLessThanOrEqual(1);
  });

  it('takes the primary road at 08:00 and GetRoute re-costs the 03:00 motorway route at 08:00', async () => {
    const at8 = (await findJson('DepartureTime=2026-11-23T08:00:00Z&RouteOutputFields=S')).result.trip.routes[0];
    expect(at8.summary.roads.map((x: { name: string }) => x.name)).toContain('Main St');
    expect(at8.travelTimeMinutes).toBe(13);
    const night = (await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteOutputFields=S')).result.trip;
    const id = night.routes[0].id;
    const again = await get(
      `action=getroute&token=${t.token}&routeid=${id}&departuretime=2026-11-23T08:00:00Z&format=json&RouteOutputFields=S`,
    );
    expect(again.status).toBe(200);
    const body = again.json();
    expect(checkShape(body, TRIP_RESPONSE_SHAPE)).toEqual([]);
    expect(body.docType).toBe('GetRoute');
    expect(body.result.trip.tripId).toBe(night.tripId);
    const r = body.result.trip.routes[0];
    expect(r.id).toBe(id);
    expect(r.summary.roads[0].name).toBe('I-95 E');
    expect(r.travelTimeMinutes).toBe(34);
    expect(r.routeQuality).toBe(0);
  });

  it('MaxAlternates=1 returns the two distinct routes', async () => {
    const routes = (await findJson('DepartureTime=2026-11-23T03:00:00Z&MaxAlternates=1&RouteOutputFields=S')).result
      .trip.routes;
    expect(routes).toHaveLength(2);
    expect(routes[0].summary.roads[0].name).toBe('I-95 E');
    expect(routes[1].summary.roads.map((x: { name: string }) => x.name)).toContain('Main St');
    expect(routes[0].id).not.toBe(routes[1].id);
  });

  it('RouteType=1 returns the shorter primary route without traffic', async () => {
    const r = (await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteType=1&Units=1')).result.trip.routes[0];
    expect(r.totalDistance).toBe(10.2);
    expect(r.trafficConsidered).toBe(false);
  });

  it('Criteria=H avoids the motorway', async () => {
    const r = (await findJson('DepartureTime=2026-11-23T03:00:00Z&Criteria=H&Units=1')).result.trip.routes[0];
    expect(r.totalDistance).toBe(10.2);
    const r2 = (await findJson('DepartureTime=2026-11-23T03:00:00Z&criteria=AvoidHighways,AvoidTollRoads&Units=1'))
      .result.trip.routes[0];
    expect(r2.totalDistance).toBe(10.2);
  });

  it('GeometryTolerance: 0 keeps every point, above the route length only origin and destination', async () => {
    const all = (await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteOutputFields=P&Units=1')).result.trip
      .routes[0];
    expect(all.points.coordinates).toHaveLength(6);
    const two = (
      await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteOutputFields=P&Units=1&GeometryTolerance=20000')
    ).result.trip.routes[0];
    expect(two.points.coordinates).toEqual([
      [ORIGIN.lon, ORIGIN.lat],
      [DESTINATION.lon, DESTINATION.lat],
    ]);
    // 14 000 yards = 12.8 km > 12.2 km route in English units too
    const yards = (await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteOutputFields=P&GeometryTolerance=14000'))
      .result.trip.routes[0];
    expect(yards.points.coordinates).toHaveLength(2);
  });

  it('ArrivalTime finds the latest departure that arrives in time', async () => {
    const svc = t.app.services.routing!;
    const plan = svc.planTimed({
      waypoints: [ORIGIN, DESTINATION],
      arriveS: monday(8, 30),
      maxAlternates: 0,
      useTraffic: true,
      shortest: false,
      criteria: NO_CRITERIA,
      ambiguousOrigin: false,
      output: {
        fields: new Set(),
        incidentFields: new Set(),
        units: 0,
        toleranceM: 0,
        speedBucketId: 1,
        collapseManeuvers: true,
      },
    });
    const tt = svc.engine.costPath(plan.routes[0].legs, plan.departS, monday(0), 0).totalS;
    expect(plan.departS + tt).toBeLessThanOrEqual(monday(8, 30) + 1e-6);
    expect(plan.departS + tt).toBeGreaterThan(monday(8, 30) - 60);
    const r = (await findJson('ArrivalTime=2026-11-23T08:30:00Z&RouteOutputFields=S')).result.trip.routes[0];
    expect(r.summary.roads.map((x: { name: string }) => x.name)).toContain('Main St');
  });

  it('routes through an intermediate waypoint in order and echoes waypoint descriptions', async () => {
    // WP_2 sits on the primary road: even at 03:00 the trip must use it
    const body = (
      await get(
        `Action=FindRoute&Token=${t.token}&WP_1=${ORIGIN.lat},${ORIGIN.lon}&WP_2=-0.005,0.05&WP_3=${DESTINATION.lat},${DESTINATION.lon}` +
          `&WP_2description=Depot&WP_3Description=Home&DepartureTime=2026-11-23T03:00:00Z&Units=1&Format=JSON&RouteOutputFields=W,S,D`,
      )
    ).json();
    expect(body.statusId).toBe(0);
    const trip = body.result.trip;
    expect(trip.wayPoints.map((w: { id: number; description?: string }) => [w.id, w.description])).toEqual([
      [1, undefined],
      [2, 'Depot'],
      [3, 'Home'],
    ]);
    expect(trip.routes[0].totalDistance).toBe(10.2);
    expect(trip.routes[0].maneuvers.map((m: { turnType: string }) => m.turnType)).toContain('waypoint');
  });

  it('CollapseManeuvers=false never gives fewer maneuvers than the collapsed default', async () => {
    const id = (await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteOutputFields=S')).result.trip.routes[0].id;
    const q = `Action=GetRoute&Token=${t.token}&RouteId=${id}&DepartureTime=2026-11-23T03:00:00Z&Format=JSON&RouteOutputFields=D`;
    const collapsed = (await get(q)).json().result.trip.routes[0].maneuvers;
    const full = (await get(`${q}&CollapseManeuvers=false`)).json().result.trip.routes[0].maneuvers;
    expect(full.length).toBeGreaterThan(collapsed.length);
    expect(collapsed[0].text).toMatch(/^Start on Origin Rd heading east/);
  });

  it('answers XML by default with the envelope as root attributes', async () => {
    const r = await get(
      `action=findroute&token=${t.token}&${WP.toLowerCase()}&DepartureTime=2026-11-23T03:00:00Z&MaxAlternates=1&RouteOutputFields=All`,
    );
    expect(r.status).toBe(200);
    expect(r.type).toContain('xml');
    const doc = xml.parse(r.body);
    const root = doc.Streetwise;
    expect(root).toMatchObject({ docType: 'FindRoute', statusId: '0', statusText: 'OK', versionNumber: '11.2' });
    expect(root.responseId).toMatch(/^[0-9a-f-]{36}$/);
    const trip = root.Trip;
    expect(trip.WayPoints.WayPoint).toHaveLength(2);
    expect(trip.Route).toHaveLength(2);
    const route = trip.Route[0];
    for (const a of [
      'id',
      'uncongestedTravelTimeMinutes',
      'routeQuality',
      'hasClosures',
      'hasRestrictions',
      'travelTimeMinutes',
      'abnormalityMinutes',
      'averageSpeed',
      'trafficConsidered',
      'statusId',
      'totalDistance',
    ]) {
      expect(route[a], a).toBeDefined();
    }
    expect(route.Summary.Roads.Road[0]).toEqual({ roadClass: '0', name: 'I-95 E' });
    expect(route.Maneuvers.Maneuver[0].text).toMatch(/^Start on /);
    expect(route.BoundingBox.Corner1.latitude).toBeDefined();
    expect(route.Points.Point.length).toBe(6);
    expect(route.SpeedBuckets.SpeedBucket[0].speedBucket).toBe('3');
  });
});

describe('GetRouteTravelTimes', () => {
  it('returns TravelTimeCount entries TravelTimeInterval minutes apart (XML and JSON)', async () => {
    const id = (await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteOutputFields=S')).result.trip.routes[0].id;
    const r = await get(
      `Action=GetRouteTravelTimes&Token=${t.token}&RouteId=${id}&DepartureTime=2026-11-23T06:00:00Z&TravelTimeCount=3&TravelTimeInterval=120`,
    );
    expect(r.status).toBe(200);
    const root = xml.parse(r.body).Streetwise;
    expect(root.docType).toBe('GetRouteTravelTimes');
    expect(root.Trip.Origin).toEqual({ latitude: String(ORIGIN.lat), longitude: String(ORIGIN.lon) });
    expect(root.Trip.Route).toHaveLength(1);
    const tts = root.Trip.Route[0].TravelTimes.TravelTime;
    expect(tts.map((x: { departureTime: string }) => x.departureTime)).toEqual([
      '2026-11-23T06:00:00Z',
      '2026-11-23T08:00:00Z',
      '2026-11-23T10:00:00Z',
    ]);
    expect(tts.map((x: { travelTimeMinutes: string }) => Number(x.travelTimeMinutes))).toEqual([10, 34, 10]);
    const j = await get(
      `Action=GetRouteTravelTimes&Token=${t.token}&RouteId=${id}&DepartureTime=2026-11-23T06:00:00Z&TravelTimeCount=2&TravelTimeInterval=15&Format=JSON`,
    );
    expect(checkShape(j.json(), TRAVEL_TIMES_SHAPE)).toEqual([]);
    expect(j.json().result.trip.route.travelTimes).toHaveLength(2);
  });
});

describe('times in the past: typical speeds, no live speeds', () => {
  // its own context: "now" is Monday 03:00 and a fresh live speed of 20 km/h sits on the motorway
  let p: TestContext;
  let pf: TwoRoutes;
  beforeAll(async () => {
    pf = twoRoutes();
    p = await makeTestContext({ region: pf.region, now: () => monday(3) * 1000 });
    twoRoutes({}, p.ctx.speeds);
    p.ctx.speeds.setLive(pf.edgeIdOf[E.motorway], { speedKph: 20, observedAtS: monday(3), samples: 5 });
  });
  afterAll(async () => p.close());
  const find = async (extra: string) => {
    const r = await p.app.inject({
      url: `/traffic/api.ashx?Action=FindRoute&Token=${p.token}&${WP}&Format=JSON&RouteOutputFields=S&${extra}`,
    });
    expect(r.statusCode, r.body).toBe(200);
    return r.json().result.trip.routes[0];
  };
  const roads = (r: { summary: { roads: Array<{ name: string }> } }) => r.summary.roads.map((x) => x.name);

  it('DepartureTime now meets the live jam; a week earlier at the same time gets the typical motorway trip', async () => {
    const now = await find('DepartureTime=2026-11-23T03:00:00Z');
    expect(now.trafficConsidered).toBe(true);
    expect(roads(now)).toContain('Main St'); // the live 20 km/h on the motorway sends it round
    const lastWeek = await find('DepartureTime=2026-11-16T03:00:00Z');
    expect(lastWeek.trafficConsidered).toBe(false);
    expect(lastWeek.abnormalityMinutes).toBe(0);
    expect(roads(lastWeek)).toContain('I-95 E');
    expect(lastWeek.travelTimeMinutes).toBe(10); // the 03:00 typical figure of the tests above
    // an hour ago is past too (only a minute of clock skew counts as now)
    expect((await find('DepartureTime=2026-11-23T02:00:00Z')).trafficConsidered).toBe(false);
    expect((await find('DepartureTime=2026-11-23T02:59:30Z')).trafficConsidered).toBe(true);
  });

  it('the 08:00 peak of a past Monday is the typical peak (34 min on the motorway, so the primary route)', async () => {
    const peak = await find('DepartureTime=2026-11-16T08:00:00Z&MaxAlternates=1');
    expect(peak.trafficConsidered).toBe(false);
    expect(roads(peak)).toContain('Main St');
  });

  it('ArrivalTime in the past departs before it, with typical speeds', async () => {
    const r = await find('ArrivalTime=2026-11-16T03:30:00Z');
    expect(r.trafficConsidered).toBe(false);
    expect(roads(r)).toContain('I-95 E');
    const svc = p.app.services.routing!;
    const arriveS = monday(3, 30) - 7 * 86400;
    const plan = svc.planTimed({
      waypoints: [ORIGIN, DESTINATION],
      arriveS,
      maxAlternates: 0,
      useTraffic: true,
      shortest: false,
      criteria: NO_CRITERIA,
      ambiguousOrigin: false,
      output: {
        fields: new Set(),
        incidentFields: new Set(),
        units: 0,
        toleranceM: 0,
        speedBucketId: 1,
        collapseManeuvers: true,
      },
    });
    // typical speeds (mode 1): the trip of about 10 minutes leaves about 10 minutes before the arrival, a week ago
    const tt = svc.engine.costPath(plan.routes[0].legs, plan.departS, monday(3), 1).totalS;
    expect(plan.departS + tt).toBeLessThanOrEqual(arriveS + 1e-6);
    expect(plan.departS + tt).toBeGreaterThan(arriveS - 60);
    expect(plan.departS).toBeLessThan(monday(3) - 6 * 86400);
  });

  it('GetRouteTravelTimes costs past departures typically and later ones with traffic', async () => {
    const id = (await find('DepartureTime=2026-11-23T03:00:00Z')).id;
    const r = await p.app.inject({
      url: `/traffic/api.ashx?Action=GetRouteTravelTimes&Token=${p.token}&RouteId=${id}&DepartureTime=2026-11-16T02:00:00Z&TravelTimeCount=2&TravelTimeInterval=60&Format=JSON`,
    });
    expect(r.statusCode, r.body).toBe(200);
    const tts = r.json().result.trip.route.travelTimes;
    expect(tts.map((x: { departureTime: string }) => x.departureTime)).toEqual([
      '2026-11-16T02:00:00Z',
      '2026-11-16T03:00:00Z',
    ]);
    expect(tts.every((x: { abnormalityMinutes: number }) => x.abnormalityMinutes === 0)).toBe(true);
    // GetRoute at a past departure: typical speeds too
    const g = await p.app.inject({
      url: `/traffic/api.ashx?Action=GetRoute&Token=${p.token}&RouteId=${id}&DepartureTime=2026-11-16T03:00:00Z&Format=JSON&RouteOutputFields=S`,
    });
    expect(g.statusCode, g.body).toBe(200);
    expect(g.json().result.trip.routes[0].trafficConsidered).toBe(false);
  });
});

describe('errors: envelope with the reference status ids', () => {
  const cases: Array<[string, string, number, number, string]> = [
    ['missing Action', `Token=T&${WP}`, 400, 4, 'no action'],
    ['unknown Action', `Action=Fly&Token=T&${WP}`, 400, 5, 'bad action'],
    ['missing Token', `Action=FindRoute&${WP}`, 400, 41, 'NoToken'],
    ['bad Token', `Action=FindRoute&Token=nope&${WP}`, 400, 42, 'BadToken'],
    ['missing WP_1', `Action=FindRoute&Token=T&WP_2=0,0`, 400, 111, 'no waypoint'],
    ['missing WP_2', `Action=FindRoute&Token=T&WP_1=0,0`, 400, 112, 'no waypoint'],
    ['malformed WP_1', `Action=FindRoute&Token=T&WP_1=abc&WP_2=0,0`, 400, 113, 'bad waypoint'],
    ['malformed WP_2', `Action=FindRoute&Token=T&WP_1=0,0&WP_2=91,0`, 400, 114, 'bad waypoint'],
    ['gap in waypoints', `Action=FindRoute&Token=T&${WP}&WP_4=0,0`, 400, 118, 'NonConsecutiveWaypoints'],
    ['MaxAlternates 3', `Action=FindRoute&Token=T&${WP}&MaxAlternates=3`, 400, 119, 'BadMaxAlternates'],
    [
      'unsnappable waypoint',
      `Action=FindRoute&Token=T&WP_1=10,10&WP_2=0,0.101&DepartureTime=2026-11-23T03:00:00Z`,
      400,
      121,
      'Unroutable Waypoint',
    ],
    ['Units 2', `Action=FindRoute&Token=T&${WP}&Units=2`, 400, 440, 'bad units'],
    ['UseTraffic yes', `Action=FindRoute&Token=T&${WP}&UseTraffic=yes`, 400, 510, 'bad use traffic'],
    [
      'DepartureTime beyond nine months',
      `Action=FindRoute&Token=T&${WP}&DepartureTime=2027-09-01T03:00:00Z`,
      400,
      511,
      'bad departure time',
    ],
    ['ArrivalTime malformed', `Action=FindRoute&Token=T&${WP}&ArrivalTime=tomorrow`, 400, 512, 'bad arrival time'],
    ['RouteType 2', `Action=FindRoute&Token=T&${WP}&RouteType=2`, 400, 513, 'bad route type'],
    [
      'RouteOutputFields X',
      `Action=FindRoute&Token=T&${WP}&RouteOutputFields=D,X`,
      400,
      514,
      'bad route output fields',
    ],
    [
      'IncidentOutputFields bad',
      `Action=FindRoute&Token=T&${WP}&IncidentOutputFields=Colour`,
      400,
      442,
      'bad IncidentOutputFields',
    ],
    ['GeometryTolerance -1', `Action=FindRoute&Token=T&${WP}&GeometryTolerance=-1`, 400, 936, 'BadGeometryTolerance'],
    ['IsAmbiguousOrigin 1', `Action=FindRoute&Token=T&${WP}&IsAmbiguousOrigin=1`, 400, 105, 'bad isambiguousorigin'],
    ['Criteria Z', `Action=FindRoute&Token=T&${WP}&Criteria=Z`, 400, 1011, 'Enum value expected for Criteria'],
    ['SpeedBucketID 7', `Action=FindRoute&Token=T&${WP}&SpeedBucketID=7`, 400, 468, 'SpeedBucket Id not found'],
    ['SpeedBucketID x', `Action=FindRoute&Token=T&${WP}&SpeedBucketID=x`, 400, 492, 'bad SpeedBucketId'],
    ['WP_1ID', `Action=FindRoute&Token=T&${WP}&WP_1ID=12`, 400, 522, 'bad location'],
    ['unknown parameter', `Action=FindRoute&Token=T&${WP}&Colour=red`, 400, 1009, 'Failed to parse parameter'],
    [
      'CollapseManeuvers on FindRoute',
      `Action=FindRoute&Token=T&${WP}&CollapseManeuvers=true`,
      400,
      1009,
      'Failed to parse parameter',
    ],
    ['missing RouteId', `Action=GetRoute&Token=T`, 400, 131, 'no routeId'],
    ['malformed RouteId', `Action=GetRoute&Token=T&RouteId=a%20b`, 400, 132, 'bad routeId'],
    ['unknown RouteId', `Action=GetRoute&Token=T&RouteId=123`, 404, 133, 'routeId not found'],
    [
      'CollapseManeuvers bad',
      `Action=GetRoute&Token=T&RouteId=123&CollapseManeuvers=maybe`,
      400,
      515,
      'bad collapse maneuvers',
    ],
    [
      'TravelTimeCount missing',
      `Action=GetRouteTravelTimes&Token=T&RouteId=123&TravelTimeInterval=5`,
      400,
      952,
      'NoTravelTimeCount',
    ],
    [
      'TravelTimeInterval missing',
      `Action=GetRouteTravelTimes&Token=T&RouteId=123&TravelTimeCount=5`,
      400,
      953,
      'NoTravelTimeInterval',
    ],
    [
      'TravelTimeCount 97',
      `Action=GetRouteTravelTimes&Token=T&RouteId=123&TravelTimeCount=97&TravelTimeInterval=5`,
      400,
      950,
      'BadTravelTimeCount',
    ],
    [
      'TravelTimeInterval 1441',
      `Action=GetRouteTravelTimes&Token=T&RouteId=123&TravelTimeCount=2&TravelTimeInterval=1441`,
      400,
      951,
      'BadTravelTimeInterval',
    ],
  ];
  for (const [name, q, http, id, text] of cases) {
    it(`${name} → ${id} ${text}`, async () => {
      const query = q.replace('Token=T', `Token=${encodeURIComponent(t.token)}`);
      const r = await get(`${query}&Format=JSON`);
      expect(r.status, r.body).toBe(http);
      const body = r.json();
      expect(checkShape(body, ERROR_SHAPE)).toEqual([]);
      expect(body.statusId).toBe(id);
      expect(body.statusText).toBe(text);
      const x = await get(query);
      expect(x.status).toBe(http);
      const root = xml.parse(x.body).Streetwise;
      expect(root.statusId).toBe(String(id));
      expect(root.statusText).toBe(text);
      expect(root.Trip).toBeUndefined();
    });
  }

  it('a repeated parameter is refused in the format asked for (JSON with Format=JSON, the action as docType)', async () => {
    const r = await get(`Action=GetRoute&Token=${t.token}&RouteId=1&RouteId=2&Format=JSON`);
    expect(r.status).toBe(400);
    expect(r.type).toContain('json');
    expect(r.json()).toMatchObject({ docType: 'GetRoute', statusId: 1009 });
    expect(r.json().statusDetail).toMatch(/RouteId is given more than once/);
    const twice = await get(`Action=FindRoute&Token=${t.token}&${WP}&format=json&Format=JSON`);
    expect(twice.type).toContain('json');
    expect(twice.json().statusDetail).toMatch(/Format is given more than once/);
    const x = await get(`Action=GetRoute&Token=${t.token}&RouteId=1&RouteId=2`);
    expect(x.type).toContain('xml');
    expect(xml.parse(x.body).Streetwise.docType).toBe('GetRoute');
  });

  it('Format=CSV is rejected (in XML)', async () => {
    const r = await get(`Action=FindRoute&Token=${t.token}&${WP}&Format=CSV`);
    expect(r.status).toBe(400);
    expect(xml.parse(r.body).Streetwise.statusText).toBe('Enum value expected for Format');
  });

  it('answers under /Traffic/ too (server paths use both spellings)', async () => {
    const r = await t.app.inject({ method: 'GET', url: `/Traffic/Handler.ashx?Action=FindRoute&Format=JSON` });
    expect(r.statusCode).toBe(400);
    expect(r.json().statusId).toBe(41);
  });

  it('a handler that does not end in .ashx is not a routing address', async () => {
    const r = await t.app.inject({ method: 'GET', url: `/traffic/other?Action=FindRoute` });
    expect(r.statusCode).toBe(404);
  });
});

describe('incident admin API and closures', () => {
  const auth = () => ({ authorization: `Bearer ${t.adminToken}` });

  it('are documented in the OpenAPI document with the routing address', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const doc = res.json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/incidents', '/v1/incidents/{id}', '/traffic/{handler}']),
    );
    expect(doc.paths['/v1/incidents'].post.requestBody).toBeDefined();
    // the .ashx query parameters stay documented although they are not schema-validated per request
    const names = (doc.paths['/traffic/{handler}'].get.parameters as Array<{ name: string; in: string }>)
      .filter((p) => p.in === 'query')
      .map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['Action', 'Token', 'Format', 'WP_1', 'WP_2', 'RouteId', 'DepartureTime']),
    );
  });

  it('FindRoute answers carry the request id (given or generated)', async () => {
    const r = await t.app.inject({
      method: 'GET',
      url: `/traffic/Streetwise.ashx?Action=FindRoute&Token=${t.token}&${WP}&Format=JSON&DepartureTime=2026-11-23T03:00:00Z`,
      headers: { 'x-request-id': 'req-42' },
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-request-id']).toBe('req-42');
    const e = await t.app.inject({ method: 'GET', url: '/traffic/Streetwise.ashx?Action=FindRoute&Format=JSON' });
    expect(e.json().statusId).not.toBe(0);
    expect(String(e.headers['x-request-id'])).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses missing and non-admin tokens', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/v1/incidents' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/incidents', headers: { authorization: `Bearer ${t.token}` } }))
        .statusCode,
    ).toBe(403);
  });

  it('answers an unparsable JSON body with 400 in the admin error shape', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/incidents',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '{"type": ',
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('ROUTING_BAD_REQUEST');
  });

  it('validates the body', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/incidents',
      headers: auth(),
      payload: { type: 'meteor', severity: 9, startTime: 'x' },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('ROUTING_BAD_INCIDENT');
  });

  it('a closure created through the API detours the next FindRoute; deleting it restores the motorway', async () => {
    const create = await t.app.inject({
      method: 'POST',
      url: '/v1/incidents',
      headers: auth(),
      payload: {
        type: 'construction',
        severity: 3,
        lat: 0.005,
        lon: 0.05,
        startTime: '2026-11-23T02:00:00Z',
        endTime: '2026-11-23T05:00:00Z',
        closure: true,
        shortDescription: 'Bridge works',
        fullDescription: 'I-95 closed between the ramps',
      },
    });
    expect(create.statusCode, create.body).toBe(201);
    const inc = create.json().incident;
    expect(inc.edges).toEqual([f.edgeIdOf[E.motorway]]);
    const list = await t.app.inject({ method: 'GET', url: '/v1/incidents', headers: auth() });
    expect(list.json().incidents.map((i: { id: number }) => i.id)).toContain(inc.id);
    const r = (await findJson('DepartureTime=2026-11-23T03:00:00Z&Units=1&RouteOutputFields=S,I')).result.trip
      .routes[0];
    expect(r.totalDistance).toBe(10.2);
    // GetRoute of a motorway route made before: now closed → hasClosures, no travel time, speed 0
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/incidents/${inc.id}`, headers: auth() });
    expect(del.statusCode).toBe(204);
    const back = (await findJson('DepartureTime=2026-11-23T03:00:00Z&Units=1&RouteOutputFields=S')).result.trip
      .routes[0];
    expect(back.totalDistance).toBe(12.2);
    expect((await t.app.inject({ method: 'GET', url: `/v1/incidents/${inc.id}`, headers: auth() })).statusCode).toBe(
      404,
    );
  });

  it('GetRoute of a route that became closed reports hasClosures without times, and lists the incident', async () => {
    const id = (await findJson('DepartureTime=2026-11-23T03:00:00Z&RouteOutputFields=S')).result.trip.routes[0].id;
    const create = await t.app.inject({
      method: 'POST',
      url: '/v1/incidents',
      headers: auth(),
      payload: {
        type: 'crash',
        severity: 4,
        edges: [f.edgeIdOf[E.motorway]],
        startTime: '2026-11-23T02:00:00Z',
        closure: true,
        shortDescription: 'Crash',
      },
    });
    expect(create.statusCode).toBe(201);
    const body = (
      await get(
        `Action=GetRoute&Token=${t.token}&RouteId=${id}&DepartureTime=2026-11-23T03:00:00Z&Format=JSON&RouteOutputFields=I&IncidentOutputFields=ID,Type,Severity,ShortDescription`,
      )
    ).json();
    expect(checkShape(body, TRIP_RESPONSE_SHAPE)).toEqual([]);
    const r = body.result.trip.routes[0];
    expect(r.hasClosures).toBe(true);
    expect(r.travelTimeMinutes).toBeUndefined();
    expect(r.abnormalityMinutes).toBeUndefined();
    expect(r.averageSpeed).toBe(0);
    expect(r.incidents).toEqual([
      {
        id: create.json().incident.id,
        type: 4,
        severity: 4,
        descriptions: [{ type: 'short', lang: 'en', desc: 'Crash' }],
      },
    ]);
    // GetRouteTravelTimes over the closure: no travel time (not 0), in JSON and in XML
    const series = (
      await get(
        `Action=GetRouteTravelTimes&Token=${t.token}&RouteId=${id}&DepartureTime=2026-11-23T03:00:00Z&TravelTimeCount=2&TravelTimeInterval=15&Format=JSON`,
      )
    ).json();
    expect(checkShape(series, TRAVEL_TIMES_SHAPE)).toEqual([]);
    for (const e of series.result.trip.route.travelTimes) {
      expect(e).toMatchObject({ routeHasClosures: true, averageSpeed: 0 });
      expect(e.travelTimeMinutes).toBeUndefined();
      expect(e.abnormalityMinutes).toBeUndefined();
    }
    const seriesXml = (
      await get(
        `Action=GetRouteTravelTimes&Token=${t.token}&RouteId=${id}&DepartureTime=2026-11-23T03:00:00Z&TravelTimeCount=1&TravelTimeInterval=15`,
      )
    ).body;
    expect(seriesXml).toContain('routeHasClosures="true"');
    expect(seriesXml).not.toContain('travelTimeMinutes=');
    await t.app.inject({ method: 'DELETE', url: `/v1/incidents/${create.json().incident.id}`, headers: auth() });
  });
});

describe('route ids across processes', () => {
  it('GetRoute in another process finds a route still waiting for its batched INSERT', async () => {
    const db = await openPglite();
    const fx = twoRoutes();
    const config = { 'routing.routeWriteDelayMs': '300' };
    const a = await makeTestContext({ region: fx.region, now: () => monday(0) * 1000, db, config });
    const b = await makeTestContext({ region: fx.region, now: () => monday(0) * 1000, db, config });
    try {
      const r = await a.app.inject({
        method: 'GET',
        url: `/traffic/Streetwise.ashx?Action=FindRoute&Token=${a.token}&${WP}&Format=JSON`,
      });
      expect(r.statusCode, r.body).toBe(200);
      const id = String(r.json().result.trip.routes[0].id);
      const g = await b.app.inject({
        method: 'GET',
        url: `/traffic/Streetwise.ashx?Action=GetRoute&Token=${b.token}&RouteId=${id}&Format=JSON`,
      });
      expect(g.statusCode, g.body).toBe(200);
      expect(g.json().statusId).toBe(0);
      expect(String(g.json().result.trip.routes[0].id)).toBe(id);
    } finally {
      await a.close();
      await b.close();
      await db.close();
    }
  });
});

describe('route ids across a shutdown', () => {
  it('writes the routes still queued for their background INSERT before the app closes', async () => {
    const db = await openPglite();
    const fx = twoRoutes();
    const app = await makeTestContext({
      region: fx.region,
      now: () => monday(0) * 1000,
      db,
      config: { 'routing.routeWriteDelayMs': '1000' },
    });
    try {
      const r = await app.app.inject({
        method: 'GET',
        url: `/traffic/Streetwise.ashx?Action=FindRoute&Token=${app.token}&${WP}&Format=JSON`,
      });
      expect(r.statusCode, r.body).toBe(200);
      const id = String(r.json().result.trip.routes[0].id);
      await app.close();
      // another process (a fresh store on the same database) finds it
      const other = new RouteStore(db);
      expect((await other.find(id, monday(0)))?.id).toBe(id);
    } finally {
      await db.close();
    }
  });
});
