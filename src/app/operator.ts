/**
 * The operator's credentials for CLI commands that run while a server owns the embedded
 * database: the server keeps an admin application "operator (local CLI)", gives it a new key at
 * every start and writes it to `DATA_DIR/operator.json` (mode 0600, readable only by the user who
 * can read the database files anyway). A CLI command reads it, gets an app token like any client
 * and calls the server's admin API on its loopback URL.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../store/db.js';
import { createApp, resetAppKey } from '../auth/index.js';

/** An app id and key with admin rights. */
export interface OperatorCredentials {
  appId: string;
  appKey: string;
}

const STATE_KEY = 'operator-app';
const FILE = 'operator.json';

/** Ensures the operator app exists with a fresh key and writes the credentials file. */
export async function ensureOperatorApp(db: Db, dataDir: string): Promise<OperatorCredentials> {
  const r = await db.query<{ value: { appId?: string } }>('SELECT value FROM platform_state WHERE key = $1', [
    STATE_KEY,
  ]);
  const known = r.rows[0]?.value?.appId;
  let creds: OperatorCredentials | undefined;
  if (typeof known === 'string') {
    const key = await resetAppKey(db, known);
    if (key !== undefined) creds = { appId: known, appKey: key };
  }
  if (creds === undefined) {
    const app = await createApp(db, { name: 'operator (local CLI)', admin: true, tokenExpirationHours: 1 });
    await db.query(
      'INSERT INTO platform_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()',
      [STATE_KEY, JSON.stringify({ appId: app.appId })],
    );
    creds = { appId: app.appId, appKey: app.appKey };
  }
  const file = join(dataDir, FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(creds), { mode: 0o600 });
  renameSync(tmp, file);
  return creds;
}

/** The credentials a running server wrote, if any. */
export function readOperatorCredentials(dataDir: string): OperatorCredentials | undefined {
  const file = join(dataDir, FILE);
  if (!existsSync(file)) return undefined;
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as Partial<OperatorCredentials>;
    return typeof o.appId === 'string' && typeof o.appKey === 'string'
      ? { appId: o.appId, appKey: o.appKey }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the credentials file (server shutdown). */
export function removeOperatorCredentials(dataDir: string): void {
  rmSync(join(dataDir, FILE), { force: true });
}
