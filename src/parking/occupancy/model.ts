/**
 * Occupancy model for lots and block segments. Expected occupancy comes from a profile per
 * category (weekday and weekend, hourly anchors interpolated into the 672 fifteen-minute bins of the
 * week, bin 0 = Monday 00:00 local); live observations (operator counts, feeds, park events,
 * reservations) correct it: the residual of the latest observation (observed − expected at that
 * time) is added to the prediction and decays with a 90-minute time constant.
 *
 * probability = P(at least one free space) with occupied spaces ~ Normal(pct·N, σ²),
 * σ² = N·p·(1−p) + (0.3·N·p·(1−p))² (binomial noise plus day-to-day variation, both vanishing
 * when the facility is certainly empty or full), continuity-corrected.
 * bucket: 1 red below 35 %, 2 yellow 35–70 %, 3 green from 70 %.
 */

/** Bins per week (15 minutes each). */
export const BINS_PER_WEEK = 672;
/** Time constant of an observation's influence, minutes. */
export const OBSERVATION_DECAY_MIN = 90;
/** Observations older than this (minutes before the entry time) are ignored. */
export const OBSERVATION_MAX_AGE_MIN = 180;
/** Probability (percent) from which the bucket is 2 yellow. */
export const BUCKET_YELLOW_FROM_PCT = 35;
/** Probability (percent) from which the bucket is 3 green. */
export const BUCKET_GREEN_FROM_PCT = 70;

/** Hourly occupancy (percent) anchors: [weekday 24 values, weekend 24 values]. */
const PROFILES: Record<string, [number[], number[]]> = {
  'Public Parking': [
    [20, 15, 12, 10, 10, 12, 20, 40, 65, 80, 85, 88, 90, 88, 85, 82, 75, 65, 55, 50, 45, 40, 32, 25],
    [20, 15, 12, 10, 10, 10, 12, 18, 28, 40, 55, 65, 70, 70, 68, 65, 60, 58, 55, 52, 45, 38, 30, 24],
  ],
  'On-street': [
    [45, 42, 40, 40, 40, 42, 50, 62, 75, 82, 85, 88, 90, 88, 86, 85, 82, 78, 72, 68, 62, 56, 50, 47],
    [50, 47, 45, 44, 44, 44, 46, 50, 58, 66, 74, 80, 82, 82, 80, 78, 76, 75, 74, 72, 66, 60, 55, 52],
  ],
  University: [
    [8, 5, 5, 5, 5, 8, 15, 40, 70, 85, 90, 90, 88, 88, 85, 78, 65, 50, 40, 32, 25, 18, 12, 10],
    [8, 5, 5, 5, 5, 5, 8, 10, 15, 20, 25, 28, 30, 30, 28, 25, 22, 20, 18, 15, 12, 10, 8, 8],
  ],
  Hospital: [
    [35, 30, 30, 30, 30, 35, 50, 70, 85, 90, 92, 92, 90, 90, 88, 85, 75, 62, 55, 50, 45, 42, 40, 38],
    [30, 28, 28, 28, 28, 30, 35, 45, 55, 62, 68, 70, 70, 68, 65, 62, 58, 52, 48, 45, 40, 36, 34, 32],
  ],
  'Venue Lot': [
    [5, 5, 5, 5, 5, 5, 5, 8, 10, 12, 15, 18, 20, 20, 20, 22, 28, 45, 70, 80, 75, 55, 25, 10],
    [8, 5, 5, 5, 5, 5, 5, 8, 12, 18, 28, 40, 55, 65, 70, 68, 62, 60, 72, 80, 75, 55, 28, 12],
  ],
  Hotel: [
    [75, 78, 80, 80, 80, 78, 70, 60, 50, 45, 42, 42, 45, 48, 52, 58, 62, 66, 70, 72, 74, 75, 76, 76],
    [80, 82, 84, 84, 84, 82, 78, 70, 62, 55, 50, 50, 52, 55, 58, 62, 66, 70, 74, 76, 78, 80, 80, 80],
  ],
  'Airport Adjacent': [
    [70, 70, 70, 70, 70, 72, 75, 78, 80, 80, 80, 80, 80, 80, 80, 80, 80, 78, 76, 74, 72, 71, 70, 70],
    [72, 72, 72, 72, 72, 72, 74, 76, 78, 78, 78, 78, 78, 78, 78, 78, 78, 77, 76, 75, 74, 73, 72, 72],
  ],
  'Park N Ride': [
    [5, 5, 5, 5, 8, 20, 50, 80, 90, 92, 92, 90, 88, 88, 85, 80, 65, 45, 28, 18, 12, 8, 6, 5],
    [5, 5, 5, 5, 5, 8, 12, 18, 25, 30, 32, 32, 30, 28, 26, 24, 20, 16, 12, 10, 8, 6, 5, 5],
  ],
};
PROFILES.Unknown = PROFILES['Public Parking'];

/** Expected occupancy percent for a profile at a week bin (0 = Monday 00:00–00:15 local). */
export function expectedPct(category: string, bin: number): number {
  const [weekday, weekend] = PROFILES[category] ?? PROFILES.Unknown;
  const day = Math.floor(bin / 96); // 0 Monday … 6 Sunday
  const inDay = bin % 96;
  const hour = Math.floor(inDay / 4);
  const frac = (inDay % 4) / 4;
  const curve = day >= 5 ? weekend : weekday;
  const nextIsWeekend = (day + (hour === 23 ? 1 : 0)) % 7 >= 5;
  const next = hour === 23 ? (nextIsWeekend ? weekend : weekday)[0] : curve[hour + 1];
  return curve[hour] + (next - curve[hour]) * frac;
}

/** One observation of a facility's occupancy. */
export interface OccupancyObservation {
  /** unix seconds */
  observedAtS: number;
  occupied: number;
  /** capacity at observation time (null = the facility's) */
  capacity: number | null;
  /** 'operator' manual count, 'feed' automated, 'park_events', 'reservations' */
  source: string;
}

/** The `occupancy` object of a lot (and the inputs of a block's probability). */
export interface OccupancyEstimate {
  /** percent occupied, 0..100 */
  pct: number;
  /** free spaces */
  available: number;
  /** percent chance of at least one free space */
  probability: number;
  bucket: 1 | 2 | 3;
  /** trust level of the source: 2 prediction, 3 automated feed, 5 manual update */
  rank: number;
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 via erf). */
function normalCdf(z: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(z)) / Math.SQRT2);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/** Probability (percent, 0..100) of at least one free space among `capacity` at `pct` occupancy. */
export function freeSpaceProbability(pct: number, capacity: number): number {
  if (capacity <= 0) return 0;
  const p = Math.min(1, Math.max(0, pct / 100));
  const mean = p * capacity;
  const spread = 0.3 * capacity * p * (1 - p);
  const sd = Math.sqrt(capacity * p * (1 - p) + spread * spread);
  if (sd === 0) return mean < capacity ? 100 : 0;
  return Math.round(100 * normalCdf((capacity - 0.5 - mean) / sd));
}

/** Colour bucket of a probability: 1 red, 2 yellow, 3 green. */
export function bucketOf(probabilityPct: number): 1 | 2 | 3 {
  if (probabilityPct >= BUCKET_GREEN_FROM_PCT) return 3;
  if (probabilityPct >= BUCKET_YELLOW_FROM_PCT) return 2;
  return 1;
}

/** Converts unix seconds + IANA zone offset (seconds) into the week bin. */
export function weekBin(unixS: number, offsetS: number): number {
  const local = unixS + offsetS;
  // 1970-01-01 was a Thursday (bin 3·96 of its week)
  const minutes = Math.floor(local / 60);
  const days = Math.floor(minutes / 1440);
  const dayOfWeek = (((days + 3) % 7) + 7) % 7; // 0 Monday
  return dayOfWeek * 96 + Math.floor((((minutes % 1440) + 1440) % 1440) / 15);
}

/**
 * Unrounded occupancy percent of a facility at `atS` (unix seconds) with UTC offset `offsetS`:
 * the profile corrected by the latest observation at or before `atS` and at most 3 h old (on equal
 * times the one listed last wins), and the trust rank of that source.
 */
export function occupancyPctAt(
  category: string,
  capacity: number | null,
  atS: number,
  offsetS: number,
  observations: readonly OccupancyObservation[],
): { pct: number; rank: number } {
  let pct = expectedPct(category, weekBin(atS, offsetS));
  let rank = 2;
  const latest = latestObservation(atS, observations);
  if (latest) {
    const cap = latest.capacity ?? capacity;
    if (cap && cap > 0) {
      const observedPct = Math.min(100, (100 * latest.occupied) / cap);
      const residual = observedPct - expectedPct(category, weekBin(latest.observedAtS, offsetS));
      pct += residual * Math.exp(-(atS - latest.observedAtS) / 60 / OBSERVATION_DECAY_MIN);
      rank = latest.source === 'operator' ? 5 : 3;
    }
  }
  return { pct: Math.min(100, Math.max(0, pct)), rank };
}

/** The latest observation at or before `atS` and at most 3 h old (on equal times the one listed last), or null. */
function latestObservation(atS: number, observations: readonly OccupancyObservation[]): OccupancyObservation | null {
  let latest: OccupancyObservation | null = null;
  for (const o of observations) {
    if (o.observedAtS > atS || atS - o.observedAtS > OBSERVATION_MAX_AGE_MIN * 60) continue;
    if (!latest || o.observedAtS >= latest.observedAtS) latest = o;
  }
  return latest;
}

/**
 * Occupancy of a facility at `entryS` (unix seconds) with UTC offset `offsetS` (seconds), corrected by
 * observations (any order; only the latest at or before the entry and at most 3 h old is used), and
 * never below `minOccupied` spaces (reservations holding a space at the entry time).
 * Null when the capacity is unknown (`capacity` null and no recent observation carrying one): a
 * percentage, a count of free spaces or a probability would be computed from nothing.
 * @example estimateOccupancy('Public Parking', 420, 1767110400, -18000, [])
 */
export function estimateOccupancy(
  category: string,
  capacity: number | null,
  entryS: number,
  offsetS: number,
  observations: readonly OccupancyObservation[],
  minOccupied = 0,
): OccupancyEstimate | null {
  const cap = capacity ?? latestObservation(entryS, observations)?.capacity ?? null;
  if (cap === null || cap <= 0) return null;
  const at = occupancyPctAt(category, cap, entryS, offsetS, observations);
  let pct = at.pct;
  // spaces held by reservations at the entry time are occupied for sure: a floor under the estimate
  if (minOccupied > 0) pct = Math.max(pct, (100 * minOccupied) / cap);
  pct = Math.round(Math.min(100, Math.max(0, pct)));
  const available = Math.max(0, Math.round(cap * (1 - pct / 100)));
  const probability = freeSpaceProbability(pct, cap);
  return { pct, available, probability, bucket: bucketOf(probability), rank: at.rank };
}
