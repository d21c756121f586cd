/**
 * The demo application printed by `npm start`: created once, its credentials kept in
 * `<dataDir>/demo-app.json` (mode 0600, outside the repository) so every start can print them.
 * If the database does not know it (e.g. a new DATABASE_URL), it is created there with the same id.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../store/db.js';
import { createApp } from '../auth/index.js';

export interface DemoCredentials {
  appId: string;
  appKey: string;
}

/** Returns the demo app's credentials, creating the app (admin, for the demo's admin APIs) when needed. */
export async function ensureDemoApp(db: Db, dataDir: string): Promise<DemoCredentials> {
  const file = join(dataDir, 'demo-app.json');
  let creds: DemoCredentials | undefined;
  if (existsSync(file)) {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<DemoCredentials>;
    if (typeof parsed.appId === 'string' && typeof parsed.appKey === 'string')
      creds = { appId: parsed.appId, appKey: parsed.appKey };
  }
  if (creds) {
    const r = await db.query('SELECT 1 FROM applications WHERE app_id = $1', [creds.appId]);
    if (r.rows.length === 0)
      await createApp(db, { name: 'demo', admin: true, appId: creds.appId, appKey: creds.appKey });
    return creds;
  }
  const app = await createApp(db, { name: 'demo', admin: true });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ appId: app.appId, appKey: app.appKey }, null, 2), { mode: 0o600 });
  return { appId: app.appId, appKey: app.appKey };
}

/** True when `key` is recorded in platform_state (one-time work already done in this database). */
export async function isDone(db: Db, key: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM platform_state WHERE key = $1', [key])).rows.length > 0;
}

/** Records `key` as done in platform_state. */
export async function markDone(db: Db, key: string, value: unknown = true): Promise<void> {
  await db.query(
    'INSERT INTO platform_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()',
    [key, JSON.stringify(value)],
  );
}
