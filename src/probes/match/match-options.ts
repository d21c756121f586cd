/** The map matcher's parameters (emission, transition, splitting) and the statistics of a `match` call. */

/** Parameters of the matcher (defaults in `DEFAULT_MATCH_OPTIONS`). */
export interface MatchOptions {
  /** candidate search radius around each ping, metres */
  searchRadiusM: number;
  /** candidates kept per ping (closest first) */
  maxCandidates: number;
  /** GPS error standard deviation of the emission model, metres */
  gpsSigmaM: number;
  /** transition scale β, metres, at 1 s between pings */
  betaM: number;
  /** growth of β per second between pings, metres/s (sparse sampling tolerates longer detours) */
  betaPerSecondM: number;
  /** split the trace when two pings are further apart in time, seconds */
  maxGapS: number;
  /** split when the straight-line speed between two pings exceeds this, km/h */
  maxSpeedKph: number;
  /** a ping may project behind the previous one on the same edge by this much (GPS noise), metres */
  backwardToleranceM: number;
  /** extra route distance charged for a U-turn at a node that is not a dead end, metres */
  uTurnPenaltyM: number;
  /** consecutive unreachable pings skipped as outliers before the trace is split */
  maxOutliers: number;
  /** log-probability charged per ping matched to a service road (alleys, parking aisles, driveways) */
  serviceRoadPenalty: number;
  /** log-probability charged for an edge running opposite to the ping's reported heading (scaled by (1 − cos Δ)/2) */
  headingPenalty: number;
  /** reported headings are used only at or above this reported speed, km/h (headings of stopped GPS units wander) */
  headingMinSpeedKph: number;
  /** node times: along-path position error of a ping, standard deviation, metres (`path-smoother.ts`) */
  positionSigmaM: number;
  /** node times: error of a reported speed, standard deviation, m/s */
  speedSigmaMps: number;
  /** node times: typical acceleration the trapezoid of two reported speeds misses between pings, m/s² */
  accelerationSigmaMps2: number;
  /** node times: how far the lane driven through a turn may differ from the centre-line path, metres per radian */
  turnSigmaM: number;
}

/** Default matching parameters (documented in docs/probes.md). */
export const DEFAULT_MATCH_OPTIONS: Readonly<MatchOptions> = Object.freeze({
  searchRadiusM: 50,
  maxCandidates: 10,
  gpsSigmaM: 10,
  betaM: 5,
  betaPerSecondM: 0.5,
  maxGapS: 120,
  maxSpeedKph: 200,
  backwardToleranceM: 30,
  uTurnPenaltyM: 100,
  maxOutliers: 2,
  serviceRoadPenalty: 1,
  headingPenalty: 2,
  headingMinSpeedKph: 5,
  positionSigmaM: 4,
  speedSigmaMps: 0.5,
  accelerationSigmaMps2: 3,
  turnSigmaM: 8,
});

/** Statistics of one `match` call. */
export interface MatchStats {
  pings: number;
  /** pings dropped: no candidate within the radius, or unreachable outliers */
  unmatchedPings: number;
  /** pieces produced (≥ 1 per trace with matched pings) */
  parts: number;
}
