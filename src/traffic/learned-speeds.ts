/**
 * Learned speed profiles from probe traversals. Per edge and 15-minute bin of the local week the
 * database keeps Σ length and Σ duration of usable traversals (`learned_speed_bins`, updated by
 * what each changed traversal adds or takes, in the transaction that writes it:
 * `replaceTraversals`). The profile speed of a bin is the space-mean speed
 * shrunk toward the prior — the traffic model's class-based prediction for that edge and bin:
 *
 *   v = (n · v̄ + k · v_prior) / (n + k)      (n samples, k = `priorWeightSamples`)
 *
 * so one odd traversal moves the profile a little and many replace the prediction. Bins without
 * samples stay NaN (the model falls back to its prediction there).
 */
import type { Graph } from '../network/graph.js';
import { intArrayLiteral, type Queryable } from '../store/db.js';
import { BINS_PER_WEEK, SpeedFeeds } from './feeds.js';
import { TrafficModel } from './model.js';
import { refreshLiveSpeeds } from './live-speeds.js';

/** Settings of the learned profiles. */
export interface LearnedSpeedConfig {
  /** weight of the prior, in samples (k of the shrinkage) */
  priorWeightSamples: number;
  /** bins with fewer samples than this are left to the prediction (NaN) */
  minSamples: number;
}

/** Default learned-profile settings (docs/probes.md). */
export const DEFAULT_LEARNED_SPEED_CONFIG: Readonly<LearnedSpeedConfig> = Object.freeze({
  priorWeightSamples: 5,
  minSamples: 1,
});

/** The class-based prediction of the traffic model, per edge and bin, km/h. */
export interface PriorSpeeds {
  speedKph(edge: number, bin: number): number;
}

const priorCache = new WeakMap<Graph, PriorSpeeds>();

/**
 * The prior of the shrinkage: the traffic model's predicted speed (free flow × class/urban
 * profile factor of the bin), without learned or live data. Cached per graph.
 */
export function predictedPrior(g: Graph): PriorSpeeds {
  let p = priorCache.get(g);
  if (p === undefined) {
    const model = new TrafficModel(g, new SpeedFeeds(), null, 'UTC');
    const { freeFlowKph, profileGroup, factors } = model;
    p = { speedKph: (e, bin) => freeFlowKph[e] * factors[profileGroup[e] * BINS_PER_WEEK + bin] };
    priorCache.set(g, p);
  }
  return p;
}

/** Key of one bin of one edge in the sets of changed bins: `edge × BINS_PER_WEEK + bin`. */
export function learnedBinKey(edge: number, bin: number): number {
  return edge * BINS_PER_WEEK + bin;
}

/** The edges and bins of `keys` (`learnedBinKey`), as two parallel arrays. */
export function splitBinKeys(keys: Iterable<number>): { edges: number[]; bins: number[] } {
  const edges: number[] = [];
  const bins: number[] = [];
  for (const k of keys) {
    const bin = k % BINS_PER_WEEK;
    edges.push((k - bin) / BINS_PER_WEEK);
    bins.push(bin);
  }
  return { edges, bins };
}

interface BinRow {
  edge_id: number;
  bin_of_week: number;
  samples: number;
  /** Σ length at speed, whole millimetres */
  sum_length_mm: number;
  /** Σ duration, whole milliseconds */
  sum_duration_ms: number;
}

/**
 * Loads learned profiles of `edges` (all edges when omitted) from the database into `feeds`.
 * Returns the number of edges given a profile.
 */
export async function loadLearnedProfiles(
  db: Queryable,
  g: Graph,
  feeds: SpeedFeeds,
  mapVersion: string,
  edges?: Iterable<number>,
  cfg: Partial<LearnedSpeedConfig> = {},
): Promise<number> {
  const c = { ...DEFAULT_LEARNED_SPEED_CONFIG, ...cfg };
  const ids = edges === undefined ? null : [...edges];
  const res = await db.query<BinRow>(
    `SELECT edge_id, bin_of_week, samples, sum_length_mm, sum_duration_ms FROM learned_speed_bins
     WHERE map_version = $1 AND ($2::int[] IS NULL OR edge_id = ANY($2::int[])) ORDER BY edge_id`,
    [mapVersion, intArrayLiteral(ids)],
  );
  const prior = predictedPrior(g);
  let count = 0;
  let cur = -1;
  // the bins of the current edge; written into its profile (in place) when the next edge starts
  const bins = new Int32Array(BINS_PER_WEEK);
  const kph = new Float64Array(BINS_PER_WEEK);
  let n = 0;
  const flush = (): void => {
    if (n > 0 && cur >= 0) {
      feeds.writeLearnedProfile(cur, bins, kph, n);
      count++;
    }
    n = 0;
  };
  for (const r of res.rows) {
    const e = Number(r.edge_id);
    if (e < 0 || e >= g.edgeCount) continue;
    if (e !== cur) {
      flush();
      cur = e;
    }
    const bin = Number(r.bin_of_week);
    if (!(bin >= 0 && bin < BINS_PER_WEEK) || n >= BINS_PER_WEEK) continue;
    const v = binKph(r, prior.speedKph(e, bin), c);
    if (Number.isNaN(v)) continue;
    bins[n] = bin;
    kph[n++] = v;
  }
  flush();
  return count;
}

/** The profile speed of one stored bin: its mean shrunk toward the prior, or NaN when too few samples back it. */
function binKph(r: BinRow, priorKph: number, c: LearnedSpeedConfig): number {
  const samples = Number(r.samples);
  const dur = Number(r.sum_duration_ms);
  if (samples < c.minSamples || !(dur > 0)) return Number.NaN;
  const meanKph = (Number(r.sum_length_mm) / dur) * 3.6;
  const k = c.priorWeightSamples;
  return (samples * meanKph + k * priorKph) / (samples + k);
}

/**
 * Reloads exactly the bins `keys` (`learnedBinKey`) of the learned profiles in `feeds` from the
 * database, leaving every other bin as it is: what a `speeds` change that names its bins needs
 * (a few rows per changed edge instead of all of its week). Returns the number of bins read.
 */
export async function loadLearnedBins(
  db: Queryable,
  g: Graph,
  feeds: SpeedFeeds,
  mapVersion: string,
  keys: Iterable<number>,
  cfg: Partial<LearnedSpeedConfig> = {},
): Promise<number> {
  const c = { ...DEFAULT_LEARNED_SPEED_CONFIG, ...cfg };
  const wanted = new Set<number>();
  for (const k of keys) {
    if (Number.isSafeInteger(k) && k >= 0 && k < g.edgeCount * BINS_PER_WEEK) wanted.add(k);
  }
  if (wanted.size === 0) return 0;
  const { edges, bins } = splitBinKeys(wanted);
  const res = await db.query<BinRow>(
    `SELECT b.edge_id, b.bin_of_week, b.samples, b.sum_length_mm, b.sum_duration_ms
     FROM unnest($2::int[], $3::int[]) AS k(edge_id, bin_of_week)
     JOIN learned_speed_bins b ON b.map_version = $1 AND b.edge_id = k.edge_id AND b.bin_of_week = k.bin_of_week`,
    [mapVersion, intArrayLiteral(edges), intArrayLiteral(bins)],
  );
  const prior = predictedPrior(g);
  for (const r of res.rows) {
    const e = Number(r.edge_id);
    const bin = Number(r.bin_of_week);
    const key = learnedBinKey(e, bin);
    if (!wanted.delete(key)) continue;
    feeds.setLearnedBin(e, bin, binKph(r, prior.speedKph(e, bin), c));
  }
  // bins with no stored row have nothing learned any more
  for (const key of wanted) {
    const bin = key % BINS_PER_WEEK;
    feeds.setLearnedBin((key - bin) / BINS_PER_WEEK, bin, Number.NaN);
  }
  return res.rows.length;
}

/** Options of `loadSpeedFeeds`. */
export interface LoadSpeedFeedsOptions {
  /** map version of the loaded region (edge ids are per import) */
  mapVersion: string;
  /** wall clock, unix seconds (live speeds of the last window are restored) */
  nowS: number;
  learned?: Partial<LearnedSpeedConfig>;
  liveWindowS?: number;
}

/**
 * Server start-up: fills `feeds` with every learned profile and the still-fresh live speeds
 * stored for this map version. Returns how many edges got each.
 * @example
 * await loadSpeedFeeds(db, region.graph, speeds, { mapVersion: region.meta.mapVersion, nowS: Date.now() / 1000 });
 */
export async function loadSpeedFeeds(
  db: Queryable,
  g: Graph,
  feeds: SpeedFeeds,
  opts: LoadSpeedFeedsOptions,
): Promise<{ learnedEdges: number; liveEdges: number }> {
  const learnedEdges = await loadLearnedProfiles(db, g, feeds, opts.mapVersion, undefined, opts.learned);
  const liveEdges = await refreshLiveSpeeds(
    db,
    feeds,
    opts.mapVersion,
    opts.nowS,
    undefined,
    opts.liveWindowS === undefined ? {} : { windowS: opts.liveWindowS },
  );
  return { learnedEdges, liveEdges };
}
