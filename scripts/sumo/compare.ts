/**
 * SUMO validation, step 5: ingest SUMO floating-car data through the normal probe path (FCD
 * reader → ping store → HMM matching → learned speed bins), then compare the learned speed of
 * each OSM way and direction with SUMO's own measured edge speeds (edgeData `speed`, weighted by
 * `sampledSeconds`). Also scores matching: share of pings matched to the OSM way SUMO had the
 * vehicle on. Prints MAPE on ways with enough samples. Usage: see scripts/sumo/run.sh.
 */
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SaxesParser } from 'saxes';
import { readOsmExtract } from '../../src/osm/index.js';
import { buildRegion } from '../../src/network/index.js';
import { openPglite, runMigrations } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';
import { ingestHere } from '../../src/app/ingestion/intake.js';
import { DEFAULT_FCD_START_S, readProbes } from '../../src/probes/ingest/ingest.js';
import { readTrajectories } from '../../src/probes/traversal-read.js';

const { values: args } = parseArgs({
  options: {
    pbf: { type: 'string' },
    fcd: { type: 'string' },
    edgedata: { type: 'string' },
    work: { type: 'string', default: '.' },
    'min-samples': { type: 'string', default: '10' },
    'min-sumo-seconds': { type: 'string', default: '60' },
  },
});
if (!args.pbf || !args.fcd || !args.edgedata)
  throw new Error('usage: compare.ts --pbf x.osm.pbf --fcd fcd.xml --edgedata edgedata.xml [--work dir]');
const MIN_SAMPLES = Number(args['min-samples']);
const MIN_SUMO_S = Number(args['min-sumo-seconds']);

/** "[-]<wayId>[#n]…" → way id and whether the SUMO edge runs against the OSM way's node order. */
function sumoWay(id: string): { way: number; reverse: boolean } | undefined {
  const m = /^(-?)(\d+)(#\d+)?/.exec(id);
  return m ? { way: Number(m[2]), reverse: m[1] === '-' } : undefined;
}
const key = (way: number, reverse: boolean): string => `${way}${reverse ? '-' : '+'}`;

/** Streams an XML file calling `fn` for every opening tag. */
async function eachTag(path: string, fn: (name: string, a: Record<string, string>) => void): Promise<void> {
  const p = new SaxesParser();
  p.on('opentag', (t) => fn(t.name, t.attributes as Record<string, string>));
  for await (const chunk of createReadStream(path, { encoding: 'utf8' })) p.write(chunk as string);
  p.close();
}

const t0 = Date.now();
const extract = readOsmExtract(args.pbf);
const region = buildRegion(extract, { name: 'sumo-validation', mapVersion: 'sumo-validation' });
const g = region.graph;
console.log(`region: ${g.nodeCount} nodes, ${g.edgeCount} edges (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

// Direction of each of our edges relative to its OSM way (node order), for the per-way join.
const wayRefs = new Map<number, number[]>();
for (const w of extract.roadWays) wayRefs.set(w.id, w.refs);
function edgeKey(e: number): string | undefined {
  const refs = wayRefs.get(g.edgeWayId[e]);
  if (!refs) return undefined;
  const a = refs.indexOf(g.nodeOsmId[g.edgeSource[e]]);
  const b = refs.indexOf(g.nodeOsmId[g.edgeTarget[e]]);
  if (a < 0 || b < 0 || a === b || refs[0] === refs[refs.length - 1]) return undefined;
  return key(g.edgeWayId[e], b < a);
}

// 1. SUMO's measured speeds per way and direction.
const sumo = new Map<string, { distM: number; seconds: number; entered: number }>();
await eachTag(args.edgedata, (name, a) => {
  if (name !== 'edge') return;
  const w = sumoWay(a.id);
  const s = Number(a.sampledSeconds);
  const v = Number(a.speed);
  if (!w || !(s > 0) || !Number.isFinite(v)) return;
  const k = key(w.way, w.reverse);
  const acc = sumo.get(k) ?? { distM: 0, seconds: 0, entered: 0 };
  acc.distM += v * s;
  acc.seconds += s;
  acc.entered += Number(a.entered ?? 0);
  sumo.set(k, acc);
});

// 2. Ground-truth way of every FCD ping (SUMO's lane), for matching accuracy.
const truth = new Map<string, string>();
let timeS = 0;
await eachTag(args.fcd, (name, a) => {
  if (name === 'timestep') timeS = Number(a.time);
  else if (name === 'vehicle' && a.lane && !a.lane.startsWith(':')) {
    const w = sumoWay(a.lane);
    if (w) truth.set(`${a.id}@${DEFAULT_FCD_START_S + timeS}`, key(w.way, w.reverse));
  }
});

// 3. The streetwise pipeline on the FCD.
const db = await openPglite();
await runMigrations(db, allMigrations());
const t1 = Date.now();
const { ingest, processed: proc } = await ingestHere(
  db,
  region,
  readProbes(createReadStream(args.fcd), 'fcd', () => undefined),
);
const pipelineS = (Date.now() - t1) / 1000;
console.log(
  `ingested ${ingest.inserted} pings (${ingest.malformed} malformed) of ${proc.traces} vehicles → ${proc.trajectories} trajectories, ${proc.traversals} traversals in ${pipelineS.toFixed(1)} s (${Math.round(ingest.parsed / pipelineS)} pings/s end to end)`,
);

// 4. Matching accuracy by way and direction.
let judged = 0,
  right = 0;
for await (const t of readTrajectories(db)) {
  for (const x of t.traversals) {
    const k = edgeKey(x.edge);
    for (const p of x.pings) {
      const want = truth.get(`${t.traceId}@${p.tS}`);
      if (want === undefined || k === undefined) continue;
      judged++;
      if (want === k) right++;
    }
  }
}

// 5. Learned speeds per way and direction (raw: Σ length / Σ duration of matched traversals).
const learnedRows = await db.query<{ edge_id: number; n: number; len: number; dur: number }>(
  'SELECT edge_id, sum(samples)::int AS n, sum(sum_length_mm) / 1000.0 AS len, sum(sum_duration_ms) / 1000.0 AS dur FROM learned_speed_bins GROUP BY edge_id',
);
const ours = new Map<string, { n: number; len: number; dur: number }>();
for (const r of learnedRows.rows) {
  const k = edgeKey(Number(r.edge_id));
  if (k === undefined) continue;
  const acc = ours.get(k) ?? { n: 0, len: 0, dur: 0 };
  acc.n += Number(r.n);
  acc.len += Number(r.len);
  acc.dur += Number(r.dur);
  ours.set(k, acc);
}
const errors: number[] = [];
// per way-direction also the metres and seconds per traversal on both sides (SUMO: per vehicle
// entering its edges), which tell a difference in what is measured (junction areas are part of our
// edges, not of SUMO's lanes) from a difference in time
const rows: Array<{
  way: string;
  samples: number;
  learnedKph: number;
  sumoKph: number;
  metresPerTraversal: number;
  secondsPerTraversal: number;
  sumoMetresPerVehicle: number | null;
  sumoSecondsPerVehicle: number | null;
}> = [];
for (const [k, o] of ours) {
  const s = sumo.get(k);
  if (!s || o.n < MIN_SAMPLES || s.seconds < MIN_SUMO_S || !(o.dur > 0)) continue;
  const learnedKph = (o.len / o.dur) * 3.6;
  const sumoKph = (s.distM / s.seconds) * 3.6;
  if (sumoKph < 1) continue;
  errors.push(Math.abs(learnedKph - sumoKph) / sumoKph);
  rows.push({
    way: k,
    samples: o.n,
    learnedKph: +learnedKph.toFixed(1),
    sumoKph: +sumoKph.toFixed(1),
    metresPerTraversal: +(o.len / o.n).toFixed(1),
    secondsPerTraversal: +(o.dur / o.n).toFixed(2),
    sumoMetresPerVehicle: s.entered > 0 ? +(s.distM / s.entered).toFixed(1) : null,
    sumoSecondsPerVehicle: s.entered > 0 ? +(s.seconds / s.entered).toFixed(2) : null,
  });
}
errors.sort((a, b) => a - b);
const mape = errors.reduce((a, b) => a + b, 0) / Math.max(1, errors.length);
const median = errors.length ? errors[Math.floor(errors.length / 2)] : NaN;
const bias = rows.reduce((a, r) => a + (r.learnedKph - r.sumoKph) / r.sumoKph, 0) / Math.max(1, rows.length);
const summary = {
  pings: ingest.inserted,
  vehicles: proc.traces,
  traversals: proc.traversals,
  matchingWayAccuracy: judged ? right / judged : NaN,
  judgedPings: judged,
  comparedWays: errors.length,
  minSamples: MIN_SAMPLES,
  minSumoSeconds: MIN_SUMO_S,
  mape,
  medianApe: median,
  meanSignedError: bias,
};
writeFileSync(join(args.work ?? '.', 'comparison.json'), JSON.stringify({ summary, rows }, null, 1));
console.log(
  `matching: ${(100 * summary.matchingWayAccuracy).toFixed(1)} % of ${judged} pings on SUMO's way and direction`,
);
console.log(
  `learned vs SUMO edge speeds on ${errors.length} way-directions with ≥ ${MIN_SAMPLES} traversals: MAPE ${(100 * mape).toFixed(1)} %, median APE ${(100 * median).toFixed(1)} %, mean signed error ${(100 * bias).toFixed(1)} %`,
);
await db.close();
