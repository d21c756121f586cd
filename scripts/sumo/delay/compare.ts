/**
 * Compares the probe facts (probes.ts) with SUMO's ground truth (truth.ts). Pairs SUMO's signals
 * with streetwise intersections by position (a SUMO junction of the signal within `--radius` m of
 * a node of the intersection); connected groups of such pairs are compared as one intersection, so
 * a signal one side splits and the other does not shows up as error, not as a gap. Vehicles that
 * SUMO teleported, and those the truth cannot follow along their route, are left out on both sides. Prints and writes (`--out`) the figures:
 *
 *  - intersection × 15-minute bin (bins with ≥ `--min-probes` probe vehicles): MAE and mean signed
 *    error of the average control delay against all vehicles' truth and against the truth of the
 *    same probe vehicles, LOS letter agreement, and the sampling error alone (truth of the probe
 *    vehicles against truth of all vehicles);
 *  - per movement pooled over the run (≥ `--min-movement` probe vehicles): MAE, bias, the worst
 *    movements against all vehicles and against the same probe vehicles;
 *  - per crossing, same vehicle: MAE and bias;
 *  - POG: share of arrivals on green from SUMO's signal states against the share of probe vehicles
 *    that did not stop (what the API reports without signal timing), and the stop shares.
 *
 *   npx tsx scripts/sumo/delay/compare.ts --dir <scenario dir> --facts facts.json [--out figures.json]
 *       [--details crossings.json]   (every same-vehicle pair with both sides' zone times)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    facts: { type: 'string' },
    out: { type: 'string' },
    details: { type: 'string' },
    radius: { type: 'string', default: '30' },
    'min-probes': { type: 'string', default: '5' },
    'min-movement': { type: 'string', default: '30' },
    label: { type: 'string', default: '' },
  },
});
if (!args.dir || !args.facts) throw new Error('usage: compare.ts --dir <scenario dir> --facts facts.json');
const RADIUS_M = Number(args.radius);
const MIN_PROBES = Number(args['min-probes']);
const MIN_MOVEMENT = Number(args['min-movement']);

interface TruthCrossing {
  vehicle: string;
  tl: string;
  approachEdge: string;
  exitEdge: string;
  dir: string;
  entryS: number;
  exitS: number;
  travelS: number;
  freeFlowS: number;
  zoneM: number;
  delayS: number;
  stopped: boolean;
  stops?: number;
  onGreen: boolean | null;
  approachKph: number;
}
interface Truth {
  teleported: string[];
  unfollowed?: string[];
  signals: Array<{ tl: string; junctions: Array<{ id: string; lon: number; lat: number }> }>;
  crossings: TruthCrossing[];
  vehicles: number;
}
interface Fact {
  vehicle: string;
  key: string;
  movementId: number;
  inWay: string;
  outWay: string;
  turn: string;
  entryS: number;
  exitS: number;
  travelS: number;
  freeFlowS: number;
  zoneM: number;
  delayS: number;
  stopped: boolean;
  stops?: number;
  onGreen: boolean | null;
  approachKph: number | null;
}
interface Facts {
  params: Record<string, number>;
  probeVehicles: string[];
  intersections: Array<{
    key: string;
    name: string;
    signalized: boolean;
    nodes: Array<{ osmId: number; lat: number; lon: number }>;
  }>;
  facts: Fact[];
}

const truth = JSON.parse(readFileSync(join(args.dir, 'truth.json'), 'utf8')) as Truth;
const est = JSON.parse(readFileSync(args.facts, 'utf8')) as Facts;

// ---- vehicles left out: teleported (gap in the 1 s record, or named in SUMO's log), and those
// whose record the truth cannot follow along their route (they have no truth to compare with)
const teleported = new Set([...truth.teleported, ...(truth.unfollowed ?? [])]);
const unfollowedCount = truth.unfollowed?.length ?? 0;
for (const m of readFileSync(join(args.dir, 'sumo.log'), 'utf8').matchAll(/Teleporting vehicle '([^']+)'/g))
  teleported.add(m[1]);
const probeSet = new Set(est.probeVehicles.filter((v) => !teleported.has(v)));
const crossings = truth.crossings.filter((c) => !teleported.has(c.vehicle));
const facts = est.facts.filter((f) => !teleported.has(f.vehicle));

// ---- pairing signals with intersections: union–find over the bipartite "within radius" graph
const parent = new Map<string, string>();
const find = (x: string): string => {
  let r = x;
  while (parent.get(r) !== r) r = parent.get(r)!;
  parent.set(x, r);
  return r;
};
const add = (x: string): void => {
  if (!parent.has(x)) parent.set(x, x);
};
const union = (a: string, b: string): void => {
  add(a);
  add(b);
  parent.set(find(a), find(b));
};
const distM = (la1: number, lo1: number, la2: number, lo2: number): number => {
  const k = Math.cos((((la1 + la2) / 2) * Math.PI) / 180);
  return Math.hypot((la2 - la1) * 111_195, (lo2 - lo1) * 111_195 * k);
};
// a SUMO junction id is the OSM node id, or "cluster_<id>_<id>…" for junctions netconvert joined
const ours = est.intersections;
const signalizedOurs = ours.filter((ix) => ix.signalized);
for (const s of truth.signals) {
  add(`T:${s.tl}`);
  const osmIds = new Set(
    s.junctions
      .flatMap((j) => j.id.split('_'))
      .filter((x) => /^\d+$/.test(x))
      .map(Number),
  );
  for (const ix of signalizedOurs) {
    const near =
      ix.nodes.some((n) => osmIds.has(n.osmId)) ||
      s.junctions.some((j) => ix.nodes.some((n) => distM(j.lat, j.lon, n.lat, n.lon) <= RADIUS_M));
    if (near) union(`T:${s.tl}`, `E:${ix.key}`);
  }
}
const groupOfTl = new Map<string, string>();
const groupOfKey = new Map<string, string>();
const groups = new Map<string, { tls: string[]; keys: string[] }>();
for (const x of parent.keys()) {
  const r = find(x);
  const g = groups.get(r) ?? { tls: [], keys: [] };
  if (x.startsWith('T:')) {
    g.tls.push(x.slice(2));
    groupOfTl.set(x.slice(2), r);
  } else {
    g.keys.push(x.slice(2));
    groupOfKey.set(x.slice(2), r);
  }
  groups.set(r, g);
}
const pairing = {
  signals: truth.signals.length,
  oneToOne: 0,
  unpaired: 0,
  oneSignalSeveralOurs: 0,
  severalSignalsOneOurs: 0,
};
for (const g of groups.values()) {
  if (g.tls.length === 0) continue;
  if (g.keys.length === 0) pairing.unpaired += g.tls.length;
  else if (g.tls.length === 1 && g.keys.length === 1) pairing.oneToOne++;
  else if (g.tls.length === 1) pairing.oneSignalSeveralOurs++;
  else pairing.severalSignalsOneOurs += g.tls.length;
}

// ---- keys
const BIN_S = 900;
const wayOfSumoEdge = (e: string): string => {
  const m = /^(-?)(\d+)/.exec(e);
  return m ? `${m[2]}${m[1] === '-' ? '-' : '+'}` : e;
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const los = (d: number): string =>
  d <= 10 ? 'A' : d <= 20 ? 'B' : d <= 35 ? 'C' : d <= 55 ? 'D' : d <= 80 ? 'E' : 'F';

interface Cell {
  truthAll: number[];
  truthProbe: number[];
  est: number[];
  onGreen: number[];
  truthStopped: number[];
  estStopped: number[];
  estOnGreen: number[];
  /** arrivals on green of the probe vehicles' own truth */
  onGreenProbe: number[];
  truthStoppedProbe: number[];
}
const cell = (): Cell => ({
  truthAll: [],
  truthProbe: [],
  est: [],
  onGreen: [],
  truthStopped: [],
  estStopped: [],
  estOnGreen: [],
  onGreenProbe: [],
  truthStoppedProbe: [],
});
const bins = new Map<string, Cell>();
const hours = new Map<string, Cell>();
const pooled = new Map<string, Cell>();
const movements = new Map<string, Cell & { dir: string }>();
for (const c of crossings) {
  const g = groupOfTl.get(c.tl);
  if (!g || groups.get(g)!.keys.length === 0) continue;
  const bk = `${g}@${Math.floor(c.entryS / BIN_S)}`;
  const mk = `${g}|${wayOfSumoEdge(c.approachEdge)}|${wayOfSumoEdge(c.exitEdge)}`;
  const b = bins.get(bk) ?? cell();
  bins.set(bk, b);
  const m = movements.get(mk) ?? { ...cell(), dir: c.dir };
  movements.set(mk, m);
  const hk = `${g}@${Math.floor(c.entryS / 3600)}`;
  const h = hours.get(hk) ?? cell();
  hours.set(hk, h);
  const p = pooled.get(g) ?? cell();
  pooled.set(g, p);
  for (const x of [b, m, h, p]) {
    x.truthAll.push(c.delayS);
    x.truthStopped.push(c.stopped ? 1 : 0);
    if (c.onGreen !== null) x.onGreen.push(c.onGreen ? 1 : 0);
    if (probeSet.has(c.vehicle)) {
      x.truthProbe.push(c.delayS);
      x.truthStoppedProbe.push(c.stopped ? 1 : 0);
      if (c.onGreen !== null) x.onGreenProbe.push(c.onGreen ? 1 : 0);
    }
  }
}
let factsCompared = 0;
for (const f of facts) {
  const g = groupOfKey.get(f.key);
  if (!g || groups.get(g)!.tls.length === 0) continue;
  factsCompared++;
  const bk = `${g}@${Math.floor(f.entryS / BIN_S)}`;
  const mk = `${g}|${f.inWay}|${f.outWay}`;
  const b = bins.get(bk) ?? cell();
  bins.set(bk, b);
  const hk = `${g}@${Math.floor(f.entryS / 3600)}`;
  const h = hours.get(hk) ?? cell();
  hours.set(hk, h);
  const p = pooled.get(g) ?? cell();
  pooled.set(g, p);
  for (const x of [b, h, p]) {
    x.est.push(f.delayS);
    x.estStopped.push(f.stopped ? 1 : 0);
    if (f.onGreen !== null && f.onGreen !== undefined) x.estOnGreen.push(f.onGreen ? 1 : 0);
  }
  const m = movements.get(mk);
  if (m) {
    m.est.push(f.delayS);
    m.estStopped.push(f.stopped ? 1 : 0);
  }
}

// ---- intersection × bin
const rows = [...bins.entries()].filter(
  ([, c]) => c.est.length >= MIN_PROBES && c.truthAll.length > 0 && c.truthProbe.length > 0,
);
const errAll = rows.map(([, c]) => mean(c.est) - mean(c.truthAll));
const errSame = rows.map(([, c]) => mean(c.est) - mean(c.truthProbe));
const errSampling = rows.map(([, c]) => mean(c.truthProbe) - mean(c.truthAll));
const losAll = rows.filter(([, c]) => los(mean(c.est)) === los(mean(c.truthAll))).length / rows.length;
const losSame = rows.filter(([, c]) => los(mean(c.est)) === los(mean(c.truthProbe))).length / rows.length;
const losSampling = rows.filter(([, c]) => los(mean(c.truthProbe)) === los(mean(c.truthAll))).length / rows.length;
const losTruth: Record<string, number> = {};
for (const [, c] of rows) {
  const l = los(mean(c.truthAll));
  losTruth[l] = (losTruth[l] ?? 0) + 1;
}
const abs = (xs: number[]): number => mean(xs.map(Math.abs));
const pogRows = rows.filter(([, c]) => c.onGreen.length > 0);
const pog = {
  truthOnGreenPct: 100 * mean(crossings.filter((c) => c.onGreen !== null).map((c) => (c.onGreen ? 1 : 0))),
  truthNotStoppedPct: 100 * (1 - mean(crossings.map((c) => (c.stopped ? 1 : 0)))),
  binMaeVsOnGreenPct: abs(pogRows.map(([, c]) => 100 * (1 - mean(c.estStopped)) - 100 * mean(c.onGreen))),
  binBiasVsOnGreenPct: mean(pogRows.map(([, c]) => 100 * (1 - mean(c.estStopped)) - 100 * mean(c.onGreen))),
  binMaeStopSharePct: abs(rows.map(([, c]) => 100 * mean(c.estStopped) - 100 * mean(c.truthStopped))),
  ...(pogRows.some(([, c]) => c.estOnGreen.length > 0)
    ? {
        binMaeWithTimingPct: abs(
          pogRows
            .filter(([, c]) => c.estOnGreen.length > 0)
            .map(([, c]) => 100 * mean(c.estOnGreen) - 100 * mean(c.onGreen)),
        ),
        binBiasWithTimingPct: mean(
          pogRows
            .filter(([, c]) => c.estOnGreen.length > 0)
            .map(([, c]) => 100 * mean(c.estOnGreen) - 100 * mean(c.onGreen)),
        ),
      }
    : {}),
};

// ---- 1-hour bins, same probe vehicles
const hrows = [...hours.values()].filter((c) => c.est.length >= MIN_PROBES && c.truthProbe.length > 0);
const herrSame = hrows.map((c) => mean(c.est) - mean(c.truthProbe));
const hlosSame = hrows.filter((c) => los(mean(c.est)) === los(mean(c.truthProbe))).length / hrows.length;
// ---- POG from the controller logs: pooled per intersection (≥ --min-movement probe arrivals)
// and per bin, against the truth of all vehicles beside the sampling floor (the probes' own truth
// against all), and against the truth of the same probe vehicles
const prows = [...pooled.values()].filter(
  (c) => c.estOnGreen.length >= MIN_MOVEMENT && c.onGreen.length > 0 && c.onGreenProbe.length > 0,
);
const pogPooled = prows.map((c) => 100 * mean(c.estOnGreen) - 100 * mean(c.onGreen));
const pogPooledSame = prows.map((c) => 100 * mean(c.estOnGreen) - 100 * mean(c.onGreenProbe));
const pogPooledFloor = prows.map((c) => 100 * mean(c.onGreenProbe) - 100 * mean(c.onGreen));
const pogBins = pogRows.filter(([, c]) => c.estOnGreen.length > 0 && c.onGreenProbe.length > 0);
const logPog = {
  pooledIntersections: prows.length,
  pooledMaePct: abs(pogPooled),
  pooledBiasPct: mean(pogPooled),
  pooledMaxAbsPct: Math.max(0, ...pogPooled.map(Math.abs)),
  pooledSamplingFloorMaePct: abs(pogPooledFloor),
  pooledSameProbesMaePct: abs(pogPooledSame),
  pooledSameProbesMaxAbsPct: Math.max(0, ...pogPooledSame.map(Math.abs)),
  binMaePct: abs(pogBins.map(([, c]) => 100 * mean(c.estOnGreen) - 100 * mean(c.onGreen))),
  binSamplingFloorMaePct: abs(pogBins.map(([, c]) => 100 * mean(c.onGreenProbe) - 100 * mean(c.onGreen))),
  binSameProbesMaePct: abs(pogBins.map(([, c]) => 100 * mean(c.estOnGreen) - 100 * mean(c.onGreenProbe))),
};
// ---- stopped share, same probe vehicles (every compared intersection, pooled)
const allPooled = [...pooled.values()].filter((c) => c.est.length > 0 && c.truthStoppedProbe.length > 0);
const stopShare = {
  estPct: 100 * mean(allPooled.flatMap((c) => c.estStopped)),
  truthSameProbesPct: 100 * mean(allPooled.flatMap((c) => c.truthStoppedProbe)),
};

// ---- movements pooled
const mrows = [...movements.entries()].filter(([, m]) => m.est.length >= MIN_MOVEMENT);
const merr = mrows.map(([, m]) => mean(m.est) - mean(m.truthAll));
const merrSame = mrows.map(([, m]) => mean(m.est) - mean(m.truthProbe));
const movementRows = mrows.map(([k, m]) => {
  const [g, inWay, outWay] = k.split('|');
  const grp = groups.get(g)!;
  return {
    signals: grp.tls.join(' '),
    ours: grp.keys.join(' '),
    name: grp.keys.map((x) => ours.find((o) => o.key === x)?.name).join(' / '),
    inWay,
    outWay,
    dir: m.dir,
    probes: m.est.length,
    vehicles: m.truthAll.length,
    estS: +mean(m.est).toFixed(1),
    truthAllS: +mean(m.truthAll).toFixed(1),
    truthProbesS: +mean(m.truthProbe).toFixed(1),
  };
});
const worst = [...movementRows]
  .sort((a, b) => Math.abs(b.estS - b.truthAllS) - Math.abs(a.estS - a.truthAllS))
  .slice(0, 10);
const worstMethod = [...movementRows]
  .sort((a, b) => Math.abs(b.estS - b.truthProbesS) - Math.abs(a.estS - a.truthProbesS))
  .slice(0, 10);

// ---- per crossing, same vehicle (nearest entry time within 60 s)
const byVehicle = new Map<string, TruthCrossing[]>();
for (const c of crossings)
  if (probeSet.has(c.vehicle)) {
    const a = byVehicle.get(c.vehicle) ?? [];
    a.push(c);
    byVehicle.set(c.vehicle, a);
  }
const pairErr: number[] = [];
let stopAgree = 0;
const approachErr: number[] = [];
let greenJudged = 0;
let greenAgree = 0;
let pairStoppedEst = 0;
let pairStoppedTruth = 0;
// stops per crossing and per vehicle (Σ over its paired crossings), estimate and truth
let stopCountAgree = 0;
const stopsEst: number[] = [];
const stopsTruth: number[] = [];
const vehicleStops = new Map<string, [number, number]>();
const details: Array<{
  vehicle: string;
  key: string;
  tl: string;
  dir: string;
  turn: string;
  est: object;
  truth: object;
}> = [];
const timesOf = (x: Fact | TruthCrossing) => ({
  entryS: x.entryS,
  exitS: x.exitS,
  travelS: x.travelS,
  freeFlowS: x.freeFlowS,
  zoneM: x.zoneM,
  delayS: x.delayS,
  stopped: x.stopped,
  stops: x.stops,
});
for (const f of facts) {
  const g = groupOfKey.get(f.key);
  if (!g) continue;
  let best: TruthCrossing | undefined;
  for (const c of byVehicle.get(f.vehicle) ?? []) {
    if (groupOfTl.get(c.tl) !== g || Math.abs(c.entryS - f.entryS) > 60) continue;
    if (!best || Math.abs(c.entryS - f.entryS) < Math.abs(best.entryS - f.entryS)) best = c;
  }
  if (best) {
    details.push({
      vehicle: f.vehicle,
      key: f.key,
      tl: best.tl,
      dir: best.dir,
      turn: f.turn,
      est: { ...timesOf(f), inWay: f.inWay, outWay: f.outWay },
      truth: { ...timesOf(best), inWay: wayOfSumoEdge(best.approachEdge), outWay: wayOfSumoEdge(best.exitEdge) },
    });
    pairErr.push(f.delayS - best.delayS);
    if (best.stopped === f.stopped) stopAgree++;
    if (f.stopped) pairStoppedEst++;
    if (f.stops !== undefined && best.stops !== undefined) {
      stopsEst.push(f.stops);
      stopsTruth.push(best.stops);
      if (f.stops === best.stops) stopCountAgree++;
      const v = vehicleStops.get(f.vehicle) ?? [0, 0];
      v[0] += f.stops;
      v[1] += best.stops;
      vehicleStops.set(f.vehicle, v);
    }
    if (best.stopped) pairStoppedTruth++;
    if (f.approachKph !== null) approachErr.push(f.approachKph - best.approachKph);
    if (best.onGreen !== null && f.onGreen !== null && f.onGreen !== undefined) {
      greenJudged++;
      if (best.onGreen === f.onGreen) greenAgree++;
    }
  }
}

const r2 = (x: number): number => Math.round(x * 100) / 100;
const figures = {
  label: args.label,
  params: est.params,
  minProbesPerBin: MIN_PROBES,
  minProbesPerMovement: MIN_MOVEMENT,
  counts: {
    simulatedVehicles: truth.vehicles,
    teleportedLeftOut: teleported.size - unfollowedCount,
    unfollowedLeftOut: unfollowedCount,
    probeVehicles: probeSet.size,
    truthCrossings: crossings.length,
    probeFactsAtSignals: factsCompared,
    pairing,
    comparedIntersections: new Set(rows.map(([k]) => k.split('@')[0])).size,
    comparedBins: rows.length,
    comparedMovements: mrows.length,
    sameVehiclePairs: pairErr.length,
  },
  bins: {
    maeS: r2(abs(errAll)),
    biasS: r2(mean(errAll)),
    losAgreementPct: r2(100 * losAll),
    sameProbes: { maeS: r2(abs(errSame)), biasS: r2(mean(errSame)), losAgreementPct: r2(100 * losSame) },
    samplingOnly: { maeS: r2(abs(errSampling)), biasS: r2(mean(errSampling)), losAgreementPct: r2(100 * losSampling) },
    truthLos: losTruth,
  },
  movements: {
    maeS: r2(abs(merr)),
    biasS: r2(mean(merr)),
    sameProbes: { maeS: r2(abs(merrSame)), biasS: r2(mean(merrSame)) },
  },
  crossings: {
    maeS: r2(abs(pairErr)),
    biasS: r2(mean(pairErr)),
    stopAgreementPct: r2((100 * stopAgree) / pairErr.length),
    stoppedSharePct: r2((100 * pairStoppedEst) / pairErr.length),
    truthStoppedSharePct: r2((100 * pairStoppedTruth) / pairErr.length),
    approachSpeedMaeKph: r2(abs(approachErr)),
    ...(greenJudged > 0 ? { onGreenAgreementPct: r2((100 * greenAgree) / greenJudged) } : {}),
  },
  stopCounts:
    stopsEst.length > 0
      ? {
          pairs: stopsEst.length,
          perCrossingEst: r2(mean(stopsEst)),
          perCrossingTruth: r2(mean(stopsTruth)),
          crossingAgreementPct: r2((100 * stopCountAgree) / stopsEst.length),
          vehicles: vehicleStops.size,
          perVehicleEst: r2(mean([...vehicleStops.values()].map((v) => v[0]))),
          perVehicleTruth: r2(mean([...vehicleStops.values()].map((v) => v[1]))),
          perVehicleMae: r2(mean([...vehicleStops.values()].map((v) => Math.abs(v[0] - v[1])))),
          vehicleAgreementPct: r2(
            (100 * [...vehicleStops.values()].filter((v) => v[0] === v[1]).length) / vehicleStops.size,
          ),
        }
      : null,
  pog: Object.fromEntries(Object.entries(pog).map(([k, v]) => [k, r2(v)])),
  hours: {
    bins: hrows.length,
    sameProbes: { maeS: r2(abs(herrSame)), biasS: r2(mean(herrSame)), losAgreementPct: r2(100 * hlosSame) },
  },
  logPog: Object.fromEntries(Object.entries(logPog).map(([k, v]) => [k, r2(v)])),
  stopShare: Object.fromEntries(Object.entries(stopShare).map(([k, v]) => [k, r2(v)])),
  worstMovements: worst,
  worstMovementsMethod: worstMethod,
};
console.log(JSON.stringify(figures, null, 1));
if (args.out) writeFileSync(args.out, JSON.stringify(figures, null, 1));
// per crossing, same vehicle: both sides' zone times, for diagnosing where the error comes from
if (args.details) writeFileSync(args.details, JSON.stringify(details));
