/**
 * Leases on the numbered partitions of a work pool, so that every partition has exactly one live
 * holder. On PostgreSQL a lease is a session-level advisory lock held by one dedicated connection
 * of the holder (`postgresLeases`): PostgreSQL grants each lock to one session and releases it when
 * the session ends (the process exits, is killed, or its connection is lost and TCP keepalives
 * give up). The holder sends every write of a partition's data through that same session
 * (`session`), so a holder that lost its leases can no longer commit anything: a session that ended
 * cannot commit, and a new holder gets the lock only after it ended. Holders count each other
 * through a membership lock each, and take or give up partitions until each holds its fair share
 * (`rebalance`). The embedded database has one process, hence one holder of everything
 * (`soloLeases`).
 */
import pg from 'pg';
import type { Db, QueryResult, Queryable } from './db.js';
import { asParam } from './postgres-db.js';

/** A holder's leases on the partitions 0 … count − 1 of one pool. */
export interface PartitionLeases {
  /** Partitions held now, ascending. */
  held(): readonly number[];
  /**
   * Takes free partitions up to this holder's fair share (⌈count / live holders⌉) and gives up
   * those beyond it; returns what changed. Call between units of work, never during one.
   */
  rebalance(): Promise<{ taken: number[]; released: number[] }>;
  /** Live holders of the pool (this one included). */
  members(): Promise<number>;
  /** True once the leases are lost (the session ended): stop, forget what was cached, start again. */
  readonly lost: boolean;
  /** The connection every write under these leases must use. */
  readonly session: Db;
  /** Gives up every lease. */
  close(): Promise<void>;
}

/** All partitions, always: the one process of an embedded database. */
export function soloLeases(db: Db, count: number): PartitionLeases {
  const all = Array.from({ length: count }, (_, i) => i);
  return {
    held: () => all,
    rebalance: async () => ({ taken: [], released: [] }),
    members: async () => 1,
    lost: false,
    session: db,
    close: async () => undefined,
  };
}

/** Membership slots tried, and therefore the most holders of one pool. */
const MAX_MEMBERS = 1024;

/** FNV-1a of a string, 31 bits (advisory lock keys are compared as non-negative oids). */
function key31(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x7fffffff;
}

/** How quickly the server notices a holder whose host vanished without closing the connection, s. */
const KEEPALIVE = { idle: 3, interval: 1, count: 3 };

/** Runs one statement on the lease session. */
type SessionQuery = <T>(sql: string, params?: unknown[]) => Promise<QueryResult<T>>;

/** Takes the first free membership slot of the pool (its advisory lock on `memberKey`); −1 when all are taken. */
async function claimSlot(q: SessionQuery, memberKey: number): Promise<number> {
  for (let s = 0; s < MAX_MEMBERS; s++) {
    const r = await q<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [memberKey, s]);
    if (r.rows[0].ok) return s;
  }
  return -1;
}

/** The lease session as a `Db` (one connection: transactions in turn, no LISTEN, closed with the leases). */
function sessionDb(q: SessionQuery): Db {
  return {
    kind: 'postgres',
    query: q,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      await q('BEGIN');
      try {
        const result = await fn({ query: q });
        await q('COMMIT');
        return result;
      } catch (err) {
        await q('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
    exec: async (sql) => {
      await q(sql);
    },
    listen: () => Promise.reject(new Error('a lease session does not LISTEN')),
    close: async () => undefined,
  };
}

/**
 * Brings `held` to this holder's fair share of `count` partitions among `live` holders, this one
 * of rank `rank`: releases the surplus (others' partitions first), then takes free partitions
 * (its own first, p ≡ rank mod live).
 */
async function rebalanceHeld(
  q: SessionQuery,
  partitionKey: number,
  held: Set<number>,
  count: number,
  live: number,
  rank: number,
): Promise<{ taken: number[]; released: number[] }> {
  const fair = Math.ceil(count / live);
  // this holder's own partitions first (p ≡ rank mod live), then the others
  const order: number[] = [];
  for (let p = 0; p < count; p++) if (p % live === rank) order.push(p);
  for (let p = 0; p < count; p++) if (p % live !== rank) order.push(p);
  const released: number[] = [];
  const taken: number[] = [];
  for (let i = order.length - 1; i >= 0 && held.size > fair; i--) {
    const p = order[i];
    if (!held.has(p)) continue;
    await q('SELECT pg_advisory_unlock($1, $2)', [partitionKey, p]);
    held.delete(p);
    released.push(p);
  }
  for (const p of order) {
    if (held.size >= fair) break;
    if (held.has(p)) continue;
    const r = await q<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [partitionKey, p]);
    if (r.rows[0].ok) {
      held.add(p);
      taken.push(p);
    }
  }
  return { taken, released };
}

/**
 * Joins pool `pool` (e.g. `probes/<region>`) of `count` partitions on the PostgreSQL database at
 * `url`, with a dedicated session. Keys are scoped to the session's schema, so test schemas of one
 * database never share a pool. Holds no partition until the first `rebalance`.
 */
export async function postgresLeases(url: string, pool: string, count: number): Promise<PartitionLeases> {
  const client = new pg.Client({ connectionString: url, keepAlive: true });
  await client.connect();
  let lost = false;
  const onLost = (): void => {
    lost = true;
  };
  client.on('error', onLost);
  client.on('end', onLost);
  const q = async <T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> => {
    const r = await client.query(sql, params?.map(asParam));
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  };
  await q(
    `SELECT set_config('jit', 'off', false), set_config('tcp_keepalives_idle', $1, false),
       set_config('tcp_keepalives_interval', $2, false), set_config('tcp_keepalives_count', $3, false)`,
    [String(KEEPALIVE.idle), String(KEEPALIVE.interval), String(KEEPALIVE.count)],
  );
  const schema = (await q<{ s: string }>('SELECT current_schema() AS s')).rows[0].s;
  const partitionKey = key31(`${schema}\u0000${pool}\u0000partition`);
  const memberKey = key31(`${schema}\u0000${pool}\u0000member`);
  const slot = await claimSlot(q, memberKey);
  if (slot < 0) {
    await client.end();
    throw new Error(`pool ${pool} already has ${MAX_MEMBERS} holders`);
  }
  const held = new Set<number>();
  /** live membership slots, ascending */
  const liveSlots = async (): Promise<number[]> => {
    const r = await q<{ slot: number }>(
      `SELECT objid::bigint AS slot FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1::bigint::oid
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY 1`,
      [memberKey],
    );
    return r.rows.map((x) => Number(x.slot));
  };
  const session = sessionDb(q);
  return {
    held: () => [...held].sort((a, b) => a - b),
    get lost() {
      return lost;
    },
    session,
    members: async () => (await liveSlots()).length,
    async rebalance() {
      const slots = await liveSlots();
      return rebalanceHeld(q, partitionKey, held, count, Math.max(1, slots.length), Math.max(0, slots.indexOf(slot)));
    },
    async close() {
      held.clear();
      if (!lost) await client.end().catch(() => undefined);
    },
  };
}

/** Live holders of pool `pool` on the PostgreSQL database of `db` (from any connection of it). */
export function countHolders(db: Queryable, pool: string): Promise<number> {
  return countLocks(db, pool, 'member');
}

/** Partitions of pool `pool` held by a live holder now (from any connection of the database). */
export function countHeld(db: Queryable, pool: string): Promise<number> {
  return countLocks(db, pool, 'partition');
}

/** Granted advisory locks of pool `pool` of one kind, in this schema's database. */
async function countLocks(db: Queryable, pool: string, kind: 'member' | 'partition'): Promise<number> {
  const schema = (await db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s;
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks
     WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1::bigint::oid
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [key31(`${schema}\u0000${pool}\u0000${kind}`)],
  );
  return Number(r.rows[0].n);
}
