/**
 * Time-warped lower bounds: a static metric that follows the rise and fall of speeds over a
 * time window.
 *
 * A static lower-bound metric must cost each edge at its fastest speed anywhere in the window, so
 * when speeds rise after a peak an edge near the origin (reached early, still slow) is bounded by
 * the speed it only reaches later. The warp measures time in "work" instead: a reference rate
 * R(s) > 0 (here the speed factor of the main road group over the window) and its integral
 * W(t) = ∫ R. Every edge f gets a work a_f with
 *
 *     ∫ from t to t + tt_f(t) of R(s) ds  ≥  a_f      for every entry time t in the window,
 *
 * and every turn delay likewise. Then along any path from a label at time τ the arrival A
 * satisfies W(A) − W(τ) ≥ Σ work ≥ Ω (the exact work distance from the CCH potential), hence
 *
 *     A − τ  ≥  W⁻¹(W(τ) + Ω) − τ,
 *
 * an admissible time bound that is tight when each group's speed moves with R. The proof needs
 * nothing else: R may be any positive function, so it is a step function on `cellS` cells, and a_f
 * is derived from R and the traffic model's speed ceilings with worst cases taken cell by cell:
 *
 * - predicted edges (speed = free flow × the group's factor, interpolated between bin centres,
 *   so on a cell at most the larger end value): a_f = ffTime_f × κ(group, window length), with
 *   κ = min over entry cells k of (min R over the cells a traversal from k can span) / (max factor on k);
 * - edges whose speed is not a group factor (learned profile, live speed, the model's speed floor
 *   in play): a constant ceiling B_f over the window, a_f = (len / B_f) × min R;
 * - turn delays (time independent): tc × min R.
 *
 * Beyond the last cell R stays at its last value, so W is defined for every time.
 */
import type { SpeedFeeds } from '../../traffic/feeds.js';
import { PROFILE_GROUPS } from '../../traffic/profiles.js';
import type { TrafficModel } from '../../traffic/model.js';
import type { TripUse } from './trip-use.js';

/** Cell length of the warp, seconds (divides the 450 s between a bin start and its centre). */
export const WARP_CELL_S = 10;

/** A positive step-function rate and its integral, from a start instant. */
export class TimeWarp {
  /** work at the start of each cell (cum[0] = 0), length cells + 1 */
  readonly cum: Float64Array;
  private readonly bucketsPerWork: number;
  private readonly bucketCell: Int32Array;

  constructor(
    /** local second of the week where cell 0 starts */
    readonly startWeekS: number,
    readonly cellS: number,
    /** rate of each cell, > 0 */
    readonly rate: Float64Array,
  ) {
    const n = rate.length;
    const cum = new Float64Array(n + 1);
    for (let k = 0; k < n; k++) cum[k + 1] = cum[k] + rate[k] * cellS;
    this.cum = cum;
    // bucketCell[j] = the cell where work j / bucketsPerWork falls (n buckets over the total)
    this.bucketsPerWork = n / cum[n];
    this.bucketCell = new Int32Array(n + 1);
    for (let j = 0, k = 0; j <= n; j++) {
      const y = j / this.bucketsPerWork;
      while (k < n - 1 && cum[k + 1] <= y) k++;
      this.bucketCell[j] = k;
    }
  }

  /** Work from the start to `x` seconds after it (x ≥ 0). */
  work(x: number): number {
    const n = this.rate.length;
    const k = Math.floor(x / this.cellS);
    if (k >= n) return this.cum[n] + this.rate[n - 1] * (x - n * this.cellS);
    if (k < 0) return this.rate[0] * x;
    return this.cum[k] + this.rate[k] * (x - k * this.cellS);
  }

  /** Seconds after the start at which `y` work is done. */
  inverse(y: number): number {
    const cum = this.cum,
      rate = this.rate,
      n = rate.length;
    if (y >= cum[n]) return n * this.cellS + (y - cum[n]) / rate[n - 1];
    if (y <= 0) return y / rate[0];
    // bucket of equal work → first cell that can hold y, then a short scan (rates vary ≤ ~5×)
    let k = this.bucketCell[Math.floor(y * this.bucketsPerWork)];
    while (cum[k + 1] <= y) k++;
    return k * this.cellS + (y - cum[k]) / rate[k];
  }

  /**
   * Lower bound of the time (s) to do `omega` work from `x` seconds after the start — the search's
   * per-label conversion, so `work` and `inverse` are written out here without calls.
   */
  remainingS(x: number, omega: number): number {
    const cum = this.cum,
      rate = this.rate,
      n = rate.length,
      c = this.cellS;
    let k = Math.floor(x / c);
    let y: number;
    if (k >= n) y = cum[n] + rate[n - 1] * (x - n * c);
    else {
      if (k < 0) k = 0;
      y = cum[k] + rate[k] * (x - k * c);
    }
    y += omega;
    let t: number;
    if (y >= cum[n]) t = n * c + (y - cum[n]) / rate[n - 1];
    else if (y <= 0) t = y / rate[0];
    else {
      // the cell holding y is at least x's cell and at least its work bucket's cell
      let j = this.bucketCell[Math.floor(y * this.bucketsPerWork)];
      if (j < k) j = k;
      while (cum[j + 1] <= y) j++;
      t = j * c + (y - cum[j]) / rate[j];
    }
    const r = t - x;
    return r > 0 ? r : 0;
  }
}

/** Edge and turn works of one window, and the ceilings they assume. */
export interface WarpedMetric {
  warp: TimeWarp;
  /** work of each edge (without turns) */
  edgeWork: Float32Array;
  /** work per second of turn delay */
  turnScale: number;
  /**
   * speed (km/h) below which a live or learned speed keeps this metric valid: the edge's constant
   * ceiling, or for predicted edges the lowest of its cell ceilings
   */
  boundKph: Float64Array;
  /** which curve the rate follows (for statistics) */
  reference: string;
}

/** The window: entry instants [startWeekS, coverEndWeekS] (local week seconds, unwrapped). */
export interface WarpWindow {
  startWeekS: number;
  coverEndWeekS: number;
}

/** Traversals longer than this are bounded with the rate's minimum to the end (seconds). */
const PAD_S = 900;

/**
 * Builds the warped metric of a window. `staticKph[e]` = constant speed ceiling of edges that are
 * not plain predicted ones (NaN for predicted edges): learned and live edges, computed by the
 * caller from the feeds as for a static window metric.
 */
export function buildWarpedMetric(
  model: TrafficModel,
  win: WarpWindow,
  staticKph: Float64Array,
  use: TripUse,
  maxTurnS: number,
  cellS = WARP_CELL_S,
): WarpedMetric {
  const g = model.graph;
  const nEntry = Math.floor((win.coverEndWeekS - win.startWeekS) / cellS) + 1;
  const n = nEntry + Math.ceil(PAD_S / cellS);
  const { gmax, gminEntry } = groupCeilings(model, win, cellS, n, nEntry);
  const { predicted, weightOf } = predictedEdges(model, staticKph, use, gminEntry);
  const { rate, reference } = referenceRate(model, win, cellS, n, nEntry, gmax, weightOf, use.turns);
  const mins = new SlidingMin(rate, nEntry);
  const levels = mins.levels;
  const kappa = groupKappa(mins, gmax, nEntry);
  const m = g.edgeCount;
  const edgeWork = new Float32Array(m);
  const boundKph = new Float64Array(m);
  const lengthM = g.edgeLengthM,
    ffKph = model.freeFlowKph,
    upKph = model.upperKph,
    group = model.profileGroup;
  for (let e = 0; e < m; e++) {
    const len36 = lengthM[e] * 3.6;
    if (predicted[e]) {
      const gr = group[e];
      const ffT = len36 / ffKph[e];
      const c = levelOf(ffT / gminEntry[gr], cellS, levels);
      // Float32 rounding is absorbed by the search's 0.9999 shave
      edgeWork[e] = ffT * kappa[gr * levels + c];
      const up = upKph[e];
      const v = ffKph[e] * gminEntry[gr];
      boundKph[e] = v > up ? up : v;
    } else {
      const b = staticKph[e] === staticKph[e] ? staticKph[e] : upKph[e];
      const d = len36 / b;
      edgeWork[e] = d * mins.minOver(levelOf(d, cellS, levels));
      boundKph[e] = b;
    }
  }
  const turnScale = mins.minOver(levelOf(maxTurnS, cellS, mins.levels));
  return { warp: new TimeWarp(win.startWeekS, cellS, rate), edgeWork, turnScale, boundKph, reference };
}

/**
 * Per profile group: gmax[gr][k] = max factor on cell k (linear inside a cell: the larger end), a
 * hair up for rounding, and the lowest of those over the entry cells.
 */
function groupCeilings(
  model: TrafficModel,
  win: WarpWindow,
  cellS: number,
  n: number,
  nEntry: number,
): { gmax: Float64Array[]; gminEntry: Float64Array } {
  const gmax: Float64Array[] = [];
  const gminEntry = new Float64Array(PROFILE_GROUPS);
  for (let gr = 0; gr < PROFILE_GROUPS; gr++) {
    const a = new Float64Array(n);
    let prev = model.predictedFactor(gr, win.startWeekS);
    let mn = Infinity;
    for (let k = 0; k < n; k++) {
      const next = model.predictedFactor(gr, win.startWeekS + (k + 1) * cellS);
      a[k] = Math.max(prev, next) * (1 + 1e-9);
      if (k < nEntry && a[k] < mn) mn = a[k];
      prev = next;
    }
    gmax.push(a);
    gminEntry[gr] = mn;
  }
  return { gmax, gminEntry };
}

/** The edges bounded by their group's factor (predicted), and each group's share of trip time. */
function predictedEdges(
  model: TrafficModel,
  staticKph: Float64Array,
  use: TripUse,
  gminEntry: Float64Array,
): { predicted: Uint8Array; weightOf: Float64Array } {
  const m = model.graph.edgeCount;
  const weightOf = new Float64Array(PROFILE_GROUPS);
  const minKph = model.cfg.minSpeedKph;
  const predicted = new Uint8Array(m);
  const useOf = use.edge;
  for (let e = 0; e < m; e++) {
    const gr = model.profileGroup[e];
    // the model floors speeds at minKph: where the floor can bind, the factor is no ceiling
    if (!(staticKph[e] === staticKph[e]) && model.freeFlowKph[e] * gminEntry[gr] >= minKph) {
      predicted[e] = 1;
      weightOf[gr] += useOf[e];
    }
  }
  return { predicted, weightOf };
}

/**
 * The reference rate: the curve that bounds the trip-weighted mix of groups and turns most
 * tightly (a group's factor curve, or a blend of it with a constant, or a constant).
 */
function referenceRate(
  model: TrafficModel,
  win: WarpWindow,
  cellS: number,
  n: number,
  nEntry: number,
  gmax: Float64Array[],
  weightOf: Float64Array,
  turns: number,
): { rate: Float64Array; reference: string } {
  let bestScore = -Infinity;
  let rate: Float64Array = new Float64Array(n).fill(1);
  let reference = 'constant';
  const candidates: Array<[string, Float64Array]> = [['constant', rate]];
  for (let gr = 0; gr < PROFILE_GROUPS; gr++) {
    if (weightOf[gr] === 0) continue;
    for (const lambda of [0, 0.25, 0.5]) {
      const r = new Float64Array(n);
      for (let k = 0; k < n; k++)
        r[k] = lambda + (1 - lambda) * model.predictedFactor(gr, win.startWeekS + (k + 0.5) * cellS);
      candidates.push([lambda === 0 ? `group ${gr}` : `group ${gr} + ${lambda}`, r]);
    }
  }
  for (const [name, r] of candidates) {
    if (!r.every((x) => x > 0)) continue;
    const score = tightness(r, gmax, weightOf, turns, nEntry);
    if (score > bestScore) {
      bestScore = score;
      rate = r;
      reference = name;
    }
  }
  return { rate, reference };
}

/** κ per group and traversal level, flat (group × levels): min over entry cells of min rate / group ceiling. */
function groupKappa(mins: SlidingMin, gmax: Float64Array[], nEntry: number): Float64Array {
  const levels = mins.levels;
  const kappa = new Float64Array(PROFILE_GROUPS * levels);
  for (let gr = 0; gr < PROFILE_GROUPS; gr++) {
    for (let c = 0; c < levels; c++) {
      let mn = Infinity;
      const lc = mins.level(c);
      for (let k = 0; k < nEntry; k++) {
        const v = lc[k] / gmax[gr][k];
        if (v < mn) mn = v;
      }
      kappa[gr * levels + c] = mn;
    }
  }
  return kappa;
}

/**
 * Trip-weighted mean over entry cells, groups and turns of (bound / ceiling) time for a candidate
 * rate: 1 when every part is bounded exactly at every instant.
 */
function tightness(
  r: Float64Array,
  gmax: Float64Array[],
  weightOf: Float64Array,
  turnWeight: number,
  nEntry: number,
): number {
  let score = 0,
    total = 0;
  if (turnWeight > 0) {
    let mn = Infinity;
    for (let k = 0; k < nEntry; k++) mn = Math.min(mn, r[k]);
    let s = 0;
    for (let k = 0; k < nEntry; k++) s += mn / r[k];
    score += (turnWeight * s) / nEntry;
    total += turnWeight;
  }
  for (let gr = 0; gr < gmax.length; gr++) {
    if (weightOf[gr] === 0) continue;
    let kap = Infinity;
    for (let k = 0; k < nEntry; k++) kap = Math.min(kap, r[k] / gmax[gr][k]);
    let s = 0;
    for (let k = 0; k < nEntry; k++) s += (kap * gmax[gr][k]) / r[k];
    score += (weightOf[gr] * s) / nEntry;
    total += weightOf[gr];
  }
  return total > 0 ? score / total : 0;
}

/**
 * The sliding-minimum level whose 2^c cells hold any traversal of at most `durationS` from any
 * instant of a cell (the last of `levels` covers everything to the end).
 */
function levelOf(durationS: number, cellS: number, levels: number): number {
  const cells = Math.ceil(durationS / cellS) + 1; // ≥ 1
  const c = cells <= 1 ? 0 : 32 - Math.clz32(cells - 1); // ⌈log2(cells)⌉
  return c < levels ? c : levels - 1;
}

/** Minimum of a rate over the 2^c cells from each entry cell (the suffix min past the end). */
class SlidingMin {
  private readonly table: Float64Array[] = [];
  /** per level, the minimum over all entry cells */
  private readonly entryMin: number[] = [];

  constructor(
    rate: Float64Array,
    readonly nEntry: number,
  ) {
    const n = rate.length;
    let cur = Float64Array.from(rate);
    for (let span = 1; ; span *= 2) {
      this.table.push(cur);
      let mn = Infinity;
      for (let k = 0; k < nEntry; k++) if (cur[k] < mn) mn = cur[k];
      this.entryMin.push(mn);
      if (span >= n) break;
      const next = new Float64Array(n);
      // cells past the end have the last cell's rate, which is part of every suffix
      for (let k = 0; k < n; k++) next[k] = k + span < n ? Math.min(cur[k], cur[k + span]) : cur[k];
      cur = next;
    }
  }

  get levels(): number {
    return this.table.length;
  }

  level(c: number): Float64Array {
    return this.table[c];
  }

  minOver(c: number): number {
    return this.entryMin[c];
  }
}

/** Constant speed ceilings (km/h) of the edges whose speed is not a plain group factor in the window, NaN elsewhere. */
export function staticCeilings(model: TrafficModel, feeds: SpeedFeeds, boundKph: Float64Array): Float64Array {
  const out = new Float64Array(model.graph.edgeCount).fill(NaN);
  if (feeds.learnedEdgeCount > 0) for (let e = 0; e < out.length; e++) if (feeds.hasLearned(e)) out[e] = boundKph[e];
  for (const [e] of feeds.liveEntries()) if (e >= 0 && e < out.length) out[e] = boundKph[e];
  return out;
}
