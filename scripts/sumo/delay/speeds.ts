/**
 * Learned speeds against the same probe vehicles (docs/sumo-validation.md, *Learned speeds against
 * the same vehicles*): for every node-to-node traversal streetwise matched from a probe vehicle's
 * pings, the truth is the time SUMO's own 1 s record of that vehicle passes the edge's start node
 * and end node (the 1 s step of the vehicle's positions on which the node's foot lies, the time
 * interpolated at the foot). Both sides are aggregated per edge and 15-minute bin as the learned speed
 * bins are (Σ length / Σ time; the bin of the traversal's midpoint), over the same traversals.
 *
 *   npx tsx scripts/sumo/delay/speeds.ts --dir <scenario dir> --pbf city.osm.pbf
 *       --trajectories <probes.ts --trajectories cache> --out speeds.json [--min-samples 5]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import { type FcdTrack, readFcdTracks } from './fcd.js';
import { readOsmExtract } from '../../../src/osm/index.js';
import { buildRegion, nodeLat, nodeLon } from '../../../src/network/index.js';
import { traversalSpeedKph } from '../../../src/probes/traversal-store.js';
import type { Trajectory } from '../../../src/probes/trajectory.js';
import { binOfWeek } from '../../../src/time/index.js';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    pbf: { type: 'string' },
    trajectories: { type: 'string' },
    out: { type: 'string' },
    day: { type: 'string', default: '2026-11-16' },
    'min-samples': { type: 'string', default: '5' },
    'max-offset': { type: 'string', default: '30' },
  },
});
if (!args.dir || !args.pbf || !args.trajectories || !args.out)
  throw new Error('usage: speeds.ts --dir <scenario dir> --pbf x.osm.pbf --trajectories cache.json --out speeds.json');
const MIN_SAMPLES = Number(args['min-samples']);
/** A node farther than this from every step of the vehicle's 1 s record is not on its path, metres. */
const MAX_OFFSET_M = Number(args['max-offset']);

const region = buildRegion(readOsmExtract(args.pbf), { name: 'sumo-delay', mapVersion: 'sumo-delay-20261116' });
const g = region.graph;
const tz = region.meta.timeZone;
const midnightS = DateTime.fromISO(args.day!, { zone: tz }).toSeconds();
const { trajectories } = JSON.parse(readFileSync(args.trajectories, 'utf8')) as { trajectories: Trajectory[] };
const vehicles = new Set(trajectories.map((t) => t.traceId));

// ---- SUMO's 1 s record of the probe vehicles (simulation seconds, longitude/latitude)
const tracks = await readFcdTracks(join(args.dir, 'fcd.xml'), (id) => vehicles.has(id));

type Passage = { tS: number; offsetM: number } | 'gap' | 'far';

/**
 * When the vehicle passes node `n` between simulation seconds `fromS` and `toS`: where its 1 s
 * record comes closest to the node (a local minimum of the distance from the node to the steps of
 * its positions, within `MAX_OFFSET_M`), the time interpolated at the closest point. Of several
 * passes (a hairpin, a road doubling back past the node) the first within 3 m of the closest
 * counts. 'gap' when the record has a gap there (a teleport), 'far' when no step passes the node.
 */
function passage(tr: FcdTrack, n: number, fromS: number, toS: number): Passage {
  const lat0 = nodeLat(g, n);
  const lon0 = nodeLon(g, n);
  const kx = 111_195 * Math.cos((lat0 * Math.PI) / 180);
  const steps: Array<{ tS: number; offsetM: number }> = []; // closest point of each moving step
  for (let i = 0; i + 1 < tr.t.length; i++) {
    if (tr.t[i + 1] < fromS - 1 || tr.t[i] > toS + 1) continue; // and one step either side
    if (tr.t[i + 1] - tr.t[i] > 1.5) return 'gap';
    const ax = (tr.lon[i] - lon0) * kx;
    const ay = (tr.lat[i] - lat0) * 111_195;
    const dx = (tr.lon[i + 1] - lon0) * kx - ax;
    const dy = (tr.lat[i + 1] - lat0) * 111_195 - ay;
    const l2 = dx * dx + dy * dy;
    if (l2 === 0) continue; // standing still
    const u = Math.min(1, Math.max(0, -(ax * dx + ay * dy) / l2));
    steps.push({ tS: tr.t[i] + u * (tr.t[i + 1] - tr.t[i]), offsetM: Math.hypot(ax + u * dx, ay + u * dy) });
  }
  // local minima inside the window (one at its edge may be a pass cut off by it); the first of
  // equal neighbours (a corner at a sample is the closest point of both steps)
  const passes = steps.filter(
    (p, j) =>
      j > 0 &&
      j < steps.length - 1 &&
      p.offsetM <= MAX_OFFSET_M &&
      p.offsetM < steps[j - 1].offsetM &&
      p.offsetM <= steps[j + 1].offsetM,
  );
  if (passes.length === 0) return 'far';
  const closest = Math.min(...passes.map((p) => p.offsetM));
  return passes.find((p) => p.offsetM <= closest + 3)!;
}

// ---- pairs: every node-to-node traversal with a learned speed, and SUMO's time for it
interface Pair {
  edge: number;
  bin: number;
  lengthM: number;
  learnedS: number;
  truthS: number;
}
const pairs: Pair[] = [];
const skipped = { partial: 0, gap: 0, far: 0, noRecord: 0, nonPositive: 0 };
let learnedSamples = 0;
for (const tj of trajectories) {
  const tr = tracks.get(tj.traceId);
  let afterS = Number.NEGATIVE_INFINITY;
  for (const x of tj.traversals) {
    if (traversalSpeedKph(g, x) === null) continue; // not in the learned bins
    learnedSamples++;
    if (x.coveredFraction < 0.999) {
      skipped.partial++; // first or last edge of a trajectory: starts or ends at a ping, not a node
      continue;
    }
    if (!tr) {
      skipped.noRecord++;
      continue;
    }
    const enter = x.enterS - midnightS;
    const exit = x.exitS - midnightS;
    // the start node is passed after the node before it (the previous traversal's start), the end node after the start node
    const a = passage(tr, g.edgeSource[x.edge], Math.max(enter - 30, afterS), exit + 30);
    if (typeof a === 'object') afterS = a.tS;
    const b = passage(tr, g.edgeTarget[x.edge], typeof a === 'object' ? a.tS : enter - 30, exit + 30);
    if (a === 'gap' || b === 'gap') skipped.gap++;
    else if (a === 'far' || b === 'far') skipped.far++;
    else if (!(b.tS > a.tS)) skipped.nonPositive++;
    else
      pairs.push({
        edge: x.edge,
        bin: binOfWeek((x.enterS + x.exitS) / 2, tz),
        lengthM: g.edgeLengthM[x.edge],
        learnedS: x.exitS - x.enterS,
        truthS: b.tS - a.tS,
      });
  }
}

// ---- per edge and bin (Σ length / Σ time on both sides), and per edge over the whole run
interface Group {
  n: number;
  lengthM: number;
  learnedS: number;
  truthS: number;
}
function groups(keyOf: (p: Pair) => string): Map<string, Group> {
  const m = new Map<string, Group>();
  for (const p of pairs) {
    const k = keyOf(p);
    const acc = m.get(k) ?? { n: 0, lengthM: 0, learnedS: 0, truthS: 0 };
    acc.n++;
    acc.lengthM += p.lengthM;
    acc.learnedS += p.learnedS;
    acc.truthS += p.truthS;
    m.set(k, acc);
  }
  return m;
}
/** Errors of the learned speed (Σ length / Σ learned time) against the truth (Σ length / Σ truth time). */
function score(gs: Iterable<Group>, minN: number) {
  const signed: number[] = [];
  for (const x of gs) if (x.n >= minN) signed.push(x.truthS / x.learnedS - 1); // v_learned / v_truth − 1
  const abs = signed.map(Math.abs).sort((a, b) => a - b);
  const pct = (v: number): number => +(100 * v).toFixed(2);
  return {
    compared: signed.length,
    mapePct: pct(abs.reduce((a, b) => a + b, 0) / Math.max(1, abs.length)),
    medianApePct: abs.length ? pct(abs[Math.floor(abs.length / 2)]) : null,
    p90ApePct: abs.length ? pct(abs[Math.floor(abs.length * 0.9)]) : null,
    meanSignedPct: pct(signed.reduce((a, b) => a + b, 0) / Math.max(1, signed.length)),
  };
}
const byBin = groups((p) => `${p.edge}|${p.bin}`);
const byEdge = groups((p) => `${p.edge}`);
// where the error sits: per edge and bin, by edge length and by the truth's speed
const lengthOf = (k: string): number => g.edgeLengthM[Number(k.split('|')[0])];
const classes = (pick: (k: string, x: Group) => boolean) =>
  score(
    [...byBin].filter(([k, x]) => pick(k, x)).map(([, x]) => x),
    MIN_SAMPLES,
  );
const kph = (x: Group): number => (x.lengthM / x.truthS) * 3.6;
const figures = {
  probeVehicles: vehicles.size,
  learnedSamples,
  pairs: pairs.length,
  skipped,
  minSamples: MIN_SAMPLES,
  perTraversal: score(
    pairs.map((p) => ({ n: 1, lengthM: p.lengthM, learnedS: p.learnedS, truthS: p.truthS })),
    1,
  ),
  perEdgeAndBin: score(byBin.values(), MIN_SAMPLES),
  perEdge: score(byEdge.values(), 2 * MIN_SAMPLES),
  perEdgeAndBinByLength: {
    under25m: classes((k) => lengthOf(k) < 25),
    from25to50m: classes((k) => lengthOf(k) >= 25 && lengthOf(k) < 50),
    from50to100m: classes((k) => lengthOf(k) >= 50 && lengthOf(k) < 100),
    atLeast100m: classes((k) => lengthOf(k) >= 100),
  },
  perEdgeAndBinByTruthSpeed: {
    under15kph: classes((_, x) => kph(x) < 15),
    from15to30kph: classes((_, x) => kph(x) >= 15 && kph(x) < 30),
    atLeast30kph: classes((_, x) => kph(x) >= 30),
  },
  meanSecondsPerTraversal: {
    learned: +(pairs.reduce((a, p) => a + p.learnedS, 0) / Math.max(1, pairs.length)).toFixed(2),
    truth: +(pairs.reduce((a, p) => a + p.truthS, 0) / Math.max(1, pairs.length)).toFixed(2),
  },
};
writeFileSync(
  args.out,
  JSON.stringify(
    {
      figures,
      edgeBins: [...byBin]
        .filter(([, x]) => x.n >= MIN_SAMPLES)
        .map(([k, x]) => ({
          key: k,
          n: x.n,
          lengthM: +x.lengthM.toFixed(1),
          learnedKph: +((x.lengthM / x.learnedS) * 3.6).toFixed(2),
          truthKph: +kph(x).toFixed(2),
        })),
    },
    null,
    1,
  ),
);
console.log(JSON.stringify(figures, null, 1));
