/**
 * The composition root's shared objects, built once at start-up (`cli/serve`, tests) and handed to
 * each HTTP plugin. Domain modules never see this type; plugins pass them the slices they need.
 */
import type { Config } from '../config/schema.js';
import type { Db } from '../store/db.js';
import type { Region } from '../network/region.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import type { AuthService } from '../auth/auth-service.js';
import type { ChangeFeed } from '../store/changes.js';
import type { SharedParkingBase } from '../parking/index.js';

export interface AppContext {
  config: Config;
  db: Db;
  region: Region;
  /** learned and live speeds (written by the probe pipeline, read by routing) */
  speeds: SpeedFeeds;
  auth: AuthService;
  /** the clock: unix milliseconds. Tests pass a fixed one. */
  now: () => number;
  /**
   * who processes the probe pings this process stores (the ingestion workers of the region, in
   * this process or others); absent when nobody does (a door then answers with its pings pending)
   */
  ingestion?: IngestionAccess;
  /** the change log this process follows (what other processes and threads wrote); absent in tests */
  changes?: ChangeFeed;
  /**
   * the region's parking lots and blocks in shared memory, built once per process for its serving
   * threads (`app/serving/shared-parking.ts`); absent: the parking service builds its own inventory
   */
  parkingBase?: SharedParkingBase;
}

/** What the serving side knows of the ingestion role. */
export interface IngestionAccess {
  /** live ingestion workers of the served region (0: what is stored waits for one) */
  workers(): Promise<number>;
}
