/**
 * Map-matching throughput on Baltimore: seeded synthetic drives (3 km, 10 m GPS noise) at 1 s and
 * 10 s sampling through the HMM matcher, plus the whole probe pipeline (ingest into PGlite,
 * match, traversals, learned speeds) on simulated traffic. Prints pings per second and accuracy.
 */
import { existsSync } from 'node:fs';
import { readOsmExtract } from '../src/osm/index.js';
import { buildRegion } from '../src/network/index.js';
import { TurnRestrictions } from '../src/network/graph.js';
import { MapMatcher } from '../src/probes/match/matcher.js';
import { createRng } from '../src/sim/prng.js';
import { randomDrive, samplePings, scoreMatch, type SyntheticTrace } from '../src/sim/synthetic-trace.js';
import { simulateWindow } from '../src/sim/demo-simulation.js';
import { ingestHere } from '../src/app/ingestion/intake.js';
import type { WorkerTotals } from '../src/app/ingestion/worker.js';
import { openPglite, runMigrations } from '../src/store/index.js';
import { allMigrations } from '../src/app/migrations.js';

const PBF = '../shared/data/baltimore.osm.pbf';

/** Runs the matching benchmark and prints its figures. */
export async function benchMatching(): Promise<void> {
  if (!existsSync(PBF)) {
    console.log(`skipped: ${PBF} not found`);
    return;
  }
  const region = buildRegion(readOsmExtract(PBF), { name: 'baltimore' });
  const g = region.graph;
  const t0 = performance.now();
  const matcher = new MapMatcher(g);
  console.log(`Baltimore: ${g.edgeCount} edges; matcher index built in ${(performance.now() - t0).toFixed(0)} ms`);
  const turns = new TurnRestrictions(g);
  for (const intervalS of [1, 10]) {
    const rng = createRng(1000 + intervalS);
    const drives: Array<{ route: number[]; trace: SyntheticTrace }> = [];
    for (let d = 0; d < 40; d++) {
      const route = randomDrive(g, rng, 5000, turns);
      drives.push({ route, trace: samplePings(g, route, rng, { intervalS, noiseM: 10, startS: 1_767_600_000 }) });
    }
    const pings = drives.reduce((n, d) => n + d.trace.pings.length, 0);
    let recall = 0,
      precision = 0;
    const t1 = performance.now();
    for (const [i, d] of drives.entries()) {
      const trajs = matcher.match(`b${i}`, d.trace.pings);
      const pe = new Map<number, number>();
      for (const t of trajs) for (const x of t.traversals) for (const p of x.pings) pe.set(p.index, p.edge);
      const s = scoreMatch(
        d.trace,
        d.route,
        trajs.flatMap((t) => t.traversals.map((x) => x.edge)),
        pe,
      );
      recall += s.recall;
      precision += s.precision;
    }
    const s = (performance.now() - t1) / 1000;
    console.log(
      `  ${intervalS} s sampling: ${pings} pings of 40 drives matched in ${s.toFixed(2)} s → ${Math.round(pings / s)} pings/s ` +
        `(edge recall ${((100 * recall) / drives.length).toFixed(1)} %, precision ${((100 * precision) / drives.length).toFixed(1)} %)`,
    );
  }
  // End to end: simulated traffic → ingest (PGlite) → match → traversals → learned speeds.
  const db = await openPglite();
  await runMigrations(db, allMigrations());
  const t2 = performance.now();
  let processed: WorkerTotals | undefined;
  const r = await simulateWindow(
    {
      region,
      nowS: 1_767_640_000,
      store: async (records) => {
        const x = await ingestHere(db, region, records);
        processed = x.processed;
        return { inserted: x.ingest.inserted };
      },
    },
    { startS: 1_767_612_600, durationS: 1800, penetration: 0.1, intervalS: 5, noiseM: 5, seed: 7, tripsPerDay: 40_000 },
  );
  const s2 = (performance.now() - t2) / 1000;
  console.log(
    `  pipeline (simulate + ingest + match + learn, PGlite): ${r.inserted} pings of ${r.stats.probeVehicles} vehicles in ${s2.toFixed(1)} s → ${Math.round(r.inserted / s2)} pings/s; ${processed?.traversals ?? 0} traversals, ${processed?.edges ?? 0} edges`,
  );
  await db.close();
}
