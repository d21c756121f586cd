/**
 * Speed feeds: the learned (historical) and live speeds that probe processing produces and the
 * routing traffic model consumes. In memory, per process; the probe pipeline persists them in the
 * database and reloads them at start-up (`probes/`), the traffic model reads them on every query.
 * Nothing here is baked into any preprocessing, so an update is visible to the next route.
 */
import type { EdgeId } from '../network/graph.js';

/** Minutes per profile bin. */
export const BIN_MINUTES = 15;
/** Bins per week (7 × 96). Bin 0 is Monday 00:00–00:15 local time. */
export const BINS_PER_WEEK = 672;

/** Entries of the change log of `SpeedFeeds` before its oldest half is dropped. */
const CHANGE_LOG_MAX = 1 << 18;

/** A live observation of an edge's speed. */
export interface LiveSpeed {
  speedKph: number;
  /** unix seconds of the observation */
  observedAtS: number;
  /** how many probe traversals it averages */
  samples: number;
}

/**
 * Learned profiles and live speeds for the edges of one graph. Learned speeds are stored as a
 * dense Float32Array of edgeCount × BINS_PER_WEEK (NaN = no learned value) only for edges that have
 * any, via a sparse map edge → profile.
 */
export class SpeedFeeds {
  private readonly learned = new Map<EdgeId, Float32Array>();
  private readonly live = new Map<EdgeId, LiveSpeed>();
  /** incremented on every change, so caches can notice */
  version = 0;
  /**
   * Edges whose learned profile or live speed changed, in order, with the version each change
   * produced (`changedSince`): caches built at an earlier version re-check only those edges. The
   * oldest half is dropped past CHANGE_LOG_MAX entries; versions up to `logFloor` are then no
   * longer covered.
   */
  private logEdges: number[] = [];
  private logVersions: number[] = [];
  private logFloor = 0;

  private changed(edge: EdgeId): void {
    this.version++;
    this.logEdges.push(edge);
    this.logVersions.push(this.version);
    if (this.logEdges.length > CHANGE_LOG_MAX) {
      const drop = this.logEdges.length >> 1;
      this.logFloor = this.logVersions[drop - 1];
      this.logEdges.splice(0, drop);
      this.logVersions.splice(0, drop);
    }
  }

  /**
   * The edges whose learned profile or live speed changed after `version` (an edge may appear more
   * than once), or null when that is no longer known (the caller then looks at every edge).
   */
  changedSince(version: number): ArrayLike<number> | null {
    if (version < this.logFloor) return null;
    if (version >= this.version) return [];
    // first logged change newer than `version` (versions ascend)
    const v = this.logVersions;
    let lo = 0;
    let hi = v.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v[mid] <= version) lo = mid + 1;
      else hi = mid;
    }
    return this.logEdges.slice(lo);
  }

  /** Sets the learned profile of an edge (km/h per bin, NaN where nothing was learned). */
  setLearnedProfile(edge: EdgeId, speedsKph: Float32Array): void {
    if (speedsKph.length !== BINS_PER_WEEK) throw new Error(`profile must have ${BINS_PER_WEEK} bins`);
    this.learned.set(edge, speedsKph);
    this.changed(edge);
  }

  /**
   * Sets the learned profile of an edge to `kph[i]` in bin `bins[i]` (i < `count`) and NaN in every
   * other bin, overwriting the edge's profile array in place when it has one: reloading the
   * profiles of many edges while a feed arrives allocates nothing for edges already learned.
   */
  writeLearnedProfile(edge: EdgeId, bins: ArrayLike<number>, kph: ArrayLike<number>, count: number): void {
    let p = this.learned.get(edge);
    if (p === undefined) this.learned.set(edge, (p = new Float32Array(BINS_PER_WEEK)));
    p.fill(NaN);
    for (let i = 0; i < count; i++) p[bins[i]] = kph[i];
    this.changed(edge);
  }

  /**
   * Sets the learned speed of `edge` in one bin (NaN: nothing learned there), leaving its other
   * bins as they are. An edge left with no learned bin has no profile, as after a fresh load.
   */
  setLearnedBin(edge: EdgeId, bin: number, kph: number): void {
    let p = this.learned.get(edge);
    if (p === undefined) {
      if (Number.isNaN(kph)) return;
      this.learned.set(edge, (p = new Float32Array(BINS_PER_WEEK).fill(NaN)));
    } else if (Object.is(p[bin], Math.fround(kph))) return;
    p[bin] = kph;
    if (Number.isNaN(kph) && p.every(Number.isNaN)) this.learned.delete(edge);
    this.changed(edge);
  }

  /** Learned speed of `edge` in `binOfWeek`, km/h, or NaN. */
  learnedSpeedKph(edge: EdgeId, binOfWeek: number): number {
    const p = this.learned.get(edge);
    return p === undefined ? NaN : p[binOfWeek];
  }

  /** True when the edge has a learned profile. */
  hasLearned(edge: EdgeId): boolean {
    return this.learned.has(edge);
  }

  /** Number of edges with learned profiles. */
  get learnedEdgeCount(): number {
    return this.learned.size;
  }

  /** Records a live speed for an edge (replaces an older one). */
  setLive(edge: EdgeId, live: LiveSpeed): void {
    const prev = this.live.get(edge);
    if (prev && prev.observedAtS > live.observedAtS) return;
    this.live.set(edge, live);
    this.changed(edge);
  }

  /** The live observation of an edge, if any (the caller decides whether it is fresh). */
  liveSpeed(edge: EdgeId): LiveSpeed | undefined {
    return this.live.get(edge);
  }

  /** Iterates edges with live speeds. */
  liveEntries(): IterableIterator<[EdgeId, LiveSpeed]> {
    return this.live.entries();
  }

  /** Drops live speeds older than `olderThanS` (unix seconds). */
  expireLive(olderThanS: number): number {
    let n = 0;
    for (const [e, l] of this.live) {
      if (l.observedAtS < olderThanS) {
        this.live.delete(e);
        this.changed(e);
        n++;
      }
    }
    return n;
  }

  clear(): void {
    this.learned.clear();
    this.live.clear();
    this.version++;
    // nothing before this version can be listed any more
    this.logEdges = [];
    this.logVersions = [];
    this.logFloor = this.version;
  }
}
