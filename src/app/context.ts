/**
 * The composition root's shared objects, built once at start-up (`cli/serve`, tests) and handed to
 * each HTTP plugin. Domain modules never see this type; plugins pass them the slices they need.
 */
import type { Config } from '../config/schema.js';
import type { Db } from '../store/db.js';
import type { Region } from '../network/region.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import type { AuthService } from '../auth/auth-service.js';

export interface AppContext {
  config: Config;
  db: Db;
  region: Region;
  /** learned and live speeds (written by the probe pipeline, read by routing) */
  speeds: SpeedFeeds;
  auth: AuthService;
  /** the clock: unix milliseconds. Tests pass a fixed one. */
  now: () => number;
}
