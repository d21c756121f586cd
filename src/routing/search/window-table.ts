/**
 * What a time-window table is (`window-bounds.ts` builds them): its bounds and coverage, how the
 * threads of a process exchange tables, the builder's settings, and the table's shared-memory copy.
 */
import type { Landmarks } from './landmarks.js';
import type { CchMetric } from './cch/customize.js';
import type { TimeWarp } from './time-warp.js';
import type { CchCustomization } from './cch/customize.js';
import type { TripUse } from './trip-use.js';
import { sharedCopy } from './shared-arrays.js';

/** One window table. */
export interface WindowTable extends Landmarks {
  /** local second of the week where the departure bin starts */
  binStartWeekS: number;
  /** edges entered until this local second of the week (may exceed one week) are covered */
  coverEndWeekS: number;
  /** upper bound on the speed of each edge inside the coverage, km/h */
  boundKph: Float64Array;
  /** SpeedFeeds.version the bounds were last checked against */
  feedsVersion: number;
  /** the same bounds as a customized CCH metric (CCH mode; the landmark tables are then empty), or null */
  cch: CchMetric | null;
  /** CCH mode with `warp`: the metric is in work units of this time warp (see time-warp.ts), or null (seconds) */
  warp: TimeWarp | null;
}

/**
 * How the threads of a process share window tables. A serving thread builds none: it asks the
 * process's window builder (`request`), and every table the builder finishes reaches every serving
 * thread with its arrays in shared memory (`onTable`). The builder's own side has no `request`: it
 * builds, and `publish`es what it built. Each thread still checks a table against its own feeds
 * before every use.
 */
export interface WindowExchange {
  /** Asks the window builder for the table of departure bin `bin` and horizon `horizonS` (absent on the builder). */
  request?(bin: number, horizonS: number): void;
  /** Hands a finished table, its typed arrays in shared memory, to the serving threads. */
  publish(key: string, table: WindowTable): void;
  /** Registers the receiver of the tables the builder publishes. */
  onTable(fn: (key: string, table: WindowTable) => void): void;
}

/** What a window builder may be given instead of computing or keeping it alone. */
export interface WindowBoundsShared {
  /** trip use computed once for this graph (warped metrics), or null: computed here */
  tripUse?: TripUse | null;
  /** the process's window exchange, or null: this thread builds and keeps its own tables */
  exchange?: WindowExchange | null;
}

/** A table usable for one query, with the unix second up to which its bounds hold. */
export interface UsableTable {
  table: WindowTable;
  validUntilS: number;
}

/** Settings of the window tables. */
export interface WindowBoundsConfig {
  /** horizons (seconds after the departure bin) tables are built for; the smallest that fits the trip is used */
  horizonsS: number[];
  /** tables kept in memory (least recently used dropped) */
  maxTables: number;
  /** CCH mode: time-warped metrics (bounds follow the speeds over the window) instead of static ones */
  warp: boolean;
  /**
   * a table a feed value made unusable is built again at the earliest this long after its last
   * build started, ms: under a probe feed tables would otherwise be rebuilt back to back on the
   * serving thread (seconds of CPU each on a large graph); free-flow bounds serve meanwhile
   */
  minRebuildMs: number;
}

/** Default settings: 5 min … 160 min horizons, 12 tables (two departure bins), a rebuild at most every 30 s. */
export const DEFAULT_WINDOW_BOUNDS_CONFIG: WindowBoundsConfig = {
  horizonsS: [300, 600, 1200, 2400, 4800, 9600],
  maxTables: 12,
  warp: true,
  minRebuildMs: 30_000,
};

/** `t` with its typed arrays in shared memory (the warp's few cells are copied with each message). */
export function sharedTable(t: WindowTable): WindowTable {
  const m = t.cch;
  return {
    ...t,
    fromL: t.fromL.map(sharedCopy),
    toL: t.toL.map(sharedCopy),
    boundKph: sharedCopy(t.boundKph),
    cch:
      m === null
        ? null
        : { first: sharedCopy(m.first), head: sharedCopy(m.head), up: sharedCopy(m.up), down: sharedCopy(m.down) },
  };
}

/** A table being built (`WindowBounds` runs its steps one event-loop turn at a time). */
export interface Pending {
  key: string;
  bin: number;
  horizonS: number;
  versionAtStart: number;
  /** set-up steps done (each its own event-loop turn in the background): speed bounds, edge weights, customization state */
  setup: number;
  boundKph: Float64Array;
  weight: Float32Array;
  turnScale: number;
  fromL: Float32Array[];
  toL: Float32Array[];
  step: number;
  /** CCH mode: the running customization */
  customization: CchCustomization | null;
  warp: TimeWarp | null;
  /** its basic-customized metric serves meanwhile (`storeInterim`) */
  interim: boolean;
}
