/**
 * The bytes users receive stay the same when the request path changes underneath: FindRoute,
 * GetRoute and GetRouteTravelTimes answers on Baltimore for 60 seeded origin–destination pairs,
 * JSON and XML, 0/1/2 alternates, every output field, compared with recorded digests (volatile
 * fields — ids, response id, creation time — masked). REGEN=1 records them again, on purpose.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import { odPairs } from '../../bench/routing.js';
import { makeTestContext, type TestContext } from '../helpers/context.js';

const PBF = '../shared/data/baltimore.osm.pbf';
const GOLDEN = 'test/routing/golden/baltimore-responses.json';
const present = existsSync(PBF);
if (!present) {
  if (process.env.CI === 'true') throw new Error(`${PBF} is missing (required in CI)`);
  console.warn(`skipping the recorded Baltimore responses: ${PBF} not found`);
}

/** The answer with its volatile parts masked: ids, response id, creation time. */
function masked(body: string): string {
  return body
    .replace(/("(?:id|tripId|routeId|routeInstanceId|responseId)":)"[^"]*"/g, '$1"*"')
    .replace(/\b((?:id|tripId|routeId|routeInstanceId|responseId)=)"[^"]*"/g, '$1"*"')
    .replace(/("createdDate":)"[^"]*"/g, '$1"*"')
    .replace(/\b(createdDate=)"[^"]*"/g, '$1"*"');
}

const digest = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

describe.skipIf(!present)('recorded routing answers on Baltimore (60 seeded pairs)', () => {
  let t: TestContext;
  // Monday 2026-11-30 08:00 and 03:00 in Baltimore; the clock is fixed a week earlier
  const nowMs = Date.UTC(2026, 10, 23, 12, 0);
  const deps = ['2026-11-30T13:00:00Z', '2026-11-30T08:00:00Z'];
  beforeAll(async () => {
    const region = buildRegion(readOsmExtract(PBF), { name: 'baltimore', mapVersion: 'baltimore-golden' });
    t = await makeTestContext({ region, now: () => nowMs });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('FindRoute, GetRoute and GetRouteTravelTimes answer exactly as recorded', async () => {
    const pairs = odPairs(t.ctx.region.graph, 60, 20261125);
    const got: Record<string, string> = {};
    const get = async (path: string): Promise<string> => {
      const r = await t.app.inject({ url: `${path}&Token=${t.token}` });
      return r.body;
    };
    for (let i = 0; i < pairs.length; i++) {
      const [a, b] = pairs[i];
      const dep = deps[i % 2];
      const base = `/traffic/api.ashx?Action=FindRoute&WP_1=${a.lat.toFixed(6)},${a.lon.toFixed(6)}&WP_2=${b.lat.toFixed(6)},${b.lon.toFixed(6)}&DepartureTime=${dep}`;
      const alt = i % 3;
      const json = await get(`${base}&Format=JSON&MaxAlternates=${alt}&RouteOutputFields=D,S,W,B,P,I,U`);
      got[`find ${i} json alt${alt}`] = digest(masked(json));
      got[`find ${i} xml`] = digest(masked(await get(`${base}&RouteOutputFields=D,S,W,B,P,I,U`)));
      const id = /"routes":\[\{"id":"(\d+)"/.exec(json)?.[1];
      if (id === undefined) continue;
      got[`get ${i}`] = digest(
        masked(
          await get(
            `/traffic/api.ashx?Action=GetRoute&Format=JSON&RouteId=${id}&DepartureTime=${dep}&RouteOutputFields=S,B,U`,
          ),
        ),
      );
      got[`times ${i}`] = digest(
        masked(
          await get(
            `/traffic/api.ashx?Action=GetRouteTravelTimes&Format=JSON&RouteId=${id}&DepartureTime=${dep}&TravelTimeCount=4&TravelTimeInterval=15`,
          ),
        ),
      );
    }
    expect(Object.keys(got).length).toBeGreaterThan(200);
    if (process.env.REGEN === '1' || !existsSync(GOLDEN)) {
      writeFileSync(GOLDEN, `${JSON.stringify(got, null, 1)}\n`);
      if (process.env.CI === 'true') throw new Error(`${GOLDEN} was missing: recorded it, commit it`);
    }
    const want = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, string>;
    const differ = Object.keys(want).filter((k) => want[k] !== got[k]);
    expect(differ, `answers that changed: ${differ.slice(0, 10).join(', ')}`).toEqual([]);
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
  }, 300_000);
});
