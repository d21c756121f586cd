import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFacts,
  catalogOf,
  parseMetricRequest,
  queryMetrics,
  storeFacts,
  updateNamespace,
  migrations,
  AnalyticsError,
} from '../../src/analytics/index.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { N } from './fixture.js';
import { openTestPostgres, testDatabaseUrl } from '../helpers/context.js';
import { buildStory, KEY_C, KEY_D, movementIdOf } from './story.js';

const { fx, trajectories } = buildStory();
const catalog = catalogOf(fx.region);
const WE = movementIdOf(fx, N.W, N.C, N.E);
const WS = movementIdOf(fx, N.W, N.C, N.S);
const NE = movementIdOf(fx, N.N, N.C, N.E);
const NOV = [{ startDate: '2026-11-01', endDate: '2026-11-30' }];
const pgUrl = testDatabaseUrl();
if (!pgUrl && process.env.CI !== 'true')
  console.warn('TEST_DATABASE_URL is not set: the PostgreSQL run of the metric suite is skipped');

// The same suite on both backends: PGlite in memory, and PostgreSQL when TEST_DATABASE_URL is set.
for (const backend of ['pglite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && !pgUrl && process.env.CI !== 'true')(`metrics on ${backend}`, () => {
    let db: Db;
    let drop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      if (backend === 'pglite') db = await openPglite();
      else {
        const pg = (await openTestPostgres())!;
        db = pg.db;
        drop = pg.drop;
      }
      await runMigrations(db, migrations);
      const facts = buildFacts(fx.region, trajectories);
      expect(facts).toHaveLength(7);
      await storeFacts(db, facts, { mapVersion: '20261101' });
      // storing again is idempotent
      await storeFacts(db, facts, { mapVersion: '20261101' });
    });
    afterAll(async () => {
      if (drop) await drop();
      else await db?.close();
    });

    async function run(body: Record<string, unknown>) {
      return queryMetrics(db, catalog, parseMetricRequest(body));
    }
    async function rows(body: Record<string, unknown>) {
      return (await run(body)).rows;
    }
    async function rejects(body: Record<string, unknown>, param: RegExp) {
      const err = await run(body).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AnalyticsError);
      expect((err as AnalyticsError).message).toMatch(param);
    }

    describe('metric catalogue on the hand-built crossing', () => {
      it('computes every metric of intersection C for November exactly', async () => {
        const all = [
          'totalVehicleCount',
          'throughVehicleCount',
          'stopVehicleCount',
          'avgTravelTime',
          'maxTravelTime',
          'avgApproachSpeed',
          'maxApproachSpeed',
          'avgThroughApproachSpeed',
          'maxThroughApproachSpeed',
          'avgControlDelay',
          'maxControlDelay',
          '3MDCount',
          '3MDPct',
          'POG',
          'LOS',
          'anonymized',
        ];
        const data = await run({
          dateRanges: NOV,
          dimensions: [{ name: 'intersectionId' }],
          metrics: all.map((name) => ({ name })),
          metadata: [{ key: 'units', value: 'metric' }],
        });
        expect(data.columnHeader.dimensionHeaderEntries).toEqual([{ name: 'intersectionId', type: 'STRING' }]);
        expect(data.columnHeader.metricHeaderEntries.map((e) => e.type)).toEqual([
          'INTEGER',
          'INTEGER',
          'INTEGER',
          'DOUBLE',
          'DOUBLE',
          'DOUBLE',
          'DOUBLE',
          'DOUBLE',
          'DOUBLE',
          'DOUBLE',
          'DOUBLE',
          'INTEGER',
          'DOUBLE',
          'DOUBLE',
          'STRING',
          'BOOLEAN',
        ]);
        // 5 vehicles: delays 40, 0.31, 20, 0, 200.31 → avg 52.12 → LOS D; travel 61.45, 21.45, 41.45, 21.45, 221.45
        // (the two turning vehicles, W→S and N→E, drove the legs through the node; free flow is that of the
        // arc a turn takes, cornerCutM(90°, 7.25 m, 7.25 m) = 3.11 m shorter: 0.31 s at 36 km/h)
        // approach speeds 36, 36, 18, 36, 36 km/h; through (B, C, F) 36, 18, 36
        expect(data.rows).toEqual([
          [
            KEY_C,
            '5',
            '3',
            '2',
            '73.45',
            '221.45',
            '32.49',
            '36',
            '30.15',
            '36',
            '52.12',
            '200.31',
            '1',
            '20',
            '60',
            'D',
            'false',
          ],
        ]);
        expect(data.nextCursor).toEqual({});
      });

      it('reports approach speeds in mph by default', async () => {
        expect(
          await rows({
            dateRanges: NOV,
            dimensions: [],
            metrics: [{ name: 'avgApproachSpeed' }, { name: 'maxApproachSpeed' }],
          }),
        ).toEqual([['20.19', '22.37']]);
      });

      it('gives each movement its LOS letter with the HCM bands (20 s is still B)', async () => {
        const r = await rows({
          dateRanges: NOV,
          dimensions: [{ name: 'movementId' }],
          metrics: [{ name: 'totalVehicleCount' }, { name: 'avgControlDelay' }, { name: 'LOS' }, { name: 'turnPct' }],
        });
        const byId = Object.fromEntries(r.map((x) => [x[0], x.slice(1)]));
        expect(byId[WE]).toEqual(['3', '20', 'B', '75']);
        // turning movements: the arc's free flow, 0.31 s shorter than the legs the vehicles drove
        expect(byId[WS]).toEqual(['1', '0.31', 'A', '25']);
        expect(byId[NE]).toEqual(['1', '200.31', 'F', '100']);
      });

      it('keeps turnPct a share of the whole approach when movements are filtered', async () => {
        const r = await rows({
          dateRanges: NOV,
          dimensions: [{ name: 'movementId' }],
          metrics: [{ name: 'turnPct' }],
          dimensionFilters: [{ name: 'movementId', operator: 'EQUALS', expressions: [WS] }],
        });
        expect(r).toEqual([[WS, '25']]);
      });

      it('applies user LOS ranges (start inclusive, end exclusive)', async () => {
        const r = await rows({
          dateRanges: NOV,
          dimensions: [{ name: 'movementId' }],
          metrics: [
            {
              name: 'LOS',
              ranges: [
                { name: 'good', startAvgControlDelay: 0, endAvgControlDelay: 20 },
                { name: 'fair', startAvgControlDelay: 20, endAvgControlDelay: 60 },
                { name: 'poor', startAvgControlDelay: 60 },
              ],
            },
          ],
          orderBys: [{ name: 'LOS', sortOrder: 'ASCENDING' }],
        });
        expect(r).toEqual([
          [WE, 'fair'],
          [WS, 'good'],
          [NE, 'poor'],
        ]);
      });

      it('flags rows of fewer than 5 vehicles as anonymized', async () => {
        const r = await rows({
          dateRanges: NOV,
          dimensions: [{ name: 'wkPart' }],
          metrics: [{ name: 'totalVehicleCount' }, { name: 'anonymized' }],
        });
        expect(r).toEqual([
          ['weekday', '4', 'true'],
          ['weekend', '1', 'true'],
        ]);
      });
    });

    describe('dimensions', () => {
      const cases: Array<[string, string[][]]> = [
        ['intersectionId', [[KEY_C, '5']]],
        ['quarter', [['2026-Q4', '5']]],
        ['month', [['2026-11', '5']]],
        ['week', [['2026-11-16', '5']]],
        [
          'day',
          [
            ['2026-11-16', '4'],
            ['2026-11-21', '1'],
          ],
        ],
        [
          'dayOfWeek',
          [
            ['1', '4'],
            ['6', '1'],
          ],
        ],
        [
          'hourOfDay',
          [
            ['8', '3'],
            ['9', '1'],
            ['17', '1'],
          ],
        ],
        [
          'wkPart',
          [
            ['weekday', '4'],
            ['weekend', '1'],
          ],
        ],
        // zone entries: A 08:00:25, B 08:20:25, F 08:50:25, C 09:05:50, D 17:40:25
        [
          '15MinBin',
          [
            ['08:00', '1'],
            ['08:15', '1'],
            ['08:45', '1'],
            ['09:00', '1'],
            ['17:30', '1'],
          ],
        ],
        [
          '30MinBin',
          [
            ['08:00', '2'],
            ['08:30', '1'],
            ['09:00', '1'],
            ['17:30', '1'],
          ],
        ],
      ];
      for (const [name, expected] of cases) {
        it(`groups by ${name}`, async () => {
          expect(
            await rows({ dateRanges: NOV, dimensions: [{ name }], metrics: [{ name: 'totalVehicleCount' }] }),
          ).toEqual(expected);
        });
      }

      it('groups by movementId in numeric order', async () => {
        const r = await rows({
          dateRanges: NOV,
          dimensions: [{ name: 'movementId' }],
          metrics: [{ name: 'totalVehicleCount' }],
        });
        expect(r.map((x) => x[0])).toEqual([WE, WS, NE].sort((a, b) => Number(a) - Number(b)));
      });

      it('groups by customTimeRange in range order, wrapping midnight', async () => {
        const ranges = [
          { name: 'AM', startTime: '06:00', endTime: '09:00' },
          { name: 'Midday', startTime: '09:00', endTime: '15:00' },
          { name: 'PM', startTime: '15:00', endTime: '19:00' },
          { name: 'Night', startTime: '19:00', endTime: '06:00' },
        ];
        const r = await rows({
          dateRanges: NOV,
          dimensions: [{ name: 'customTimeRange', ranges }],
          metrics: [{ name: 'totalVehicleCount' }],
        });
        expect(r).toEqual([
          ['AM', '3'],
          ['Midday', '1'],
          ['PM', '1'],
        ]);
      });

      it('rejects customTimeRange ranges with a gap, an overlap or off the 15-minute grid', async () => {
        const base = { dateRanges: NOV, metrics: [{ name: 'totalVehicleCount' }] };
        await rejects(
          {
            ...base,
            dimensions: [{ name: 'customTimeRange', ranges: [{ name: 'a', startTime: '00:00', endTime: '12:00' }] }],
          },
          /cover all 24 hours: 12:00/,
        );
        await rejects(
          {
            ...base,
            dimensions: [
              {
                name: 'customTimeRange',
                ranges: [
                  { name: 'a', startTime: '00:00', endTime: '24:00' },
                  { name: 'b', startTime: '10:00', endTime: '11:00' },
                ],
              },
            ],
          },
          /overlaps/,
        );
        await rejects(
          {
            ...base,
            dimensions: [{ name: 'customTimeRange', ranges: [{ name: 'a', startTime: '00:10', endTime: '24:00' }] }],
          },
          /15-minute grid/,
        );
      });

      it('spans several date ranges and reads local days', async () => {
        const r = await rows({
          dateRanges: [
            { startDate: '2026-11-21', endDate: '2026-11-21' },
            { startDate: '2027-01-01', endDate: '2027-01-31' },
          ],
          dimensions: [{ name: 'intersectionId' }, { name: 'month' }],
          metrics: [{ name: 'totalVehicleCount' }],
        });
        // keys sort as strings: '…-76.60837' (D) before '…-76.61000' (C)
        expect(r).toEqual([
          [KEY_D, '2027-01', '1'],
          [KEY_C, '2026-11', '1'],
          [KEY_C, '2027-01', '1'],
        ]);
      });

      it('adds readable columns in verbose output mode', async () => {
        const data = await run({
          dateRanges: NOV,
          dimensions: [{ name: 'intersectionId' }, { name: 'movementId' }],
          metrics: [{ name: 'totalVehicleCount' }],
          metadata: [{ key: 'outputMode', value: 'verbose' }],
          dimensionFilters: [{ name: 'movementId', operator: 'EQUALS', expressions: [NE] }],
        });
        expect(data.columnHeader.dimensionHeaderEntries.map((e) => e.name)).toEqual([
          'intersectionId',
          'movementId',
          'intersectionName',
          'movementName',
          'inboundDirection',
          'outboundDirection',
          'turnManeuver',
        ]);
        expect(data.rows).toEqual([
          [KEY_C, NE, 'Main St & 1st Ave', 'SB 1st Ave left onto Main St', 'S', 'E', 'L', '1'],
        ]);
      });
    });

    describe('dimension filters', () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: 'hourOfDay', operator: 'EQUALS', expressions: ['8'] }, '3'],
        [{ name: 'hourOfDay', operator: 'EQUALS', not: true, expressions: ['8'] }, '2'],
        [{ name: 'hourOfDay', operator: 'IN_LIST', expressions: ['9', '17'] }, '2'],
        [{ name: 'hourOfDay', operator: 'GREATER_THAN', expressions: ['8'] }, '2'],
        [{ name: 'hourOfDay', operator: 'GREATER_THAN_OR_EQUAL', expressions: ['8'] }, '5'],
        [{ name: 'hourOfDay', operator: 'LESS_THAN', expressions: ['9'] }, '3'],
        [{ name: 'hourOfDay', operator: 'LESS_THAN_OR_EQUAL', expressions: ['9'] }, '4'],
        [{ name: 'hourOfDay', operator: 'LESS_THAN_OR_EQUAL', not: true, expressions: ['9'] }, '1'],
        [{ name: 'intersectionId', operator: 'IN_LIST', expressions: [KEY_C, KEY_D] }, '5'],
        [{ name: 'intersectionId', operator: 'EQUALS', not: true, expressions: [KEY_C] }, '0'],
        [{ name: 'movementId', operator: 'IN_LIST', expressions: [WS, NE] }, '2'],
        [{ name: 'quarter', operator: 'EQUALS', expressions: ['2026-Q4'] }, '5'],
        [{ name: 'month', operator: 'GREATER_THAN', expressions: ['2026-10'] }, '5'],
        [{ name: 'week', operator: 'EQUALS', expressions: ['2026-11-16'] }, '5'],
        [{ name: 'day', operator: 'GREATER_THAN', expressions: ['2026-11-16'] }, '1'],
        [{ name: 'dayOfWeek', operator: 'LESS_THAN', expressions: ['6'] }, '4'],
        [{ name: 'wkPart', operator: 'EQUALS', expressions: ['weekend'] }, '1'],
        [{ name: '15MinBin', operator: 'GREATER_THAN_OR_EQUAL', expressions: ['08:45'] }, '3'],
        [{ name: '15MinBin', operator: 'IN_LIST', expressions: ['08:00', '08:15'] }, '2'],
        [{ name: '30MinBin', operator: 'LESS_THAN', expressions: ['08:30'] }, '2'],
      ];
      for (const [f, n] of cases) {
        it(`${f.name} ${f.not ? 'NOT ' : ''}${f.operator} ${(f.expressions as string[]).join(',')} → ${n}`, async () => {
          const r = await rows({
            dateRanges: NOV,
            dimensions: [],
            metrics: [{ name: 'totalVehicleCount' }],
            dimensionFilters: [f],
          });
          expect(r.length === 0 ? '0' : r[0][0]).toBe(n);
        });
      }

      it('filters on customTimeRange names', async () => {
        const ranges = [
          { name: 'day', startTime: '06:00', endTime: '18:00' },
          { name: 'night', startTime: '18:00', endTime: '06:00' },
        ];
        const r = await rows({
          dateRanges: NOV,
          dimensions: [{ name: 'customTimeRange', ranges }],
          metrics: [{ name: 'totalVehicleCount' }],
          dimensionFilters: [{ name: 'customTimeRange', operator: 'EQUALS', not: true, expressions: ['night'] }],
        });
        expect(r).toEqual([['day', '5']]);
      });

      it('rejects operators a dimension does not take, bad values and unknown names', async () => {
        const base = { dateRanges: NOV, dimensions: [], metrics: [{ name: 'totalVehicleCount' }] };
        await rejects(
          { ...base, dimensionFilters: [{ name: 'intersectionId', operator: 'GREATER_THAN', expressions: ['x'] }] },
          /dimensionFilters\[0\]\.operator/,
        );
        await rejects(
          { ...base, dimensionFilters: [{ name: 'hourOfDay', operator: 'EQUALS', expressions: ['25'] }] },
          /dimensionFilters\[0\]\.expressions\[0\]/,
        );
        await rejects(
          { ...base, dimensionFilters: [{ name: 'hourOfDay', operator: 'LIKE', expressions: ['1'] }] },
          /operator/,
        );
        await rejects(
          { ...base, dimensionFilters: [{ name: 'speed', operator: 'EQUALS', expressions: ['1'] }] },
          /dimensionFilters\[0\]\.name/,
        );
        await rejects(
          { ...base, dimensionFilters: [{ name: 'hourOfDay', operator: 'EQUALS', expressions: ['1', '2'] }] },
          /exactly one/,
        );
        await rejects(
          { ...base, dimensionFilters: [{ name: '15MinBin', operator: 'EQUALS', expressions: ['08:07'] }] },
          /15-minute bin/,
        );
        await rejects(
          { ...base, dimensionFilters: [{ name: 'week', operator: 'EQUALS', expressions: ['2026-11-17'] }] },
          /not a Monday/,
        );
      });
    });

    describe('ordering and paging', () => {
      const body = {
        dateRanges: NOV,
        dimensions: [{ name: 'movementId' }, { name: '15MinBin' }],
        metrics: [{ name: 'avgControlDelay' }],
      };

      it('orders by a metric descending, then by the dimensions', async () => {
        const r = await rows({ ...body, orderBys: [{ name: 'avgControlDelay', sortOrder: 'DESCENDING' }] });
        // the turning vehicles' delays are measured against the arc's free flow (0.31 s shorter)
        expect(r.map((x) => x[2])).toEqual(['200.31', '40', '20', '0.31', '0']);
        // rows that tie on the metric (every row has one vehicle) are ordered by movementId then bin
        const tied = await rows({
          ...body,
          metrics: [{ name: 'totalVehicleCount' }],
          orderBys: [{ name: 'totalVehicleCount', sortOrder: 'DESCENDING' }],
        });
        expect(tied.map((x) => x[2])).toEqual(['1', '1', '1', '1', '1']);
        const keys = tied.map((x) => `${x[0]}@${x[1]}`);
        expect(keys).toEqual(
          [...keys].sort((a, b) => Number(a.split('@')[0]) - Number(b.split('@')[0]) || a.localeCompare(b)),
        );
      });

      it('orders by a dimension descending', async () => {
        const r = await rows({
          dateRanges: NOV,
          dimensions: [{ name: 'hourOfDay' }],
          metrics: [{ name: 'totalVehicleCount' }],
          orderBys: [{ name: 'hourOfDay', sortOrder: 'DESCENDING' }],
        });
        expect(r.map((x) => x[0])).toEqual(['17', '9', '8']);
      });

      it('pages with nextCursor over five pages, stable and complete', async () => {
        const all = await rows({ ...body, orderBys: [{ name: 'avgControlDelay', sortOrder: 'ASCENDING' }] });
        const seen: Array<Array<string | null>> = [];
        let cursor: Record<string, string> | undefined;
        let pages = 0;
        do {
          const data = await run({
            ...body,
            orderBys: [{ name: 'avgControlDelay', sortOrder: 'ASCENDING' }],
            pageSize: 1,
            ...(cursor ? { nextCursor: cursor } : {}),
          });
          seen.push(...data.rows);
          cursor = Object.keys(data.nextCursor).length ? data.nextCursor : undefined;
          pages++;
        } while (cursor && pages < 10);
        expect(pages).toBe(5);
        expect(seen).toEqual(all);
      });

      it('honours offset, noPaging and the page-size bounds', async () => {
        const all = await rows(body);
        expect(await rows({ ...body, offset: 2, pageSize: 2 })).toEqual(all.slice(2, 4));
        const np = await run({ ...body, pageSize: 1, noPaging: true });
        expect(np.rows).toEqual(all);
        expect(np.nextCursor).toEqual({});
        await rejects({ ...body, pageSize: 10_001 }, /pageSize/);
        await rejects({ ...body, pageSize: 0 }, /pageSize/);
        await rejects({ ...body, offset: -1 }, /offset/);
      });

      it('rejects a cursor that belongs to another query', async () => {
        const first = await run({ ...body, pageSize: 1 });
        await rejects(
          { ...body, metrics: [{ name: 'totalVehicleCount' }], nextCursor: first.nextCursor },
          /nextCursor/,
        );
      });

      it('rejects orderBys on a field that was not requested', async () => {
        await rejects({ ...body, orderBys: [{ name: 'LOS' }] }, /orderBys\[0\]\.name/);
        await rejects({ ...body, orderBys: [{ name: 'movementId', sortOrder: 'UP' }] }, /sortOrder/);
      });
    });

    describe('spatial and namespace scope', () => {
      const JAN = [{ startDate: '2027-01-01', endDate: '2027-01-31' }];
      const byIx = (extra: Record<string, unknown>) =>
        rows({
          dateRanges: JAN,
          dimensions: [{ name: 'intersectionId' }],
          metrics: [{ name: 'totalVehicleCount' }],
          ...extra,
        });
      const [cLat, cLon] = [39.29, -76.61];
      const dLon = Number(KEY_D.split('_')[1]);

      it('restricts to a Polygon, a Point given as LngLatAlt, a MultiPoint, a bbox and a FeatureCollection', async () => {
        const ring = [
          [dLon - 0.0005, cLat - 0.0005],
          [dLon + 0.0005, cLat - 0.0005],
          [dLon + 0.0005, cLat + 0.0005],
          [dLon - 0.0005, cLat + 0.0005],
          [dLon - 0.0005, cLat - 0.0005],
        ];
        expect(await byIx({ geometry: { type: 'Polygon', coordinates: [ring] } })).toEqual([[KEY_D, '1']]);
        expect(
          await byIx({ geometry: { type: 'Point', coordinates: { longitude: cLon, latitude: cLat, altitude: 10 } } }),
        ).toEqual([[KEY_C, '1']]);
        expect(
          await byIx({
            geometry: {
              type: 'MultiPoint',
              coordinates: [
                [cLon, cLat, 3],
                [dLon, cLat],
              ],
            },
          }),
        ).toHaveLength(2);
        expect(
          await byIx({
            geometry: {
              type: 'MultiPoint',
              coordinates: [
                [cLon, cLat],
                [dLon, cLat],
              ],
              bbox: [dLon - 0.001, cLat - 0.001, dLon + 0.001, cLat + 0.001],
            },
          }),
        ).toEqual([[KEY_D, '1']]);
        const fc = {
          type: 'FeatureCollection',
          crs: { type: 'name', properties: { name: 'EPSG:4326' } },
          features: [
            {
              type: 'Feature',
              id: 'a',
              properties: {},
              geometry: {
                type: 'GeometryCollection',
                geometries: [
                  {
                    type: 'LineString',
                    coordinates: [
                      [cLon - 0.001, cLat],
                      [cLon - 0.0005, cLat],
                    ],
                  },
                ],
              },
            },
            { type: 'Feature', properties: { x: 1 }, geometry: { type: 'MultiPolygon', coordinates: [[ring]] } },
          ],
        };
        expect(await byIx({ geometry: fc })).toEqual([[KEY_D, '1']]);
        expect(
          await byIx({
            geometry: {
              type: 'MultiLineString',
              coordinates: [
                [
                  [cLon, cLat - 0.001],
                  [cLon, cLat + 0.001],
                ],
              ],
            },
          }),
        ).toEqual([[KEY_C, '1']]);
      });

      it('rejects malformed geometry naming the field', async () => {
        await rejects(
          { dateRanges: JAN, dimensions: [], metrics: [{ name: 'totalVehicleCount' }], geometry: { type: 'Circle' } },
          /geometry\.type/,
        );
        await rejects(
          {
            dateRanges: JAN,
            dimensions: [],
            metrics: [{ name: 'totalVehicleCount' }],
            geometry: { type: 'Point', coordinates: [200, 10] },
          },
          /geometry\.coordinates/,
        );
        await rejects(
          {
            dateRanges: JAN,
            dimensions: [],
            metrics: [{ name: 'totalVehicleCount' }],
            geometry: { type: 'Point', coordinates: [1, 1], crs: { type: 'name', properties: { name: 'EPSG:3857' } } },
          },
          /crs/,
        );
      });

      it('sees only the provisioned intersections of a namespace', async () => {
        await updateNamespace(
          db,
          'partner',
          { provisioned: { add: [KEY_D] }, pending: { add: [KEY_C] } },
          {
            isKnownIntersection: (k) => catalog.byKey.has(k),
            defaultMapVersion: '20261101',
            defaultRegion: { country: 'US', state: 'MD' },
          },
        );
        expect(await byIx({ metadata: [{ key: 'namespace', value: 'partner' }] })).toEqual([[KEY_D, '1']]);
        await rejects(
          {
            dateRanges: JAN,
            dimensions: [],
            metrics: [{ name: 'totalVehicleCount' }],
            metadata: [{ key: 'namespace', value: 'nobody' }],
          },
          /nobody/,
        );
      });

      it('rejects unknown fields, metrics and metadata keys', async () => {
        await rejects({ dateRanges: NOV, dimensions: [], metrics: [{ name: 'avgSpeed' }] }, /avgSpeed/);
        await rejects(
          { dateRanges: NOV, dimensions: [], metrics: [{ name: 'totalVehicleCount' }], colour: 1 },
          /colour/,
        );
        await rejects(
          {
            dateRanges: NOV,
            dimensions: [],
            metrics: [{ name: 'totalVehicleCount' }],
            metadata: [{ key: 'flavour', value: 'x' }],
          },
          /metadata\[0\]\.key/,
        );
        await rejects({ dimensions: [], metrics: [{ name: 'totalVehicleCount' }] }, /dateRanges/);
        await rejects(
          {
            dateRanges: [{ startDate: '2026-11-31', endDate: '2026-12-01' }],
            dimensions: [],
            metrics: [{ name: 'totalVehicleCount' }],
          },
          /startDate/,
        );
        await rejects({ dateRanges: NOV, dimensions: [], metrics: [{ name: 'turnPct' }] }, /turnPct/);
      });
    });
  });
}
