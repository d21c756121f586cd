import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogOf, parseMetricRequest, queryMetrics, rebuildFacts } from '../../src/analytics/index.js';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/index.js';
import { runDemoSimulation } from '../../src/sim/demo-simulation.js';
import { openPglite, runMigrations } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';
import { ingestRecords } from '../../src/probes/ingest/ingest.js';
import { processHere } from '../../src/app/ingestion/intake.js';

describe('intersection metrics on the demo city after its traffic simulation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'streetwise-demo-analytics-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives signalized intersections plausible control delays, higher than unsignalized ones', async () => {
    const { regionDir } = await createDemoRegion(dir);
    const region = loadRegion(regionDir);
    const db = await openPglite();
    await runMigrations(db, allMigrations());
    const nowS = Date.UTC(2026, 0, 7, 16, 0) / 1000; // Wednesday 11:00 in Baltimore time
    await runDemoSimulation({
      region,
      nowS,
      store: (records) => ingestRecords(db, records, { region: region.meta.name }),
    });
    const processed = await processHere({ db, region: region.meta.name, graphRegion: region });
    // the facts the ingestion stored are those a rebuild from the stored trajectories gives
    const refreshed = await rebuildFacts(db, region);
    expect(refreshed.facts).toBe(processed.facts);
    expect(refreshed.facts).toBeGreaterThan(1000);

    const catalog = catalogOf(region);
    const signalized = catalog.list.filter((c) => c.intersection.signalized).map((c) => c.key);
    const unsignalized = catalog.list.filter((c) => !c.intersection.signalized).map((c) => c.key);
    const query = async (keys: string[]) =>
      (
        await queryMetrics(
          db,
          catalog,
          parseMetricRequest({
            dateRanges: [{ startDate: '2026-01-01', endDate: '2026-01-31' }],
            dimensions: [],
            metrics: [
              { name: 'totalVehicleCount' },
              { name: 'avgControlDelay' },
              { name: 'POG' },
              { name: 'avgApproachSpeed' },
              { name: 'LOS' },
            ],
            dimensionFilters: [{ name: 'intersectionId', operator: 'IN_LIST', expressions: keys }],
            metadata: [{ key: 'units', value: 'metric' }],
          }),
        )
      ).rows[0];
    const sig = await query(signalized);
    const unsig = await query(unsignalized);
    console.log(
      `demo analytics: ${refreshed.facts} facts from ${refreshed.trajectories} trajectories; signalized [n, delay s, POG %, approach km/h, LOS] = ${sig.join(', ')}; unsignalized = ${unsig.join(', ')}`,
    );
    expect(Number(sig[0])).toBeGreaterThan(100);
    expect(Number(sig[1])).toBeGreaterThan(2);
    expect(Number(sig[1])).toBeLessThan(90);
    expect(Number(sig[2])).toBeLessThan(95);
    expect(Number(sig[1])).toBeGreaterThan(Number(unsig[1]));

    // the busiest signalized intersection by hour: delays stay within signal-cycle bounds
    const top = await queryMetrics(
      db,
      catalog,
      parseMetricRequest({
        dateRanges: [{ startDate: '2026-01-01', endDate: '2026-01-31' }],
        dimensions: [{ name: 'intersectionId' }],
        metrics: [
          { name: 'totalVehicleCount' },
          { name: 'avgControlDelay' },
          { name: 'maxControlDelay' },
          { name: 'LOS' },
        ],
        dimensionFilters: [{ name: 'intersectionId', operator: 'IN_LIST', expressions: signalized }],
        orderBys: [{ name: 'totalVehicleCount', sortOrder: 'DESCENDING' }],
        pageSize: 5,
      }),
    );
    console.log(`demo analytics: busiest signalized intersections ${JSON.stringify(top.rows)}`);
    expect(top.rows.length).toBeGreaterThan(0);
    for (const r of top.rows) expect(Number(r[2])).toBeLessThan(240);

    // the peaks congest the city: at 08:00 and 17:00 some signalized intersections are at LOS D-F,
    // and the network's delay at 08:00 is well above the early morning's
    const byHour = async (hours: string[], dims: Array<{ name: string }>) =>
      (
        await queryMetrics(
          db,
          catalog,
          parseMetricRequest({
            dateRanges: [{ startDate: '2026-01-01', endDate: '2026-01-31' }],
            dimensions: dims,
            metrics: [{ name: 'totalVehicleCount' }, { name: 'avgControlDelay' }, { name: 'LOS' }],
            dimensionFilters: [
              { name: 'intersectionId', operator: 'IN_LIST', expressions: signalized },
              { name: 'hourOfDay', operator: 'IN_LIST', expressions: hours },
            ],
            noPaging: true,
          }),
        )
      ).rows;
    const peaks = await byHour(['8', '17'], [{ name: 'intersectionId' }, { name: 'hourOfDay' }]);
    const los = (hour: string) =>
      peaks.filter((r) => String(r[1]) === hour && Number(r[2]) >= 20).map((r) => String(r[4]));
    console.log(
      `demo analytics: LOS of signalized intersections at 08:00 ${los('8').sort().join('')}, at 17:00 ${los('17').sort().join('')}`,
    );
    expect(los('8').filter((l) => 'DEF'.includes(l)).length).toBeGreaterThan(0);
    expect(los('17').filter((l) => 'DEF'.includes(l)).length).toBeGreaterThan(0);
    const [early] = await byHour(['6'], []);
    const [eight] = await byHour(['8'], []);
    console.log(`demo analytics: network delay 06:00 ${early?.[1]} s, 08:00 ${eight?.[1]} s`);
    expect(Number(eight[1])).toBeGreaterThan(2 * Number(early[1]));
    await db.close();
  }, 300_000);
});
