/**
 * The speeds a time-window table bounds: for every edge, the fastest speed the traffic model can
 * produce for it anywhere in a window's coverage (predicted and learned profile values of every
 * bin the coverage touches, live speeds, with headroom on probe speeds, clamped like the model),
 * and the check that a table's bounds still dominate the feeds.
 */
import { BINS_PER_WEEK } from '../../traffic/feeds.js';
import { BIN_SECONDS } from '../../traffic/clock.js';
import { PROFILE_GROUPS } from '../../traffic/profiles.js';
import type { TrafficModel } from '../../traffic/model.js';
import type { WindowTable } from './window-bounds.js';

/** Factor above an edge's live speed its bound allows, so the next live values rarely exceed it. */
const LIVE_HEADROOM = 1.5;
/** Factor above an edge's learned speeds its bound allows (learned values move slowly). */
const LEARNED_HEADROOM = 1.2;

/** Bins (mod 672) whose values can influence a speed at an instant of the coverage. */
export function coverageBins(bin: number, horizonS: number): number[] {
  // speed at w interpolates bins floor(w/BIN − 0.5) and the next one
  const startW = bin * BIN_SECONDS;
  const endW = startW + BIN_SECONDS + horizonS;
  const first = Math.floor(startW / BIN_SECONDS - 0.5);
  const last = Math.floor(endW / BIN_SECONDS - 0.5) + 1;
  const out: number[] = [];
  for (let b = first; b <= last && out.length < BINS_PER_WEEK; b++)
    out.push(((b % BINS_PER_WEEK) + BINS_PER_WEEK) % BINS_PER_WEEK);
  return out;
}

/** Upper bound of every edge's speed over the coverage of `bin` + `horizonS`, km/h. */
export function boundSpeeds(m: TrafficModel, bin: number, horizonS: number): Float64Array {
  const g = m.graph;
  const bins = coverageBins(bin, horizonS);
  const groupMax = new Float64Array(PROFILE_GROUPS);
  for (let gr = 0; gr < PROFILE_GROUPS; gr++) {
    let mx = 0;
    for (const b of bins) mx = Math.max(mx, m.factors[gr * BINS_PER_WEEK + b]);
    groupMax[gr] = mx;
  }
  const out = new Float64Array(g.edgeCount);
  const minKph = m.cfg.minSpeedKph;
  for (let e = 0; e < g.edgeCount; e++) out[e] = clamp(m, e, m.freeFlowKph[e] * groupMax[m.profileGroup[e]], minKph);
  const feeds = m.feeds;
  // Edges with probe speeds get headroom above what they show now (still clamped to the model's
  // ceiling): a feed moves them every few seconds, and a bound one value exceeds makes the whole
  // table unusable until it is rebuilt. Looser bounds on those edges only cost a few labels.
  if (feeds.learnedEdgeCount > 0) {
    for (let e = 0; e < g.edgeCount; e++) {
      if (!feeds.hasLearned(e)) continue;
      const v = clamp(m, e, learnedMax(m, e, bins) * LEARNED_HEADROOM, minKph);
      if (v > out[e]) out[e] = v;
    }
  }
  for (const [e, live] of feeds.liveEntries()) {
    const v = clamp(m, e, live.speedKph * LIVE_HEADROOM, minKph);
    if (v > out[e]) out[e] = v;
  }
  return out;
}

/** The fastest learned speed of edge e in `bins`, km/h (0 when none). */
function learnedMax(m: TrafficModel, e: number, bins: number[]): number {
  let mx = 0;
  for (const b of bins) {
    const v = m.feeds.learnedSpeedKph(e, b);
    if (v > mx) mx = v;
  }
  return mx;
}

/** A speed of edge e clamped as the model clamps speeds: at most its upper bound, at least `minKph`. */
function clamp(m: TrafficModel, e: number, kph: number, minKph: number): number {
  const up = m.upperKph[e];
  let v = kph > up ? up : kph;
  if (!(v >= minKph)) v = minKph;
  return v;
}

/**
 * True when no live or learned speed can exceed the table's bounds: only the edges whose speeds
 * changed since the table was last checked are looked at (all edges when the feeds no longer
 * know that far back).
 */
export function stillBounds(model: TrafficModel, t: WindowTable): boolean {
  const feeds = model.feeds;
  const minKph = model.cfg.minSpeedKph;
  const bound = t.boundKph;
  const m = model.graph.edgeCount;
  const changed = feeds.changedSince(t.feedsVersion);
  let bins: number[] | null = null;
  const exceeds = (e: number): boolean => {
    const live = feeds.liveSpeed(e);
    if (live !== undefined && clamp(model, e, live.speedKph, minKph) > bound[e]) return true;
    if (!feeds.hasLearned(e)) return false;
    if (bins === null)
      bins = coverageBins(Math.round(t.binStartWeekS / BIN_SECONDS), t.coverEndWeekS - t.binStartWeekS - BIN_SECONDS);
    return clamp(model, e, learnedMax(model, e, bins), minKph) > bound[e];
  };
  if (changed !== null) {
    for (let i = 0; i < changed.length; i++) {
      const e = changed[i];
      if (e >= 0 && e < m && exceeds(e)) return false;
    }
    return true;
  }
  for (const [e] of feeds.liveEntries()) if (e >= 0 && e < m && exceeds(e)) return false;
  if (feeds.learnedEdgeCount > 0) for (let e = 0; e < m; e++) if (exceeds(e)) return false;
  return true;
}
