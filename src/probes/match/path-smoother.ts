/**
 * Distance driven along the matched path as a function of time, from the pings: their along-path
 * positions fused with the distances their reported speeds give (when the feed has speeds), made
 * non-decreasing, and read between pings as the monotone cubic Hermite curve through the fused
 * positions with the reported speeds as slopes (so a vehicle braking to a stop between two pings
 * covers most of the distance early, and its standing time falls where it stood). `NodeClock`
 * inverts that curve: the time the vehicle passed a given distance, e.g. a node.
 */

/** Noise model of the smoother (`MatchOptions` documents the defaults). */
export interface SmootherNoise {
  /** along-path position error of a ping, standard deviation, metres */
  positionSigmaM: number;
  /** error of a reported speed, standard deviation, m/s */
  speedSigmaMps: number;
  /** typical acceleration the trapezoid of two speeds misses between pings, m/s² */
  accelerationSigmaMps2: number;
  /** how far the lane driven through a turn may differ from the centre-line path, metres per radian */
  turnSigmaM: number;
}

/** Smoothed knots: at each ping time, the distance driven (non-decreasing) and the speed (≥ 0). */
export interface PathKnots {
  tS: Float64Array;
  sM: Float64Array;
  vMps: Float64Array;
}

/**
 * Fuses the along-path positions `sM` at times `tS` (strictly increasing) with the displacements
 * the reported speeds `vMps` give (NaN where a ping has none): the positions minimising
 *   Σₖ (sₖ − zₖ)² / σₚ² + Σₖ (sₖ₊₁ − sₖ − Dₖ)² / σ_Dₖ²,
 * with Dₖ = hₖ (vₖ + vₖ₊₁) / 2 the trapezoid of the two speeds over the hₖ seconds between the
 * pings and σ_Dₖ² = (σᵥ hₖ)² / 2 + (a hₖ² / 4)² its error (speed noise, and an acceleration of
 * about a that the trapezoid misses) — plus (σ_turn θₖ)² for the θₖ radians the path turns at
 * the nodes between the pings (`turnRad[k + 1]`): the speed measures the lane driven, which cuts
 * or widens a corner the centre-line path goes through. Pings without speeds keep their positions.
 * A chain of normal equations, solved in one tridiagonal sweep. Returns the knots of a
 * non-decreasing distance curve.
 * @example
 * const knots = smoothPath([0, 3, 6], [0, 30, 60], [10, 10, 10], noise);
 */
export function smoothPath(
  tS: readonly number[],
  sM: readonly number[],
  vMps: readonly number[],
  noise: SmootherNoise,
  turnRad?: readonly number[],
): PathKnots {
  const n = tS.length;
  const w = 1 / (noise.positionSigmaM * noise.positionSigmaM);
  const sv2 = noise.speedSigmaMps * noise.speedSigmaMps;
  const a = noise.accelerationSigmaMps2;
  // Normal equations: diagonal `diag`, off-diagonal `off[k]` between k and k+1, right side `rhs`.
  const diag = new Float64Array(n).fill(w);
  const off = new Float64Array(n);
  const rhs = new Float64Array(n);
  for (let k = 0; k < n; k++) rhs[k] = w * sM[k];
  for (let k = 0; k + 1 < n; k++) {
    if (Number.isNaN(vMps[k]) || Number.isNaN(vMps[k + 1])) continue;
    const h = tS[k + 1] - tS[k];
    const d = (h * (Math.max(0, vMps[k]) + Math.max(0, vMps[k + 1]))) / 2;
    const turnM = turnRad === undefined ? 0 : noise.turnSigmaM * turnRad[k + 1];
    const u = 1 / ((sv2 * h * h) / 2 + ((a * h * h) / 4) ** 2 + turnM * turnM);
    diag[k] += u;
    diag[k + 1] += u;
    off[k] = -u;
    rhs[k] -= u * d;
    rhs[k + 1] += u * d;
  }
  // Thomas algorithm (the matrix is symmetric, diagonally dominant).
  const c = new Float64Array(n);
  const x = new Float64Array(n);
  let den = diag[0];
  c[0] = off[0] / den;
  x[0] = rhs[0] / den;
  for (let k = 1; k < n; k++) {
    den = diag[k] - off[k - 1] * c[k - 1];
    c[k] = off[k] / den;
    x[k] = (rhs[k] - off[k - 1] * x[k - 1]) / den;
  }
  for (let k = n - 2; k >= 0; k--) x[k] -= c[k] * x[k + 1];
  const out: PathKnots = { tS: Float64Array.from(tS), sM: x, vMps: Float64Array.from(vMps) };
  monotone(out);
  return out;
}

/**
 * Makes the knots describe a vehicle that never backs up: positions by isotonic regression (pool
 * adjacent violators: the closest non-decreasing sequence in least squares), speeds ≥ 0.
 */
function monotone(k: PathKnots): void {
  const n = k.sM.length;
  const mean = new Float64Array(n);
  const count = new Int32Array(n);
  let blocks = 0;
  for (let i = 0; i < n; i++) {
    mean[blocks] = k.sM[i];
    count[blocks] = 1;
    blocks++;
    while (blocks > 1 && mean[blocks - 2] > mean[blocks - 1]) {
      const w = count[blocks - 2] + count[blocks - 1];
      mean[blocks - 2] = (mean[blocks - 2] * count[blocks - 2] + mean[blocks - 1] * count[blocks - 1]) / w;
      count[blocks - 2] = w;
      blocks--;
    }
  }
  for (let j = 0, i = 0; j < blocks; j++) for (let m = 0; m < count[j]; m++) k.sM[i++] = mean[j];
  for (let i = 0; i < n; i++) if (k.vMps[i] < 0) k.vMps[i] = 0;
}

/**
 * The time a vehicle reached a distance along its path, from smoothed knots. Queries must come in
 * non-decreasing distance (a pointer moves forward only). Before the first knot: its time; after
 * the last: the last knot's time.
 */
export class NodeClock {
  private i = 0;
  /** the last query and its answer (consecutive edges ask for their shared node twice) */
  private lastX = Number.NaN;
  private lastT = Number.NaN;
  constructor(private readonly k: PathKnots) {}

  /**
   * Unix seconds at which the vehicle leaves `xM` metres: the last time the curve is at or before
   * it, so time spent standing exactly there counts before it (on the edge waited on).
   */
  timeAt(xM: number): number {
    const { tS, sM } = this.k;
    const n = sM.length;
    if (xM < sM[0]) return tS[0];
    if (xM === this.lastX) return this.lastT;
    while (this.i + 1 < n && sM[this.i + 1] <= xM) this.i++;
    this.lastX = xM;
    this.lastT = this.i + 1 >= n ? tS[n - 1] : this.invertHermite(this.i, xM);
    return this.lastT;
  }

  /**
   * Last time in [tS[i], tS[i+1]) at which the interval's Hermite cubic is at or before x
   * (sM[i] ≤ x < sM[i+1]). The end speeds are limited as Fritsch & Carlson (1980) do so that the
   * cubic is monotone (α² + β² ≤ 9, in units of the interval's mean speed); then Newton steps
   * kept inside a bisection bracket (the root is unique: the cubic rises strictly but for
   * isolated points).
   */
  private invertHermite(i: number, xM: number): number {
    const { tS, sM, vMps } = this.k;
    const h = tS[i + 1] - tS[i];
    const d = sM[i + 1] - sM[i];
    const mean = d / h;
    // an end without a reported speed takes the interval's mean speed (linear when both lack one)
    let al = Number.isNaN(vMps[i]) ? 1 : vMps[i] / mean;
    let be = Number.isNaN(vMps[i + 1]) ? 1 : vMps[i + 1] / mean;
    const r2 = al * al + be * be;
    if (r2 > 9) {
      const f = 3 / Math.sqrt(r2);
      al *= f;
      be *= f;
    }
    // In units of the interval (u = (t − tᵢ)/h, p = (s − sᵢ)/d): p(0) = 0, p(1) = 1, p'(0) = α,
    // p'(1) = β, so p(u) = (α + β − 2) u³ + (3 − 2α − β) u² + α u.
    const c3 = al + be - 2;
    const c2 = 3 - 2 * al - be;
    const target = (xM - sM[i]) / d;
    let lo = 0;
    let hi = 1;
    let u = target;
    for (let it = 0; it < MAX_STEPS && hi - lo > U_TOLERANCE; it++) {
      const f = ((c3 * u + c2) * u + al) * u - target;
      if (f <= 0) lo = u;
      else hi = u;
      const slope = (3 * c3 * u + 2 * c2) * u + al;
      const next = slope > 0 ? u - f / slope : Number.NaN;
      if (Math.abs(next - u) < U_TOLERANCE) {
        u = next;
        break;
      }
      // a Newton step that leaves the bracket (or a flat point) falls back to bisection
      u = next > lo && next < hi ? next : (lo + hi) / 2;
    }
    return tS[i] + Math.min(1, Math.max(0, u)) * h;
  }
}

/** `NodeClock`'s root finding: tolerance in units of the interval between two pings, and a bound on its steps. */
const U_TOLERANCE = 1e-10;
const MAX_STEPS = 60;
