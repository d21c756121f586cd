/** Platform migrations (versions 1–99): applications and token signing keys. */
import type { Migration } from '../store/db.js';

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'applications and signing keys',
    sql: `
      CREATE TABLE applications (
        app_id uuid PRIMARY KEY,
        name text NOT NULL,
        -- SHA-1 hex of lower(appId|appKey) and of appId|appKey as given: the two accepted
        -- hashToken forms. The app key itself is shown once at creation and never stored.
        hash_token_lower text NOT NULL,
        hash_token_exact text NOT NULL,
        admin boolean NOT NULL DEFAULT false,
        -- 0 = disabled, 1 = suspended, 2 = active
        status smallint NOT NULL DEFAULT 2,
        token_expiration_hours integer NOT NULL DEFAULT 24,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE signing_keys (
        kid text PRIMARY KEY,
        -- base64 HMAC-SHA256 secret (32 random bytes)
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- the newest non-retired key signs; retired keys still verify until retired_at + 48 h
        retired_at timestamptz
      );
    `,
  },
];

migrations.push({
  version: 2,
  name: 'platform state',
  sql: `
    -- one-time facts about this database, e.g. that the demo data has been loaded into it
    CREATE TABLE platform_state (
      key text PRIMARY KEY,
      value jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `,
});
