/**
 * Synthetic GPS traces along known routes, for measuring map-matching accuracy and speed: a
 * random drive (no U-turns, turn restrictions respected) and noisy pings sampled along it.
 */
import { EdgeFlag, RoadClass, TurnRestrictions, type EdgeId, type Graph } from '../network/graph.js';
import type { Ping } from '../probes/trajectory.js';
import { M_PER_DEG } from '../geo/index.js';
import { EdgeOffsets } from '../network/edge-offsets.js';
import type { Rng } from './prng.js';

/** Metres per degree of latitude. */

/**
 * A random drive of at least `minLengthM` metres over routable car edges: at each node a random
 * allowed successor other than the U-turn, never reusing an edge. Drives that run into a dead end
 * early are retried from another start (up to 100 times); the longest attempt is returned.
 */
export function randomDrive(g: Graph, rng: Rng, minLengthM: number, turns = new TurnRestrictions(g)): EdgeId[] {
  const usable = (e: number): boolean =>
    (g.edgeFlags[e] & EdgeFlag.routable) !== 0 &&
    g.edgeRoadClass[e] !== RoadClass.ferry &&
    g.edgeRoadClass[e] !== RoadClass.service;
  let best: EdgeId[] = [];
  let bestM = -1;
  for (let attempt = 0; attempt < 100; attempt++) {
    let e = rng.int(g.edgeCount);
    for (let tries = 0; !usable(e) && tries < 100_000; tries++) e = rng.int(g.edgeCount);
    const route: EdgeId[] = [e];
    let lengthM = g.edgeLengthM[e];
    const seen = new Set<number>([e]);
    while (lengthM < minLengthM) {
      const node = g.edgeTarget[e];
      const options: number[] = [];
      for (let f = g.firstOut[node]; f < g.firstOut[node + 1]; f++) {
        if (f !== g.edgeTwin[e] && usable(f) && !seen.has(f) && turns.isTurnAllowed(e, f)) options.push(f);
      }
      if (options.length === 0) break;
      e = options[rng.int(options.length)];
      seen.add(e);
      route.push(e);
      lengthM += g.edgeLengthM[e];
    }
    if (lengthM > bestM) {
      best = route;
      bestM = lengthM;
    }
    if (lengthM >= minLengthM) break;
  }
  return best;
}

/** Options of `samplePings`. */
export interface SampleOptions {
  /** seconds between pings */
  intervalS: number;
  /** standard deviation of the position noise per axis, metres */
  noiseM: number;
  /** unix seconds of the first ping */
  startS: number;
  /** driving speed as a share of each edge's speed limit */
  speedFactor?: number;
}

/** A sampled trace with ground truth: pings plus the edge each ping was really on. */
export interface SyntheticTrace {
  pings: Ping[];
  trueEdges: EdgeId[];
}

/** Drives `route` at a share of each edge's limit and records noisy pings every `intervalS`. */
export function samplePings(
  g: Graph,
  route: readonly EdgeId[],
  rng: Rng,
  opts: SampleOptions,
  geometry = new EdgeOffsets(g),
): SyntheticTrace {
  const pings: Ping[] = [];
  const trueEdges: EdgeId[] = [];
  const factor = opts.speedFactor ?? 0.8;
  let t = 0;
  let nextPing = 0;
  for (const e of route) {
    const speedMs = Math.max(2, (g.edgeSpeedKph[e] * factor) / 3.6);
    const durS = g.edgeLengthM[e] / speedMs;
    while (nextPing <= t + durS) {
      const [lat, lon] = geometry.pointAt(e, (nextPing - t) * speedMs);
      const dy = rng.normal() * opts.noiseM;
      const dx = rng.normal() * opts.noiseM;
      pings.push({
        tS: opts.startS + nextPing,
        lat: lat + dy / M_PER_DEG,
        lon: lon + dx / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)),
      });
      trueEdges.push(e);
      nextPing += opts.intervalS;
    }
    t += durS;
  }
  return { pings, trueEdges };
}

/** Edge-level accuracy of a match against the driven route. */
export interface MatchAccuracy {
  /** share of driven edges (between the first and last ping) that appear in the match */
  recall: number;
  /** share of matched edges that were really driven */
  precision: number;
  /** share of pings placed on the edge they were really on */
  pingAccuracy: number;
}

/** Scores matched edges and per-ping edges against the truth. */
export function scoreMatch(
  trace: SyntheticTrace,
  route: readonly EdgeId[],
  matchedEdges: readonly EdgeId[],
  pingEdges: ReadonlyMap<number, EdgeId>,
): MatchAccuracy {
  const first = route.indexOf(trace.trueEdges[0]);
  const last = route.indexOf(trace.trueEdges[trace.trueEdges.length - 1]);
  const driven = new Set(route.slice(first, last + 1));
  const matched = new Set(matchedEdges);
  let hit = 0;
  for (const e of driven) if (matched.has(e)) hit++;
  let good = 0;
  for (const e of matched) if (driven.has(e)) good++;
  let pingsOk = 0;
  trace.trueEdges.forEach((e, i) => {
    if (pingEdges.get(i) === e) pingsOk++;
  });
  return {
    recall: driven.size ? hit / driven.size : 1,
    precision: matched.size ? good / matched.size : 0,
    pingAccuracy: trace.trueEdges.length ? pingsOk / trace.trueEdges.length : 1,
  };
}
