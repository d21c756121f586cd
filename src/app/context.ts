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
import type { Ingestion } from './ingestion/ingestion.js';

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
   * where probe bodies are processed: the ingestion thread of a server; absent in tests and tools,
   * where the HTTP layer runs jobs on the calling thread
   */
  ingestion?: Ingestion;
  /** the change log this process follows (what other processes and threads wrote); absent in tests */
  changes?: ChangeFeed;
}
