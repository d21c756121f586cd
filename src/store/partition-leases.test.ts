import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { countHeld, countHolders, postgresLeases, type PartitionLeases } from './partition-leases.js';
import { openPostgres } from './postgres-db.js';
import type { Db } from './db.js';

const url = process.env.TEST_DATABASE_URL || undefined;
if (!url) {
  if (process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set under CI=true');
  console.warn('partition leases: skipped (set TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test)');
}

/** Rebalances every holder until nobody changes anything (at most 5 passes). */
async function settle(holders: PartitionLeases[]): Promise<void> {
  for (let pass = 0; pass < 5; pass++) {
    let changed = false;
    for (const h of holders) {
      const r = await h.rebalance();
      changed ||= r.taken.length + r.released.length > 0;
    }
    if (!changed) return;
  }
}

/** Every partition held by exactly one holder. */
function disjointCover(holders: PartitionLeases[], count: number): boolean {
  const seen = new Set<number>();
  for (const h of holders) {
    for (const p of h.held()) {
      if (seen.has(p)) return false;
      seen.add(p);
    }
  }
  return seen.size === count;
}

describe.skipIf(!url)('partition leases on PostgreSQL', () => {
  const schema = `t_leases_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let scoped = '';
  let admin: Db;
  beforeAll(async () => {
    admin = await openPostgres(url!);
    await admin.query(`CREATE SCHEMA ${schema}`);
    scoped = `${url}${url!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
  });

  it('divides the partitions among the live holders, one holder per partition, and hands a lost holder’s over', async () => {
    const a = await postgresLeases(scoped, 'probes/x', 64);
    const b = await postgresLeases(scoped, 'probes/x', 64);
    const other = await postgresLeases(scoped, 'probes/y', 64);
    const db = await openPostgres(scoped, { max: 1 });
    try {
      await settle([a, b]);
      expect(a.held()).toHaveLength(32);
      expect(b.held()).toHaveLength(32);
      expect(disjointCover([a, b], 64)).toBe(true);
      // another pool of the same schema is independent
      await other.rebalance();
      expect(other.held()).toHaveLength(64);
      expect(await countHolders(db, 'probes/x')).toBe(2);
      expect(await countHeld(db, 'probes/x')).toBe(64);

      const c = await postgresLeases(scoped, 'probes/x', 64);
      await settle([a, b, c]);
      for (const h of [a, b, c]) expect(h.held().length).toBeLessThanOrEqual(22);
      expect(disjointCover([a, b, c], 64)).toBe(true);

      // b's connection is cut (its process died): the others take its partitions; b knows it lost them
      const bPid = Number((await b.session.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
      await db.query('SELECT pg_terminate_backend($1)', [bPid]);
      for (let i = 0; i < 50 && !b.lost; i++) await new Promise((r) => setTimeout(r, 20));
      expect(b.lost).toBe(true);
      await settle([a, c]);
      expect(a.held().length + c.held().length).toBe(64);
      expect(disjointCover([a, c], 64)).toBe(true);
      expect(await countHolders(db, 'probes/x')).toBe(2);
      await c.close();
      await settle([a]);
      expect(a.held()).toHaveLength(64);
      await b.close();
    } finally {
      await a.close();
      await other.close();
      await db.close();
    }
  });
});
