/**
 * Edge costs as the search reads them, by the search's own (internal) edge ids: the traffic
 * model's travel time of an edge entered at an instant (`TrafficModel.travelTimeS`), with the
 * model's predicted layer computed here for the edges where nothing else is in play.
 *
 * Why a specialised copy: the predicted layer answers most relaxations (no learned profile, no
 * live speed, no incident), and reading its constants in the search's memory order
 * (`SearchLayout`) instead of the graph's saves a cache miss per array. It repeats
 * `TrafficModel.speedKph`'s arithmetic in the same order on the same Float32 constants, so the
 * times are bit-identical; `edge-costs.test.ts` checks that for every edge and every 15-minute
 * bin of a hand-built graph and of a real extract. Everything else goes to the model itself.
 */
import { SpeedMode, type CostQuery, type TrafficModel } from '../../traffic/model.js';
import { BIN_SECONDS, SECONDS_PER_WEEK } from '../../traffic/clock.js';
import { BINS_PER_WEEK } from '../../traffic/feeds.js';
import type { SearchLayout } from './layout.js';

const BINS = BINS_PER_WEEK;
const BIN_S = BIN_SECONDS;
const WEEK_S = SECONDS_PER_WEEK;
/** groupFeed: the edge's profile group (low bits) and whether it has a learned profile / a live speed */
const GROUP_MASK = 63;
const HAS_LEARNED = 64;
const HAS_LIVE = 128;

/** Travel times of internal edges for one search at a time (`begin` sets the query). */
export class EdgeCosts {
  /**
   * per internal edge: its profile group | HAS_LEARNED | HAS_LIVE (the feed bits valid for
   * SpeedFeeds.version = feedVersion): one byte read tells whether the predicted layer applies
   * and which curve it reads
   */
  private readonly groupFeed: Uint8Array;
  private feedVersion = -1;
  private q: CostQuery | null = null;
  /** the running query can use the predicted layer inline (not free flow, no incidents) */
  private inline = false;
  /** feed bits that send an edge to the model in the running query */
  private feedMask = 0;
  private depWeekS = 0;
  private depUnixS = 0;
  private readonly minSpeedKph: number;

  constructor(
    private readonly model: TrafficModel,
    private readonly layout: SearchLayout,
  ) {
    if (layout.profileGroup.some((x) => x > GROUP_MASK)) throw new Error('more profile groups than groupFeed holds');
    this.groupFeed = Uint8Array.from(layout.profileGroup);
    this.minSpeedKph = model.cfg.minSpeedKph;
  }

  /** Sets the query of the next search and brings the per-edge feed bits up to the feeds' version. */
  begin(q: CostQuery): void {
    this.syncFeedFlags();
    this.q = q;
    this.feedMask = (this.model.feeds.learnedEdgeCount > 0 ? HAS_LEARNED : 0) | (q.useLive ? HAS_LIVE : 0);
    this.inline = q.mode !== SpeedMode.freeFlow && q.incidents === null;
    this.depWeekS = q.depWeekS;
    this.depUnixS = q.depUnixS;
  }

  /** True when the running query's time of internal edge f comes from the inline predicted layer. */
  isInline(f: number): boolean {
    return this.inline && (this.groupFeed[f] & this.feedMask) === 0;
  }

  /** Travel time of internal edge f entered at `tEnterS` (unix seconds), seconds; Infinity when closed. */
  travelTimeS(f: number, tEnterS: number): number {
    const gb = this.groupFeed[f];
    if (!this.inline || (gb & this.feedMask) !== 0) {
      return this.model.travelTimeS(this.q!, this.layout.extEdge[f], tEnterS);
    }
    // TrafficModel.speedKph's predicted layer: interpolate between bin centres, cap, floor
    let w = this.depWeekS + (tEnterS - this.depUnixS);
    if (w < 0 || w >= WEEK_S) {
      w %= WEEK_S;
      if (w < 0) w += WEEK_S;
    }
    const x = w / BIN_S - 0.5;
    let b0 = Math.floor(x);
    const frac = x - b0;
    if (b0 < 0) b0 += BINS;
    const b1 = b0 + 1 === BINS ? 0 : b0 + 1;
    const gi = (gb & GROUP_MASK) * BINS;
    const factors = this.model.factors;
    const f0 = factors[gi + b0];
    const L = this.layout;
    let speed = L.freeFlowKph[f] * (f0 + (factors[gi + b1] - f0) * frac);
    const up = L.upperKph[f];
    if (speed > up) speed = up;
    if (speed < this.minSpeedKph) speed = this.minSpeedKph;
    return speed > 0 ? L.lenX36[f] / speed : Infinity;
  }

  /**
   * Brings groupFeed up to the feeds' version: the edges whose speeds changed since the last sync
   * (every edge when the feeds no longer list that far back).
   */
  private syncFeedFlags(): void {
    const feeds = this.model.feeds;
    if (feeds.version === this.feedVersion) return;
    const fl = this.groupFeed;
    const intEdge = this.layout.intEdge;
    const mark = (e: number): void => {
      let f = fl[intEdge[e]] & ~(HAS_LEARNED | HAS_LIVE);
      if (feeds.hasLearned(e)) f |= HAS_LEARNED;
      if (feeds.liveSpeed(e) !== undefined) f |= HAS_LIVE;
      fl[intEdge[e]] = f;
    };
    const changed = this.feedVersion < 0 ? null : feeds.changedSince(this.feedVersion);
    if (changed !== null) {
      for (let i = 0; i < changed.length; i++) if (changed[i] >= 0 && changed[i] < fl.length) mark(changed[i]);
    } else {
      for (let e = 0; e < fl.length; e++) mark(e);
    }
    this.feedVersion = feeds.version;
  }
}
