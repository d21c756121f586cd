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

  /** Sets the learned profile of an edge (km/h per bin, NaN where nothing was learned). */
  setLearnedProfile(edge: EdgeId, speedsKph: Float32Array): void {
    if (speedsKph.length !== BINS_PER_WEEK) throw new Error(`profile must have ${BINS_PER_WEEK} bins`);
    this.learned.set(edge, speedsKph);
    this.version++;
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
    this.version++;
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
    for (const [e, l] of this.live) if (l.observedAtS < olderThanS) { this.live.delete(e); n++; }
    if (n) this.version++;
    return n;
  }

  clear(): void {
    this.learned.clear();
    this.live.clear();
    this.version++;
  }
}
