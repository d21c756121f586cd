/**
 * Every migration of every module, in version order. Version ranges by owner:
 * 1–99 platform (auth, store), 100–199 routing/traffic, 200–249 parking inventory,
 * 250–299 parking reservations/users/open spots, 300–399 probes and learned speeds, 400–499 analytics.
 */
import type { Migration } from '../store/db.js';
import { migrations as platform } from '../auth/migrations.js';
import { migrations as store } from '../store/migrations.js';
import { migrations as routing } from '../routing/migrations.js';
import { migrations as parking } from '../parking/migrations.js';
import { migrations as reservations } from '../parking/reservations/migrations.js';
import { migrations as probes } from '../probes/migrations.js';
import { migrations as analytics } from '../analytics/migrations.js';

/** All migrations sorted by version; throws on a duplicate version. */
export function allMigrations(): Migration[] {
  const all = [...platform, ...store, ...routing, ...parking, ...reservations, ...probes, ...analytics].sort(
    (a, b) => a.version - b.version,
  );
  for (let i = 1; i < all.length; i++) {
    if (all[i].version === all[i - 1].version)
      throw new Error(`duplicate migration version ${all[i].version}: ${all[i - 1].name} and ${all[i].name}`);
  }
  return all;
}
