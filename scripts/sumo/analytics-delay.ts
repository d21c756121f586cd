/**
 * SUMO validation of intersection control delay. Reads SUMO floating-car data recorded every
 * second (`--device.fcd.period 1 --fcd-output.geo`), feeds a sparse sample of it (every
 * `--every` seconds, default 5) through the normal probe path (ping store → HMM matching →
 * trajectories) and builds the analytics facts. The ground truth of each fact comes from SUMO's
 * own 1 s positions of that vehicle: the times it passed the fact's zone entry and exit points
 * (first passage, interpolated on the closest 1 s segment). Truth delay = max(0, truth travel −
 * free flow). Prints per-movement mean absolute error of the average control delay for movements
 * with at least `--min-vehicles` probe vehicles (default 30), per-fact error, and plausibility
 * figures for signalized intersections.
 *
 *   npx tsx scripts/sumo/analytics-delay.ts --pbf ../shared/data/baltimore.osm.pbf --fcd fcd1.xml [--every 5] [--work dir]
 */
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SaxesParser } from 'saxes';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import { openPglite, runMigrations } from '../../src/store/index.js';
import { migrations as probeMigrations } from '../../src/probes/migrations.js';
import { ingestRecordsAndProcess } from '../../src/probes/pipeline.js';
import { DEFAULT_FCD_START_S } from '../../src/probes/ingest/ingest.js';
import type { ProbeRecord } from '../../src/probes/ingest/records.js';
import { readTrajectories } from '../../src/probes/traversal-store.js';
import type { Trajectory } from '../../src/probes/trajectory.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { buildFacts, catalogOf, type Fact } from '../../src/analytics/index.js';
import { projectOnSegment } from '../../src/geo/index.js';

const { values: args } = parseArgs({
  options: {
    pbf: { type: 'string' }, fcd: { type: 'string' }, work: { type: 'string', default: '.' },
    every: { type: 'string', default: '5' }, 'min-vehicles': { type: 'string', default: '30' },
  },
});
if (!args.pbf || !args.fcd) throw new Error('usage: analytics-delay.ts --pbf x.osm.pbf --fcd fcd-1s.xml [--every 5] [--work dir]');
const EVERY_S = Number(args.every);
const MIN_VEHICLES = Number(args['min-vehicles']);

const t0 = Date.now();
const log = (m: string): void => console.log(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${m}`);
const region = buildRegion(readOsmExtract(args.pbf), { name: 'sumo-analytics', mapVersion: 'sumo-analytics-20260105' });
log(`region: ${region.graph.edgeCount} edges, ${region.intersections.length} intersections (${region.intersections.filter((i) => i.signalized).length} signalized)`);

// 1. SUMO 1 s positions per vehicle.
interface Track { t: number[]; lat: number[]; lon: number[]; v: number[] }
const tracks = new Map<string, Track>();
{
  const p = new SaxesParser();
  let time = 0;
  p.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (tag.name === 'timestep') time = Number(a.time);
    else if (tag.name === 'vehicle') {
      let tr = tracks.get(a.id);
      if (!tr) tracks.set(a.id, (tr = { t: [], lat: [], lon: [], v: [] }));
      tr.t.push(time); tr.lat.push(Number(a.y)); tr.lon.push(Number(a.x)); tr.v.push(Number(a.speed));
    }
  });
  for await (const chunk of createReadStream(args.fcd, { encoding: 'utf8' })) p.write(chunk as string);
  p.close();
}
log(`fcd: ${tracks.size} vehicles`);

// 2. Sparse probes through the probe pipeline.
function* probes(): Generator<ProbeRecord> {
  for (const [id, tr] of tracks) {
    const phase = Number.parseInt(id.replace(/\D/g, '') || '0', 10) % EVERY_S; // vehicles are not in lockstep
    for (let i = 0; i < tr.t.length; i++) {
      if (Math.round(tr.t[i]) % EVERY_S !== phase) continue;
      yield { traceId: id, ping: { tS: DEFAULT_FCD_START_S + tr.t[i], lat: tr.lat[i], lon: tr.lon[i], speedKph: tr.v[i] * 3.6 } };
    }
  }
}
const db = await openPglite();
await runMigrations(db, probeMigrations);
const { process: proc } = await ingestRecordsAndProcess({
  db, graph: region.graph, mapVersion: region.meta.mapVersion, timeZone: region.meta.timeZone, feeds: new SpeedFeeds(), nowS: DEFAULT_FCD_START_S,
}, probes(), {});
log(`matched: ${proc.trajectories} trajectories, ${proc.traversals} traversals`);
const trajectories: Trajectory[] = [];
for await (const t of readTrajectories(db)) trajectories.push(t);
const facts = buildFacts(region, trajectories);
log(`facts: ${facts.length}`);

// 3. Ground truth from the 1 s track: first passage of a point near our time estimate.
function passage(tr: Track, lat: number, lon: number, fromS: number, toS: number): number | undefined {
  let best = Infinity;
  const cands: Array<{ d: number; t: number }> = [];
  for (let i = 1; i < tr.t.length; i++) {
    const ta = DEFAULT_FCD_START_S + tr.t[i - 1];
    const tb = DEFAULT_FCD_START_S + tr.t[i];
    if (tb < fromS || ta > toS) continue;
    const pr = projectOnSegment(lat, lon, tr.lat[i - 1], tr.lon[i - 1], tr.lat[i], tr.lon[i]);
    cands.push({ d: pr.distanceM, t: ta + pr.t * (tb - ta) });
    best = Math.min(best, pr.distanceM);
  }
  if (best > 15) return undefined; // SUMO did not drive past that point: mismatched path
  return cands.find((c) => c.d <= best + 2)!.t;
}

interface Pair { fact: Fact; truthDelayS: number }
const pairs: Pair[] = [];
for (const f of facts) {
  const tr = tracks.get(f.traceId);
  if (!tr) continue;
  const tIn = passage(tr, f.zoneStart[0], f.zoneStart[1], f.entryS - 60, f.exitS + 60);
  const tOut = passage(tr, f.zoneEnd[0], f.zoneEnd[1], (tIn ?? f.entryS) + 0.5, f.exitS + 120);
  if (tIn === undefined || tOut === undefined || tOut <= tIn) continue;
  pairs.push({ fact: f, truthDelayS: Math.max(0, tOut - tIn - f.freeFlowS) });
}
log(`facts with ground truth: ${pairs.length}`);

// 4. Figures.
const catalog = catalogOf(region);
const byMovement = new Map<number, Pair[]>();
for (const p of pairs) {
  const arr = byMovement.get(p.fact.movementId) ?? [];
  arr.push(p);
  byMovement.set(p.fact.movementId, arr);
}
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const rows = [...byMovement.entries()].filter(([, ps]) => new Set(ps.map((p) => p.fact.traceId)).size >= MIN_VEHICLES).map(([id, ps]) => {
  const m = catalog.movementById.get(id)!;
  return {
    movementId: id, intersectionId: m.intersectionKey, name: m.name, signalized: catalog.byKey.get(m.intersectionKey)!.intersection.signalized,
    vehicles: ps.length, estAvgDelayS: mean(ps.map((p) => p.fact.controlDelayS)), truthAvgDelayS: mean(ps.map((p) => p.truthDelayS)),
  };
});
const movementMae = mean(rows.map((r) => Math.abs(r.estAvgDelayS - r.truthAvgDelayS)));
const factMae = mean(pairs.map((p) => Math.abs(p.fact.controlDelayS - p.truthDelayS)));
const bias = mean(pairs.map((p) => p.fact.controlDelayS - p.truthDelayS));
const sig = facts.filter((f) => catalog.byKey.get(f.intersectionKey)!.intersection.signalized);
const unsig = facts.filter((f) => !catalog.byKey.get(f.intersectionKey)!.intersection.signalized);
const pct = (xs: number[], q: number): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN; };
const summary = {
  probeEveryS: EVERY_S, vehicles: tracks.size, facts: facts.length, factsWithTruth: pairs.length,
  movementsWithMinVehicles: rows.length, minVehicles: MIN_VEHICLES,
  movementAvgDelayMaeS: movementMae, factDelayMaeS: factMae, factDelayBiasS: bias,
  signalized: { facts: sig.length, avgDelayS: mean(sig.map((f) => f.controlDelayS)), p50: pct(sig.map((f) => f.controlDelayS), 0.5), p90: pct(sig.map((f) => f.controlDelayS), 0.9), stoppedPct: 100 * sig.filter((f) => f.stopped).length / Math.max(1, sig.length) },
  unsignalized: { facts: unsig.length, avgDelayS: mean(unsig.map((f) => f.controlDelayS)), stoppedPct: 100 * unsig.filter((f) => f.stopped).length / Math.max(1, unsig.length) },
};
console.log(JSON.stringify(summary, null, 2));
for (const r of rows.sort((a, b) => b.vehicles - a.vehicles).slice(0, 15)) {
  console.log(`${r.intersectionId} ${r.signalized ? 'S' : '-'} ${r.name.padEnd(50)} n=${String(r.vehicles).padStart(4)} est ${r.estAvgDelayS.toFixed(1).padStart(6)} s truth ${r.truthAvgDelayS.toFixed(1).padStart(6)} s`);
}
writeFileSync(join(args.work!, 'analytics-delay.json'), JSON.stringify({ summary, movements: rows }, null, 2));
await db.close();
