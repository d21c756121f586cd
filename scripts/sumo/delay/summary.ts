/**
 * Prints the figures of compare.ts runs side by side as a Markdown table, then the worst movements.
 *
 *   npx tsx scripts/sumo/delay/summary.ts figures-clean.json figures-noisy.json [...]
 */
import { readFileSync } from 'node:fs';

interface Movement {
  name: string;
  inWay: string;
  outWay: string;
  dir: string;
  probes: number;
  vehicles: number;
  estS: number;
  truthAllS: number;
  truthProbesS: number;
}
interface Figures {
  label: string;
  counts: Record<string, number | Record<string, number>>;
  bins: {
    maeS: number;
    biasS: number;
    losAgreementPct: number;
    sameProbes: { maeS: number; biasS: number; losAgreementPct: number };
    samplingOnly: { maeS: number; biasS: number; losAgreementPct: number };
    truthLos: Record<string, number>;
  };
  movements: { maeS: number; biasS: number; sameProbes: { maeS: number; biasS: number } };
  crossings: {
    maeS: number;
    biasS: number;
    stopAgreementPct: number;
    stoppedSharePct?: number;
    truthStoppedSharePct?: number;
    onGreenAgreementPct?: number;
    approachSpeedMaeKph: number;
  };
  pog: Record<string, number>;
  hours?: { bins: number; sameProbes: { maeS: number; biasS: number; losAgreementPct: number } };
  logPog?: Record<string, number>;
  stopShare?: Record<string, number>;
  stopCounts?: Record<string, number> | null;
  worstMovements: Movement[];
  worstMovementsMethod: Movement[];
}

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: summary.ts figures.json [...]');
const figs = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Figures);
const c = (f: Figures, k: string): number => f.counts[k] as number;
const rows: Array<[string, (f: Figures) => string]> = [
  [
    'signals paired 1:1 / one signal to several intersections / unpaired',
    (f) => {
      const p = f.counts.pairing as Record<string, number>;
      return `${p.oneToOne} / ${p.oneSignalSeveralOurs} / ${p.unpaired} of ${p.signals}`;
    },
  ],
  [
    'vehicles simulated / left out: teleported, truth cannot follow / probes',
    (f) =>
      `${c(f, 'simulatedVehicles')} / ${c(f, 'teleportedLeftOut')}, ${c(f, 'unfollowedLeftOut') ?? 0} / ${c(f, 'probeVehicles')}`,
  ],
  [
    'truth crossings / probe facts at signals / same-vehicle pairs',
    (f) => `${c(f, 'truthCrossings')} / ${c(f, 'probeFactsAtSignals')} / ${c(f, 'sameVehiclePairs')}`,
  ],
  [
    'compared intersections / bins / movements',
    (f) => `${c(f, 'comparedIntersections')} / ${c(f, 'comparedBins')} / ${c(f, 'comparedMovements')}`,
  ],
  [
    'truth LOS of the compared bins',
    (f) =>
      'ABCDEF'
        .split('')
        .map((l) => `${l} ${f.bins.truthLos[l] ?? 0}`)
        .join(', '),
  ],
  ['bin MAE / bias vs the same probe vehicles, s', (f) => `${f.bins.sameProbes.maeS} / ${f.bins.sameProbes.biasS}`],
  ['bin LOS agreement vs the same probe vehicles', (f) => `${f.bins.sameProbes.losAgreementPct} %`],
  ['bin MAE / bias vs all vehicles, s', (f) => `${f.bins.maeS} / ${f.bins.biasS}`],
  ['bin LOS agreement vs all vehicles', (f) => `${f.bins.losAgreementPct} %`],
  [
    "sampling alone (probes' truth vs all vehicles' truth): bin MAE / bias, s; LOS agreement",
    (f) => `${f.bins.samplingOnly.maeS} / ${f.bins.samplingOnly.biasS}; ${f.bins.samplingOnly.losAgreementPct} %`,
  ],
  [
    'movement pooled MAE / bias vs the same probes, s',
    (f) => `${f.movements.sameProbes.maeS} / ${f.movements.sameProbes.biasS}`,
  ],
  ['movement pooled MAE / bias vs all vehicles, s', (f) => `${f.movements.maeS} / ${f.movements.biasS}`],
  ['per crossing (same vehicle) MAE / bias, s', (f) => `${f.crossings.maeS} / ${f.crossings.biasS}`],
  [
    'per crossing: stopped agrees / on green agrees',
    (f) => `${f.crossings.stopAgreementPct} % / ${f.crossings.onGreenAgreementPct ?? '–'} %`,
  ],
  ['per crossing: approach speed MAE, km/h', (f) => `${f.crossings.approachSpeedMaeKph}`],
  [
    'POG truth (arrivals on green, all vehicles) / share not stopped',
    (f) => `${f.pog.truthOnGreenPct} % / ${f.pog.truthNotStoppedPct} %`,
  ],
  [
    'POG bin MAE: with signal timing / without (not stopped), points',
    (f) => `${f.pog.binMaeWithTimingPct ?? '–'} / ${f.pog.binMaeVsOnGreenPct}`,
  ],
  [
    '1-hour bins vs the same probe vehicles: MAE / bias, s; LOS agreement',
    (f) =>
      f.hours
        ? `${f.hours.sameProbes.maeS} / ${f.hours.sameProbes.biasS}; ${f.hours.sameProbes.losAgreementPct} % (${f.hours.bins} bins)`
        : '–',
  ],
  [
    'POG from logs pooled per intersection (≥ 30 probes) vs all vehicles: MAE / worst; sampling floor, points',
    (f) =>
      f.logPog
        ? `${f.logPog.pooledMaePct} / ${f.logPog.pooledMaxAbsPct}; ${f.logPog.pooledSamplingFloorMaePct} (${f.logPog.pooledIntersections})`
        : '–',
  ],
  [
    'POG from logs pooled per intersection vs the same probe vehicles: MAE / worst, points',
    (f) => (f.logPog ? `${f.logPog.pooledSameProbesMaePct} / ${f.logPog.pooledSameProbesMaxAbsPct}` : '–'),
  ],
  [
    'POG from logs per bin vs all vehicles / sampling floor / vs the same probes, points',
    (f) =>
      f.logPog ? `${f.logPog.binMaePct} / ${f.logPog.binSamplingFloorMaePct} / ${f.logPog.binSameProbesMaePct}` : '–',
  ],
  [
    'share stopped, same-vehicle pairs: estimate / truth',
    (f) => `${f.crossings.stoppedSharePct ?? '–'} % / ${f.crossings.truthStoppedSharePct ?? '–'} %`,
  ],
  [
    'share stopped, all facts / all truth crossings of the probe vehicles',
    (f) => (f.stopShare ? `${f.stopShare.estPct} % / ${f.stopShare.truthSameProbesPct} %` : '–'),
  ],
  [
    'stops per crossing, same-vehicle pairs: estimate / truth; count agrees',
    (f) =>
      f.stopCounts
        ? `${f.stopCounts.perCrossingEst} / ${f.stopCounts.perCrossingTruth}; ${f.stopCounts.crossingAgreementPct} %`
        : '–',
  ],
  [
    'stops per probe vehicle (its paired crossings): estimate / truth; MAE; count agrees',
    (f) =>
      f.stopCounts
        ? `${f.stopCounts.perVehicleEst} / ${f.stopCounts.perVehicleTruth}; ${f.stopCounts.perVehicleMae}; ${f.stopCounts.vehicleAgreementPct} %`
        : '–',
  ],
];
console.log(`| figure | ${figs.map((f) => f.label).join(' | ')} |`);
console.log(`|---|${figs.map(() => '---').join('|')}|`);
for (const [name, fn] of rows) console.log(`| ${name} | ${figs.map(fn).join(' | ')} |`);
const line = (w: Movement): string =>
  `  ${w.name} ${w.inWay} → ${w.outWay} (${w.dir}), ${w.probes} probes of ${w.vehicles}: ${w.estS} / ${w.truthAllS} / ${w.truthProbesS}`;
for (const f of figs) {
  console.log(
    `\n${f.label}, worst movements against all vehicles: estimate / truth of all vehicles / truth of the probes, s`,
  );
  for (const w of f.worstMovements.slice(0, 5)) console.log(line(w));
  console.log(`${f.label}, worst movements against the same probe vehicles:`);
  for (const w of f.worstMovementsMethod.slice(0, 5)) console.log(line(w));
}
