/**
 * Hidden-Markov-model map matching after Newson & Krumm (2009), "Hidden Markov Map Matching
 * Through Noise and Sparseness": states are candidate positions on edges near each ping;
 * emission is Gaussian in the ping-to-edge distance (GPS error σ); transition is exponential in
 * |route distance − great-circle distance| (scale β); the Viterbi path is the match. Route
 * distances come from a bounded edge-based Dijkstra (one-ways and turn restrictions respected).
 * Traces are split at large time gaps, physically impossible jumps, and HMM breaks (no
 * candidate of a ping reachable from any candidate of the previous one).
 */
import { RoadClass, type Graph } from '../../network/graph.js';
import { haversineM } from '../../geo/index.js';
import type { Ping, Trajectory } from '../trajectory.js';
import { RouteSearch } from './route-search.js';
import { locatorOf } from '../../network/locate.js';
import type { Candidate, SegmentIndex } from '../../network/segment-index.js';
import { buildTrajectory, type MatchStep } from './trajectory-builder.js';
import { DEFAULT_MATCH_OPTIONS, type MatchOptions, type MatchStats } from './match-options.js';

/**
 * Matches GPS traces to one graph. Holds the spatial index and the reusable search state, so
 * build one per graph and reuse it (not reentrant).
 * @example
 * const matcher = new MapMatcher(region.graph);
 * const trajectories = matcher.match('veh-1', pings);
 */
export class MapMatcher {
  readonly options: MatchOptions;
  readonly index: SegmentIndex;
  private readonly search: RouteSearch;
  private readonly candBuf: Candidate[] = [];
  /** scratch of `transition`: route distances to the candidates, sources in visiting order */
  private dist = new Float64Array(16);
  private readonly order: number[] = [];
  /** statistics of the last `match` call */
  lastStats: MatchStats = { pings: 0, unmatchedPings: 0, parts: 0 };

  /**
   * `exhaustive`: search every source to the full bound in index order (the plain Viterbi step;
   * tests compare the pruned step with it)
   */
  constructor(
    private readonly graph: Graph,
    options: Partial<MatchOptions> = {},
    index?: SegmentIndex,
    private readonly exhaustive = false,
  ) {
    this.options = { ...DEFAULT_MATCH_OPTIONS, ...options };
    this.index = index ?? locatorOf(graph);
    this.search = new RouteSearch(graph, this.options.uTurnPenaltyM);
  }

  /**
   * Matches one trace (pings in any order; sorted by time here) into one or more trajectories,
   * numbered from `firstPart`; ping indexes start at `firstIndex` (when only the tail of a trace
   * is re-matched, the parts and pings before it keep their numbers).
   */
  match(traceId: string, pingsIn: readonly Ping[], firstPart = 0, firstIndex = 0): Trajectory[] {
    return this.matchResumable(traceId, pingsIn, firstPart, firstIndex).parts;
  }

  /**
   * `match` that can resume: given the state a previous call returned for the same trace, tail
   * start and a prefix of the same pings, it runs the Viterbi recursion only over the pings added
   * since, and returns exactly what `match` would for all of them (the recursion depends only on
   * the previous layer and the next ping; the path is backtracked again from the new end). The
   * state is updated in place and returned; pass it back next time.
   */
  matchResumable(
    traceId: string,
    pingsIn: readonly Ping[],
    firstPart = 0,
    firstIndex = 0,
    prior?: MatchState,
  ): { parts: Trajectory[]; state: MatchState } {
    const pings = [...pingsIn].sort((a, b) => a.tS - b.tS);
    const st =
      prior !== undefined && continues(prior, traceId, firstPart, firstIndex, pings)
        ? prior
        : newState(traceId, firstPart, firstIndex);
    st.stats.pings = pings.length;
    for (let k = st.consumed.length; k < pings.length; k++) {
      st.consumed.push(pings[k].tS);
      if (k > 0 && pings[k].tS === pings[k - 1].tS) continue;
      this.addPing(st, pings[k], firstIndex + k, traceId, firstPart);
    }
    // The open piece is backtracked from its current end without closing it: more pings may come.
    const parts = [...st.out];
    if (st.layers.length > 0) {
      const t = buildTrajectory(this.graph, traceId, firstPart + st.out.length, openSteps(st), this.options);
      if (t.traversals.length > 0) parts.push(t);
    }
    st.stats.parts = parts.length;
    this.lastStats = { ...st.stats };
    return { parts, state: st };
  }

  /**
   * One ping's Viterbi layer (`index`: its index in the trace): its candidates and their emission
   * scores, a new piece after a gap or an impossible jump, and outliers skipped on an HMM break.
   */
  private addPing(st: MatchState, p: Ping, index: number, traceId: string, firstPart: number): void {
    const o = this.options;
    this.index.candidatesInto(p.lat, p.lon, o.searchRadiusM, o.maxCandidates, this.candBuf);
    if (this.candBuf.length === 0) {
      st.stats.unmatchedPings++;
      return;
    }
    const cands = this.candBuf.map((c) => ({ ...c }));
    const emission = this.emissionsOf(p, cands);
    const prev = st.layers.length > 0 ? st.layers[st.layers.length - 1] : undefined;
    if (prev !== undefined) {
      const dtS = p.tS - prev.ping.tS;
      const gcM = haversineM(prev.ping.lat, prev.ping.lon, p.lat, p.lon);
      // Impossible jump: faster than maxSpeed even after allowing 4 σ of GPS error.
      const jumpM = Math.max(0, gcM - 4 * o.gpsSigmaM);
      if (dtS > o.maxGapS || (jumpM / Math.max(dtS, 1e-3)) * 3.6 > o.maxSpeedKph) {
        this.closePiece(st, traceId, firstPart);
        st.outliers = 0;
      }
    }
    const last = st.layers.length > 0 ? st.layers[st.layers.length - 1] : undefined;
    if (last === undefined) {
      st.layers.push(firstLayer(p, index, cands, emission));
      return;
    }
    const layer = this.transition(last, p, index, cands, emission);
    if (layer !== undefined) {
      st.layers.push(layer);
      st.outliers = 0;
      if (st.layers.length % CONVERGENCE_CHECK_LAYERS === 0) settle(st);
    } else if (st.outliers < o.maxOutliers) {
      // HMM break: no candidate reachable. Treat a lone ping as an outlier first (skip it) …
      st.outliers++;
      st.stats.unmatchedPings++;
    } else {
      // … and when breaks persist, close the piece and restart at this ping.
      this.closePiece(st, traceId, firstPart);
      st.outliers = 0;
      st.layers.push(firstLayer(p, index, cands, emission));
    }
  }

  /**
   * Emission log-likelihood of each candidate of ping `p`: Gaussian in the distance, less a
   * penalty on service roads and, for a moving vehicle's reported heading, one for disagreeing
   * with the edge's direction.
   */
  private emissionsOf(p: Ping, cands: readonly Candidate[]): number[] {
    const o = this.options;
    const sigma2 = 2 * o.gpsSigmaM * o.gpsSigmaM;
    const useHeading =
      p.headingDeg !== undefined &&
      (p.speedKph === undefined || p.speedKph >= o.headingMinSpeedKph) &&
      o.headingPenalty > 0;
    return cands.map((c) => {
      let e = -(c.distanceM * c.distanceM) / sigma2;
      if (this.graph.edgeRoadClass[c.edge] === RoadClass.service) e -= o.serviceRoadPenalty;
      if (useHeading)
        e -= (o.headingPenalty * (1 - Math.cos(((p.headingDeg as number) - c.bearingDeg) * (Math.PI / 180)))) / 2;
      return e;
    });
  }

  /** Closes the open piece: its trajectory joins the finished parts, and the next ping starts a new one. */
  private closePiece(st: MatchState, traceId: string, firstPart: number): void {
    if (st.layers.length > 0) {
      const t = buildTrajectory(this.graph, traceId, firstPart + st.out.length, openSteps(st), this.options);
      if (t.traversals.length > 0) st.out.push(t);
    }
    st.layers = [];
    st.fixed = [];
  }

  /** One Viterbi step from `prev` to the candidates of ping `p`; undefined on an HMM break. */
  private transition(prev: Layer, p: Ping, k: number, cands: Candidate[], emission: number[]): Layer | undefined {
    const o = this.options;
    const dtS = Math.max(0, p.tS - prev.ping.tS);
    const gcM = haversineM(prev.ping.lat, prev.ping.lon, p.lat, p.lon);
    const beta = o.betaM + o.betaPerSecondM * dtS;
    // Route longer than physically possible or far beyond the straight line is not considered.
    const boundM = Math.min(
      gcM * 2 + 4 * o.searchRadiusM + 10 * beta,
      (o.maxSpeedKph / 3.6) * Math.max(dtS, 1) + 2 * o.searchRadiusM + o.uTurnPenaltyM,
    );
    const n = cands.length;
    const score = new Array<number>(n).fill(-Infinity);
    const back = new Array<number>(n).fill(-1);
    const paths: Array<number[] | null> = new Array(n).fill(null);
    const dist = this.dist.length >= n ? this.dist : (this.dist = new Float64Array(n));
    // Sources best first: a transition never adds to a score (it is ≤ 0), so once the targets hold
    // scores, a later source's search only needs to run as far as a route that could still beat
    // one of them, and is skipped when none can. Each target keeps the best score and, among
    // equal ones, the lowest source index — what taking the sources in index order gives — so the
    // lattice is the same whatever the order.
    const order = this.order;
    order.length = 0;
    for (let a = 0; a < prev.cands.length; a++) if (prev.score[a] !== -Infinity) order.push(a);
    if (!this.exhaustive) order.sort((x, y) => prev.score[y] - prev.score[x] || x - y);
    for (const a of order) {
      const sa = prev.score[a];
      // How far a route from `a` may run and still win some target: s = sa − |d − gc| / β ≥ score[b]
      // needs d ≤ gc + (sa − score[b]) β (a target without a score yet needs the full bound).
      let reachM = this.exhaustive ? Infinity : -Infinity;
      for (let b = 0; b < n && reachM !== Infinity; b++) {
        if (score[b] === -Infinity) {
          reachM = Infinity;
          break;
        }
        if (sa > score[b] || (sa === score[b] && a < back[b])) reachM = Math.max(reachM, gcM + (sa - score[b]) * beta);
      }
      if (reachM === -Infinity) continue;
      // (a metre of margin: a longer search finds more, never less)
      this.search.distancesInto(prev.cands[a], cands, Math.min(boundM, reachM + 1), o.backwardToleranceM, dist);
      for (let b = 0; b < n; b++) {
        if (dist[b] === Infinity) continue;
        const s = sa - Math.abs(dist[b] - gcM) / beta;
        if (s > score[b] || (s === score[b] && a < back[b])) {
          score[b] = s;
          back[b] = a;
          // Along the same edge (no search) or via the searched path.
          const direct =
            cands[b].edge === prev.cands[a].edge && cands[b].offsetM >= prev.cands[a].offsetM - o.backwardToleranceM;
          paths[b] = direct ? null : this.search.pathTo(cands[b].edge);
        }
      }
    }
    let any = false;
    for (let b = 0; b < n; b++) {
      if (score[b] > -Infinity) {
        score[b] += emission[b];
        any = true;
      }
    }
    return any ? { ping: p, index: k, cands, score, back, paths } : undefined;
  }
}

/** One layer of the Viterbi lattice. */
interface Layer {
  ping: Ping;
  /** index of the ping in the (time-sorted) trace */
  index: number;
  cands: Candidate[];
  /** best log-probability of a path ending in each candidate */
  score: number[];
  /** best predecessor candidate in the previous layer (-1 for the first layer) */
  back: number[];
  /** edges between the predecessor's edge and this candidate's edge (null: along the same edge) */
  paths: Array<number[] | null>;
}

/**
 * Where a trace's matching stands after a call, so that the next call with more pings of the same
 * trace can go on from here (`matchResumable`). Not reentrant; one per trace.
 */
export interface MatchState {
  traceId: string;
  firstPart: number;
  firstIndex: number;
  /** time of every ping consumed so far, in order */
  consumed: number[];
  /** closed pieces */
  out: Trajectory[];
  /** steps of the open piece already decided (every surviving path passes through them) */
  fixed: MatchStep[];
  /** the open piece's undecided lattice layers, after `fixed` */
  layers: Layer[];
  outliers: number;
  stats: MatchStats;
}

/** Layers between checks for a decided prefix. */
const CONVERGENCE_CHECK_LAYERS = 8;

function newState(traceId: string, firstPart: number, firstIndex: number): MatchState {
  return {
    traceId,
    firstPart,
    firstIndex,
    consumed: [],
    out: [],
    fixed: [],
    layers: [],
    outliers: 0,
    stats: { pings: 0, unmatchedPings: 0, parts: 0 },
  };
}

/** True when `pings` (sorted) extend exactly the pings `st` consumed, for the same trace and tail. */
function continues(
  st: MatchState,
  traceId: string,
  firstPart: number,
  firstIndex: number,
  pings: readonly Ping[],
): boolean {
  if (st.traceId !== traceId || st.firstPart !== firstPart || st.firstIndex !== firstIndex) return false;
  const n = st.consumed.length;
  if (pings.length < n) return false;
  for (let i = 0; i < n; i++) if (pings[i].tS !== st.consumed[i]) return false;
  return true;
}

/**
 * Moves the decided prefix of the open piece out of the lattice: when every candidate still alive
 * in the last layer traces back to one candidate of an earlier layer, the best path passes through
 * it whatever comes next, so the steps up to it are fixed and their layers can go.
 */
function settle(st: MatchState): void {
  const layers = st.layers;
  const lastL = layers[layers.length - 1];
  let alive = new Set<number>();
  for (let b = 0; b < lastL.cands.length; b++) if (lastL.score[b] > -Infinity) alive.add(b);
  for (let i = layers.length - 1; i >= 1; i--) {
    const up = new Set<number>();
    for (const b of alive) up.add(layers[i].back[b]);
    alive = up;
    if (alive.size === 1) {
      const j = i - 1;
      const [c] = alive;
      const steps = backtrackFrom(layers.slice(0, j + 1), c, st.fixed.length > 0);
      st.fixed.push(...steps);
      st.layers = layers.slice(j + 1);
      return;
    }
  }
}

/** The steps of the open piece: decided ones, then the lattice backtracked from its best end. */
function openSteps(st: MatchState): MatchStep[] {
  const lastLayer = st.layers[st.layers.length - 1];
  let best = 0;
  for (let b = 1; b < lastLayer.cands.length; b++) if (lastLayer.score[b] > lastLayer.score[best]) best = b;
  return [...st.fixed, ...backtrackFrom(st.layers, best, st.fixed.length > 0)];
}

/**
 * Follows back-pointers from candidate `best` of the last of `layers`. `hasPrev`: the first layer
 * has a predecessor among the decided steps (its paths from there are kept).
 */
function backtrackFrom(layers: readonly Layer[], best: number, hasPrev: boolean): MatchStep[] {
  const steps: MatchStep[] = new Array(layers.length);
  for (let i = layers.length - 1; i >= 0; i--) {
    const L = layers[i];
    const c = L.cands[best];
    steps[i] = {
      ping: L.ping,
      index: L.index,
      edge: c.edge,
      offsetM: c.offsetM,
      pathFromPrev: i === 0 && !hasPrev ? null : L.paths[best],
    };
    best = L.back[best];
  }
  return steps;
}

/** The first layer of a piece: ping `p`'s candidates scored by emission alone, with no predecessor. */
function firstLayer(p: Ping, index: number, cands: Candidate[], emission: number[]): Layer {
  return {
    ping: p,
    index,
    cands,
    score: emission,
    back: cands.map(() => -1),
    paths: cands.map(() => null),
  };
}
