/**
 * Time-window tables: lower-bound metrics (a customized CCH metric, time-warped or static, or ALT
 * tables) that hold only for edges entered inside a window of the local week, much tighter than
 * free flow at peaks. A table covers departures from the start of one 15-minute bin and edges
 * entered up to `horizonS` after the bin ends ("coverage"); its bounds are the fastest speeds the
 * traffic model can produce there (`window-speeds.ts`, `time-warp.ts`). Incidents only slow edges
 * or close them, so they never break a lower bound.
 *
 * Exactness: a table is used only
 * - for current-traffic searches departing in its bin or a later one (decision 025),
 * - while its bound speeds still dominate the feeds: when `SpeedFeeds.version` moved since the
 *   table was checked, every live speed and learned profile is compared with the stored bounds;
 *   one faster value makes the table unusable (it is dropped and rebuilt in the background; the
 *   free-flow table, valid for any speed, serves meanwhile),
 * - and the search's own answer proves the optimal path stays inside the coverage (checked by the
 *   caller: arrival ≤ coverage end; otherwise it resumes on a longer horizon or free flow).
 * Nothing is baked: a table never replaces the live costs, it only orders the search.
 */
import { BINS_PER_WEEK, type SpeedFeeds } from '../../traffic/feeds.js';
import { BIN_SECONDS } from '../../traffic/clock.js';
import type { TrafficModel } from '../../traffic/model.js';
import { MinHeap } from '../../search/heap.js';
import { dijkstra } from './landmarks.js';
import type { CchTopology } from './cch/topology.js';
import { CchCustomization, type CchMetric } from './cch/customize.js';
import { buildWarpedMetric, staticCeilings, TimeWarp } from './time-warp.js';
import { tripUse, type TripUse } from './trip-use.js';
import { boundSpeeds, stillBounds } from './window-speeds.js';
import {
  DEFAULT_WINDOW_BOUNDS_CONFIG,
  sharedTable,
  type UsableTable,
  type WindowBoundsConfig,
  type WindowBoundsShared,
  type WindowExchange,
  type WindowTable,
  type Pending,
} from './window-table.js';

export {
  DEFAULT_WINDOW_BOUNDS_CONFIG,
  type UsableTable,
  type WindowBoundsConfig,
  type WindowBoundsShared,
  type WindowExchange,
  type WindowTable,
} from './window-table.js';

/** Builds waiting at most (more requests for missing tables are not queued). */
const MAX_QUEUED = 3;

/** Set-up steps of a build before its customization slices or Dijkstras. */
const SETUP_STEPS = 3;

/** Triangle work (arc pairs) of one background customization slice: ~2 ms (requests interleave between slices). */
const CUSTOMIZE_SLICE = 300_000;

/** Lazily built, validated window tables over the landmark nodes of the free-flow table. */
export class WindowBounds {
  private readonly tables = new Map<string, WindowTable>();
  /** when each table's last build started (performance.now(), ms): rebuilds are spaced by `minRebuildMs` */
  private readonly buildStartedMs = new Map<string, number>();
  /** builds waiting or running (a build's set-up runs in its own event-loop turns, not in the request that asked) */
  private readonly queue: Pending[] = [];
  private running = false;
  private readonly heap = new MinHeap(1 << 14);
  private readonly cfg: WindowBoundsConfig;
  /** longest turn delay of the bound graph, seconds */
  private readonly maxTurnS: number;
  /** trip use of edges and turns (warped metrics choose their reference rate by it), or null */
  private readonly use: TripUse | null;
  /** tables built so far (for tests and the bench) */
  built = 0;
  /** tables dropped because a feed value exceeded their bounds */
  invalidated = 0;
  /** tables received from other threads */
  adopted = 0;
  /** searches served by an earlier departure bin's table (their own bin's was missing) */
  borrowed = 0;
  private readonly exchange: WindowExchange | null;

  constructor(
    private readonly model: TrafficModel,
    private readonly usable: Uint8Array,
    /** cheapest turn delay into each edge, seconds (0 when none) */
    private readonly minTurnIn: Float32Array,
    private readonly nodes: readonly number[],
    cfg: Partial<WindowBoundsConfig> = {},
    /** CCH mode: tables are customized CCH metrics instead of landmark tables */
    private readonly cch: CchTopology | null = null,
    shared: WindowBoundsShared = {},
  ) {
    this.cfg = { ...DEFAULT_WINDOW_BOUNDS_CONFIG, ...cfg };
    this.cfg.horizonsS = [...this.cfg.horizonsS].sort((a, b) => a - b);
    let maxTurn = 0;
    if (cch !== null) for (const t of cch.bound.arcTurnS) if (t > maxTurn) maxTurn = t;
    this.maxTurnS = maxTurn;
    this.use = cch !== null && this.cfg.warp ? (shared.tripUse ?? tripUse(model, usable, minTurnIn)) : null;
    this.exchange = shared.exchange ?? null;
    this.exchange?.onTable((key, t) => this.adopt(key, t));
  }

  /**
   * Takes a table another thread built. Its bounds were checked against that thread's feeds, so
   * its first use here checks them against every live and learned speed of this thread's.
   */
  private adopt(key: string, t: WindowTable): void {
    if (t.warp !== null && !(t.warp instanceof TimeWarp)) Object.setPrototypeOf(t.warp, TimeWarp.prototype);
    t.feedsVersion = -1;
    this.tables.delete(key);
    this.store(key, t);
    this.adopted++;
  }

  /** Stores a table as the most recently used one, dropping the least recently used beyond `maxTables`. */
  private store(key: string, t: WindowTable): void {
    while (this.tables.size >= this.cfg.maxTables) {
      const oldest = this.tables.keys().next().value as string;
      this.tables.delete(oldest);
    }
    this.tables.set(key, t);
  }

  /** The horizon classes, seconds, ascending. */
  get horizons(): readonly number[] {
    return this.cfg.horizonsS;
  }

  private get feeds(): SpeedFeeds {
    return this.model.feeds;
  }

  /** The horizon class for an expected trip duration (seconds after the departure bin), or -1 when none is long enough. */
  horizonFor(expectedS: number): number {
    for (const h of this.cfg.horizonsS) if (h >= expectedS) return h;
    return -1;
  }

  /** The next larger horizon class, or -1. */
  nextHorizon(horizonS: number): number {
    for (const h of this.cfg.horizonsS) if (h > horizonS) return h;
    return -1;
  }

  /**
   * The table for a departure at local second of the week `depWeekS` (unix `depUnixS`) and
   * horizon `horizonS`, when built and still valid; otherwise (with `schedule`, a background
   * build is queued) an earlier bin's table whose coverage reaches as far, or null.
   */
  tableFor(depUnixS: number, depWeekS: number, horizonS: number, schedule = true): UsableTable | null {
    if ((this.nodes.length === 0 && this.cch === null) || horizonS < 0) return null;
    const bin = Math.floor(depWeekS / BIN_SECONDS) % BINS_PER_WEEK;
    let t = this.valid(`${bin}:${horizonS}`);
    if (t === null) {
      if (schedule) this.scheduleFor(bin, horizonS);
      t = this.earlierTable(bin, bin * BIN_SECONDS + BIN_SECONDS + horizonS);
      if (t === null) return null;
      this.borrowed++;
    }
    return { table: t, validUntilS: depUnixS + (t.coverEndWeekS - depWeekS) };
  }

  /** The table stored under `key` when its bounds still hold the feeds (LRU-touched), else null (an outgrown table is dropped). */
  private valid(key: string): WindowTable | null {
    const t = this.tables.get(key);
    if (t === undefined) return null;
    if (t.feedsVersion !== this.feeds.version) {
      if (!stillBounds(this.model, t)) {
        this.tables.delete(key);
        this.invalidated++;
        return null;
      }
      t.feedsVersion = this.feeds.version;
    }
    this.tables.delete(key);
    this.tables.set(key, t);
    return t;
  }

  /**
   * A table of an earlier departure bin of the same week whose coverage reaches `coverEndWeekS`:
   * it bounds every edge entered from its own bin's start to its coverage end, so it holds for a
   * later departure up to there too (decision 025). The latest such bin first (its coverage
   * starts nearest the departure), then its shortest horizon; null when none is stored.
   */
  private earlierTable(bin: number, coverEndWeekS: number): WindowTable | null {
    const hs = this.cfg.horizonsS;
    const back = Math.ceil(hs[hs.length - 1] / BIN_SECONDS);
    for (let b = bin - 1; b >= 0 && b >= bin - back; b--) {
      for (const h of hs) {
        if (b * BIN_SECONDS + BIN_SECONDS + h < coverEndWeekS || !this.tables.has(`${b}:${h}`)) continue;
        const t = this.valid(`${b}:${h}`);
        if (t !== null) return t;
      }
    }
    return null;
  }

  /**
   * The window builder's answer to a serving thread's request: a finished table it holds that
   * still bounds its feeds is published again (the serving thread dropped it or started after it
   * was built); otherwise its build is queued, and published when done.
   */
  requested(bin: number, horizonS: number): void {
    const key = `${bin}:${horizonS}`;
    if (this.queue.some((p) => p.key === key)) return;
    const t = this.valid(key);
    if (t !== null && this.exchange !== null) this.exchange.publish(key, t);
    else this.scheduleFor(bin, horizonS);
  }

  /** Builds the table for that departure and horizon now (synchronously), if missing. */
  buildNow(depWeekS: number, horizonS: number): void {
    const bin = Math.floor(depWeekS / BIN_SECONDS) % BINS_PER_WEEK;
    const key = `${bin}:${horizonS}`;
    if (this.tables.has(key)) return;
    const p = this.start(key, bin, horizonS);
    while (!this.advance(p, Infinity));
  }

  /** True while a background build is queued or running. */
  get busy(): boolean {
    return this.running || this.queue.length > 0;
  }

  /** Resolves when every scheduled build has finished (tests). */
  async idle(): Promise<void> {
    while (this.running || this.queue.length > 0) await new Promise((r) => setImmediate(r));
  }

  /** True unless the table's last build started less than `minRebuildMs` ago. */
  private mayBuild(key: string): boolean {
    const at = this.buildStartedMs.get(key);
    return at === undefined || performance.now() - at >= this.cfg.minRebuildMs;
  }

  /**
   * Queues the build of a missing table. While the bin has no table of the longest horizon, that
   * one is queued first: it serves every trip of the bin (a shorter horizon's search resumes on
   * it), so a bin's first searches leave free-flow bounds after one build instead of one per
   * horizon; the tighter short horizons follow as trips ask for them (decision 025).
   */
  private scheduleFor(bin: number, horizonS: number): void {
    const hs = this.cfg.horizonsS;
    const top = hs[hs.length - 1];
    const topKey = `${bin}:${top}`;
    if (horizonS !== top && !this.tables.has(topKey) && this.mayBuild(topKey)) this.schedule(topKey, bin, top);
    const key = `${bin}:${horizonS}`;
    if (this.mayBuild(key)) this.schedule(key, bin, horizonS);
  }

  private schedule(key: string, bin: number, horizonS: number): void {
    // the process's window builder builds it: the table arrives through the exchange, other bounds serve meanwhile
    if (this.exchange?.request !== undefined) {
      this.buildStartedMs.set(key, performance.now());
      this.exchange.request(bin, horizonS);
      return;
    }
    // bounded: departures spread over many bins must not keep the builder busy for ever
    if (this.queue.length >= MAX_QUEUED || this.queue.some((p) => p.key === key)) return;
    const p = this.start(key, bin, horizonS);
    this.queue.push(p);
    if (!this.running) {
      this.running = true;
      setImmediate(() => this.pump());
    }
  }

  /** One step per event-loop turn (set-up steps, then customization slices or Dijkstras), so requests interleave with a build. */
  private pump(): void {
    const p = this.queue[0];
    if (p === undefined) {
      this.running = false;
      return;
    }
    if (this.advance(p)) this.queue.shift();
    setImmediate(() => this.pump());
  }

  private start(key: string, bin: number, horizonS: number): Pending {
    if (this.buildStartedMs.size > 4 * BINS_PER_WEEK) this.buildStartedMs.clear();
    this.buildStartedMs.set(key, performance.now());
    return {
      key,
      bin,
      horizonS,
      versionAtStart: this.feeds.version,
      setup: 0,
      boundKph: new Float64Array(0),
      weight: new Float32Array(0),
      turnScale: 1,
      fromL: [],
      toL: [],
      step: 0,
      customization: null,
      warp: null,
      interim: false,
    };
  }

  /** One set-up step: the window's speed bounds, then the edge weights (warped or static), then the customization state. */
  private setUp(p: Pending): void {
    const g = this.model.graph;
    if (p.setup === 0) {
      p.versionAtStart = this.feeds.version;
      p.boundKph = boundSpeeds(this.model, p.bin, p.horizonS);
    } else if (p.setup === 1) {
      if (this.cch !== null && this.use !== null) {
        const startWeekS = p.bin * BIN_SECONDS;
        const win = { startWeekS, coverEndWeekS: startWeekS + BIN_SECONDS + p.horizonS };
        const wm = buildWarpedMetric(
          this.model,
          win,
          staticCeilings(this.model, this.feeds, p.boundKph),
          this.use,
          this.maxTurnS,
        );
        p.boundKph = wm.boundKph;
        p.weight = wm.edgeWork;
        p.turnScale = wm.turnScale;
        p.warp = wm.warp;
      } else {
        // CCH mode: edge times without turns (the bound graph's arcs carry them); landmarks: with the cheapest turn in
        p.weight = new Float32Array(g.edgeCount);
        const turnIn = this.cch === null ? this.minTurnIn : null;
        for (let e = 0; e < g.edgeCount; e++)
          p.weight[e] = (g.edgeLengthM[e] * 3.6) / p.boundKph[e] + (turnIn === null ? 0 : turnIn[e]);
      }
    } else if (this.cch !== null) p.customization = new CchCustomization(this.cch, p.weight, p.turnScale);
    p.setup++;
  }

  /**
   * Once a build's basic customization is done, its metric so far serves this thread's searches
   * (exact, slower per potential than the finished one) until the finished table replaces it: the
   * bin leaves free-flow bounds after about 40 % of the build (decision 025). Not handed to other
   * threads (its arrays still change).
   */
  private storeInterim(p: Pending): void {
    const metric = p.customization?.interim ?? null;
    if (metric === null) return;
    p.interim = true;
    this.tables.delete(p.key);
    this.store(p.key, this.tableOf(p, [], [], [], metric));
  }

  /** The table a build makes: its landmark tables or CCH metric, with the build's bounds and coverage. */
  private tableOf(
    p: Pending,
    nodes: number[],
    fromL: Float32Array[],
    toL: Float32Array[],
    cch: CchMetric | null,
  ): WindowTable {
    const binStartWeekS = p.bin * BIN_SECONDS;
    const coverEndWeekS = binStartWeekS + BIN_SECONDS + p.horizonS;
    // checked against the feeds as they were when the bounds were taken
    const feedsVersion = p.versionAtStart;
    return { nodes, fromL, toL, binStartWeekS, cch, warp: p.warp, coverEndWeekS, boundKph: p.boundKph, feedsVersion };
  }

  /** Runs one step of a build (`budget`: customization work of a slice); true when the table is complete (and stored). */
  private advance(p: Pending, budget = CUSTOMIZE_SLICE): boolean {
    if (p.setup < SETUP_STEPS) {
      this.setUp(p);
      return false;
    }
    const g = this.model.graph;
    const i = p.step >> 1;
    if (p.customization !== null) {
      if (!p.customization.advance(budget)) {
        if (!p.interim) this.storeInterim(p);
        return false;
      }
    } else if (i < this.nodes.length) {
      const backward = (p.step & 1) === 1;
      const d = dijkstra(g, p.weight, this.usable, this.nodes[i], backward, this.heap);
      if (backward) p.toL.push(d);
      else p.fromL.push(d);
      p.step++;
      if (p.step < 2 * this.nodes.length) return false;
    }
    const c = p.customization;
    let table =
      c === null ? this.tableOf(p, [...this.nodes], p.fromL, p.toL, null) : this.tableOf(p, [], [], [], c.metric);
    if (this.exchange !== null) {
      // one copy for every thread: the arrays move to shared memory before the table is used here
      table = sharedTable(table);
      this.exchange.publish(p.key, table);
    }
    this.tables.delete(p.key);
    this.store(p.key, table);
    this.built++;
    return true;
  }
}
