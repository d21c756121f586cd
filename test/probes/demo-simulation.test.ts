import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/index.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { loadSpeedFeeds } from '../../src/traffic/learned-speeds.js';
import { runDemoSimulation } from '../../src/sim/demo-simulation.js';
import { readTrajectories } from '../../src/probes/traversal-store.js';
import { openProbeTestDb } from './db.js';

describe('demo simulation on the generated demo city', () => {
  const dir = mkdtempSync(join(tmpdir(), 'streetwise-demo-sim-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fills traversals, learned profiles and live speeds through the ingestion path', async () => {
    const { regionDir } = await createDemoRegion(dir);
    const region = loadRegion(regionDir);
    const db = await openProbeTestDb();
    const speeds = new SpeedFeeds();
    const nowS = Date.UTC(2026, 0, 7, 16, 0) / 1000; // Wednesday 11:00 in Baltimore
    const t0 = Date.now();
    const [peak, recent] = await runDemoSimulation({ db, region, speeds, nowS });
    console.log(
      `demo simulation: ${peak.stats.routedTrips + recent.stats.routedTrips} trips, ${peak.ingest.inserted + recent.ingest.inserted} pings, ${peak.process.traversals + recent.process.traversals} traversals, ${speeds.learnedEdgeCount} edges learned in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    // the peak is Wednesday 06:30–09:30 local (UTC−5): 11:30–14:30 UTC
    expect(peak.startS).toBe(Date.UTC(2026, 0, 7, 11, 30) / 1000);
    expect(peak.stats.signalizedNodes).toBeGreaterThan(0);
    expect(peak.ingest.inserted).toBeGreaterThan(1000);
    expect(peak.process.unmatchedPings / peak.ingest.inserted).toBeLessThan(0.02);
    expect(speeds.learnedEdgeCount).toBeGreaterThan(region.graph.edgeCount / 10);
    expect([...speeds.liveEntries()].length).toBeGreaterThan(0);
    let n = 0;
    for await (const t of readTrajectories(db, { sinceS: peak.startS, untilS: peak.endS }))
      n += t.traversals.length > 0 ? 1 : 0;
    expect(n).toBeGreaterThan(100);
    const reloaded = new SpeedFeeds();
    const counts = await loadSpeedFeeds(db, region.graph, reloaded, { mapVersion: region.meta.mapVersion, nowS });
    expect(counts.learnedEdges).toBe(speeds.learnedEdgeCount);
    await db.close();
  });
});
