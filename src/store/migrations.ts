/** Store migrations (platform range 1–99): the change log other processes follow. */
import type { Migration } from './db.js';

export const migrations: Migration[] = [
  {
    version: 3,
    name: 'change log',
    sql: `
      -- What one process wrote that the others keep in memory (speeds, incidents, parking
      -- uploads, keys): one row per change, announced with NOTIFY streetwise_changes; readers
      -- follow seq. Rows older than a day are deleted.
      CREATE TABLE change_log (
        seq bigserial PRIMARY KEY,
        topic text NOT NULL,
        -- the map version a change belongs to ('' when it is not region-specific)
        scope text NOT NULL DEFAULT '',
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX change_log_at ON change_log (at);
    `,
  },
];
