/**
 * Storing pings while other batches and the workers' clearing run at once on PostgreSQL: batches
 * that share traces, sent in opposite orders, and chunks cleared meanwhile, all commit (no
 * deadlock) and every ping is stored once.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openPostgres } from '../../store/postgres-db.js';
import { runMigrations } from '../../store/migrate.js';
import type { Db } from '../../store/db.js';
import { allMigrations } from '../../app/migrations.js';
import { insertPings } from './ping-store.js';
import { clearPending, readPending } from './pending.js';
import type { ProbeRecord } from './records.js';

const url = process.env.TEST_DATABASE_URL || undefined;
if (!url) {
  if (process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set under CI=true');
  console.warn(
    'concurrent ping batches: skipped (set TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test)',
  );
}

describe.skipIf(!url)('storing pings concurrently on PostgreSQL', () => {
  const schema = `t_pings_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let admin: Db;
  let db: Db;
  beforeAll(async () => {
    admin = await openPostgres(url!);
    await admin.query(`CREATE SCHEMA ${schema}`);
    db = await openPostgres(
      `${url}${url!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    );
    await runMigrations(db, allMigrations());
  });
  afterAll(async () => {
    await db?.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
  });

  it('commits batches that share traces in opposite orders while chunks are cleared', async () => {
    const traces = Array.from({ length: 300 }, (_, i) => `v${i}`);
    /** batch k: one ping per trace at second k, traces in forward or reverse order */
    const batch = (k: number): ProbeRecord[] =>
      (k % 2 === 0 ? traces : [...traces].reverse()).map((traceId) => ({
        traceId,
        ping: { tS: 1.8e9 + k, lat: 39.29, lon: -76.61 },
      }));
    const clearing = async (): Promise<void> => {
      for (let round = 0; round < 10; round++) {
        await db.transaction(async (tx) => {
          const marks = await readPending(tx, 'r', [...traces].reverse());
          await clearPending(tx, 'r', marks);
        });
      }
    };
    const stored = await Promise.all([
      ...Array.from({ length: 16 }, (_, k) => insertPings(db, 'r', batch(k))),
      clearing(),
      clearing(),
    ]);
    const inserted = stored.slice(0, 16).reduce((s, b) => s + (b ? b.inserted : 0), 0);
    expect(inserted).toBe(16 * traces.length);
    const n = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_pings');
    expect(n.rows[0].n).toBe(16 * traces.length);
  });
});
