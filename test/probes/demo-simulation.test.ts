import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/index.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { loadSpeedFeeds } from '../../src/traffic/learned-speeds.js';
import { runDemoSimulation } from '../../src/sim/demo-simulation.js';
import { readTrajectories } from '../../src/probes/traversal-read.js';
import { ingestRecords } from '../../src/probes/ingest/ingest.js';
import { processHere, summarizeTraces } from '../../src/app/ingestion/intake.js';
import { openPglite, runMigrations } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';

describe('demo simulation on the generated demo city', () => {
  const dir = mkdtempSync(join(tmpdir(), 'streetwise-demo-sim-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fills traversals, learned profiles and live speeds through the ingestion path', async () => {
    const { regionDir } = await createDemoRegion(dir);
    const region = loadRegion(regionDir);
    const db = await openPglite();
    await runMigrations(db, allMigrations());
    const nowS = Date.UTC(2026, 0, 7, 16, 0) / 1000; // Wednesday 11:00 in Baltimore
    const t0 = Date.now();
    const traces = new Set<string>();
    const [peak, recent] = await runDemoSimulation({
      region,
      nowS,
      store: async (records) => {
        const r = await ingestRecords(db, records, { region: region.meta.name });
        for (const id of r.traceIds) traces.add(id);
        return r;
      },
    });
    const processed = await processHere({ db, region: region.meta.name, graphRegion: region });
    const summary = await summarizeTraces(db, region, [...traces], nowS);
    const speeds = new SpeedFeeds();
    const counts = await loadSpeedFeeds(db, region.graph, speeds, { mapVersion: region.meta.mapVersion, nowS });
    console.log(
      `demo simulation: ${peak.stats.routedTrips + recent.stats.routedTrips} trips, ${peak.inserted + recent.inserted} pings, ${processed.traversals} traversals, ${speeds.learnedEdgeCount} edges learned in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    // at 11:00 Wednesday's evening peak has not ended, so both peaks are Tuesday's: the morning one
    // 06:30–09:30 local (UTC−5), 11:30–14:30 UTC
    expect(peak.startS).toBe(Date.UTC(2026, 0, 6, 11, 30) / 1000);
    expect(peak.stats.signalizedNodes).toBeGreaterThan(0);
    expect(peak.inserted).toBeGreaterThan(1000);
    expect(summary.unmatchedPings / (peak.inserted + recent.inserted)).toBeLessThan(0.02);
    expect(counts.learnedEdges).toBeGreaterThan(region.graph.edgeCount / 10);
    expect([...speeds.liveEntries()].length).toBeGreaterThan(0);
    let n = 0;
    for await (const t of readTrajectories(db, { sinceS: peak.startS, untilS: peak.endS }))
      n += t.traversals.length > 0 ? 1 : 0;
    expect(n).toBeGreaterThan(100);
    await db.close();
  });
});
