/**
 * `streetwise simulate`: run the traffic simulator on the configured region and send the probe
 * pings to the probe sink (then matching, traversals, learned and live speeds, intersection
 * facts), and/or write them to a CSV (`trace_id,timestamp,lat,lon,speed_kph,heading`) or NDJSON
 * file. Progress: simulated time of the total, then traces matched of the total.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Command } from 'commander';
import { parseTimestampS, type ProbeRecord } from '../probes/ingest/records.js';
import { NodeDistance } from '../routing/search/cch/node-distance.js';
import { defaultTripsPerDay } from '../sim/demo-simulation.js';
import { newStats, type SimulationOptions, type SimulationStats, simulate } from '../sim/simulator.js';
import { localParts, parseIsoToUnixS } from '../time/index.js';
import type { CliDeps } from './deps.js';
import { chosenRegion } from './region-choice.js';
import { createProgress } from './progress.js';
import { processedLines, processWithProgress, storeAll, withProbeSink, type StoreTotals } from './probe-sink-cli.js';

interface SimulateCliOptions {
  days: string;
  hours?: string;
  penetration: string;
  interval: string;
  seed: string;
  noise: string;
  start?: string;
  tripsPerDay?: string;
  out?: string;
  ingest: boolean;
}

/** Parses a numeric option or throws naming it. */
function num(name: string, v: string, min: number, max: number, integer = false): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
    throw new Error(`--${name} must be ${integer ? 'an integer' : 'a number'} in ${min}..${max} (got ${v})`);
  return n;
}

/** Header of the CSV the simulator writes (speed in km/h, named so). */
export const SIMULATE_CSV_HEADER = 'trace_id,timestamp,lat,lon,speed_kph,heading';

/** Writes one record as a CSV or NDJSON line. */
function line(r: ProbeRecord, csv: boolean): string {
  const p = r.ping;
  return csv
    ? `${r.traceId},${p.tS},${p.lat.toFixed(7)},${p.lon.toFixed(7)},${p.speedKph ?? ''},${p.headingDeg ?? ''}\n`
    : `${JSON.stringify({ trace_id: r.traceId, timestamp: p.tS, lat: +p.lat.toFixed(7), lon: +p.lon.toFixed(7), speed_kph: p.speedKph, heading: p.headingDeg })}\n`;
}

/** Reads and checks the simulation's numbers; throws naming the flag. */
function readSimulateOptions(opts: SimulateCliOptions) {
  const days = num('days', opts.days, 0, 28);
  const durationS = opts.hours !== undefined ? num('hours', opts.hours, 0.01, 24 * 28) * 3600 : days * 86400;
  if (!(durationS > 0)) throw new Error('--days or --hours must be > 0');
  const penetration = num('penetration', opts.penetration, 0, 1);
  const intervalS = num('interval', opts.interval, 0.1, 3600);
  const noiseM = num('noise', opts.noise, 0, 200);
  const seed = num('seed', opts.seed, 0, 2 ** 31, true);
  if (!opts.ingest && !opts.out) throw new Error('--no-ingest needs --out');
  if (opts.out && !/\.(csv|jsonl|ndjson)$/i.test(opts.out))
    throw new Error('--out must end in .csv, .ndjson or .jsonl');
  return { durationS, penetration, intervalS, noiseM, seed };
}

/**
 * The simulation's start, unix seconds: `--start` (ISO 8601 local to the region's time zone `tz`,
 * or unix seconds), else local midnight as many whole days ago as the simulation lasts.
 */
function startOf(start: string | undefined, durationS: number, tz: string): number {
  if (start !== undefined) {
    const s = /^\d+(\.\d+)?$/.test(start) ? parseTimestampS(start) : parseIsoToUnixS(start, tz);
    if (s === undefined || !Number.isFinite(s)) throw new Error(`--start ${start} is not ISO 8601 or unix seconds`);
    return s;
  }
  const p = localParts(Date.now() / 1000 - Math.max(1, Math.ceil(durationS / 86400)) * 86400, tz);
  return parseIsoToUnixS(
    `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}T00:00:00`,
    tz,
  ) as number;
}

/** Adds `simulate`. */
export function registerSimulate(program: Command, deps: CliDeps): void {
  program
    .command('simulate')
    .description(
      'simulate traffic on the region (demand curve, signals, congestion) and ingest GPS pings of a sample of vehicles',
    )
    .option('--days <n>', 'days to simulate', '1')
    .option('--hours <n>', 'hours to simulate instead of whole days')
    .option('--penetration <p>', 'share of vehicles reporting pings, 0..1', '0.1')
    .option('--interval <s>', 'seconds between pings', '5')
    .option('--noise <m>', 'GPS noise per axis, metres', '5')
    .option('--seed <n>', 'random seed', '1')
    .option(
      '--start <time>',
      'start (ISO 8601 local to the region, or unix seconds); default: local midnight --days days ago',
    )
    .option('--trips-per-day <n>', 'trips per day (default from the road length)')
    .option('--out <file>', 'also write the pings to a .csv, .ndjson or .jsonl file')
    .option('--no-ingest', 'do not ingest (only write --out)')
    .action((opts: SimulateCliOptions) => runSimulate(opts, deps));
}

/** Runs `streetwise simulate`: the simulation, written to --out and (unless --no-ingest) ingested. */
async function runSimulate(opts: SimulateCliOptions, deps: CliDeps): Promise<void> {
  const { durationS, penetration, intervalS, noiseM, seed } = readSimulateOptions(opts);
  const region = await chosenRegion(deps);
  const startS = startOf(opts.start, durationS, region.meta.timeZone || 'UTC');
  const tripsPerDay =
    opts.tripsPerDay !== undefined
      ? num('trips-per-day', opts.tripsPerDay, 1, 10_000_000, true)
      : defaultTripsPerDay(region);
  const stats = newStats();
  const bar = createProgress('simulate', 'sim min');
  const simMinutes = (): number => Math.round(Math.max(0, Math.min(durationS, stats.nowS - startS)) / 60);
  bar.update(0, Math.round(durationS / 60));
  let out: WriteStream | undefined;
  const csv = opts.out?.toLowerCase().endsWith('.csv') ?? false;
  if (opts.out) {
    out = createWriteStream(opts.out);
    if (csv) out.write(`${SIMULATE_CSV_HEADER}\n`);
  }
  const records = (): AsyncGenerator<ProbeRecord> =>
    simulatedRecords(
      region,
      { startS, durationS, penetration, intervalS, noiseM, seed, tripsPerDay },
      stats,
      () => bar.update(simMinutes(), Math.round(durationS / 60)),
      out,
      csv,
    );
  const t0 = Date.now();
  if (opts.ingest) {
    await withProbeSink(deps, region, async (sink) => {
      let stored: StoreTotals;
      try {
        stored = await storeAll(sink, records(), 5000);
      } finally {
        bar.stop();
      }
      const proc = await processWithProgress(sink);
      console.log(`ingested ${stored.inserted} new pings (${stored.duplicates} already stored) into ${sink.via}`);
      for (const l of processedLines(proc, (Date.now() - t0) / 1000)) console.log(l);
    });
  } else {
    for await (const r of records()) void r;
    bar.stop();
  }
  if (out) await new Promise<void>((res) => out?.end(() => res()));
  console.log(
    `simulated ${(durationS / 3600).toFixed(1)} h from ${new Date(startS * 1000).toISOString()}: ${stats.routedTrips} trips (${stats.completedTrips} completed, mean ${Math.round(stats.meanTripS)} s, ${Math.round(stats.meanControlDelayS)} s at signals/stops), ${stats.signalizedNodes} signals, ${stats.probeVehicles} probe vehicles, ${stats.pings} pings in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}

/**
 * The simulated pings in batches of 1000 (progress moves at least that often), each batch also
 * written to `out` (CSV when `csv`, else NDJSON) before it is yielded.
 */
async function* simulatedRecords(
  region: Awaited<ReturnType<typeof chosenRegion>>,
  o: Pick<SimulationOptions, 'startS' | 'durationS' | 'penetration' | 'intervalS' | 'noiseM' | 'seed' | 'tripsPerDay'>,
  stats: SimulationStats,
  progress: () => void,
  out: WriteStream | undefined,
  csv: boolean,
): AsyncGenerator<ProbeRecord> {
  const options: SimulationOptions = {
    ...o,
    batchSize: 1000,
    // trips' routes directed by a CCH of the region (seconds to build on a metro, then a
    // few milliseconds a trip where straight lines took hundreds)
    nodeDistance: (g, usable, weightS) => NodeDistance.build(g, usable, weightS),
  };
  for await (const batch of simulate(region, options, stats)) {
    if (out) {
      const ok = out.write(batch.map((r) => line(r, csv)).join(''));
      if (!ok) await new Promise<void>((res) => out?.once('drain', () => res()));
    }
    progress();
    yield* batch;
  }
}
