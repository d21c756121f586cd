/**
 * Change propagation between processes (and threads) sharing one database. A writer records a
 * change with `announceChange` inside its transaction; the row and its NOTIFY become visible at
 * commit. Every process follows the log with a `ChangeFeed`: LISTEN delivers a change within
 * milliseconds, and a periodic re-read (`pollMs`) catches anything a dropped connection missed.
 * Handlers receive the changes of their topic in commit order.
 */
import type { Db, Queryable } from './db.js';

/** The NOTIFY channel of the change log. */
export const CHANGE_CHANNEL = 'streetwise_changes';

/** One recorded change. */
export interface Change {
  seq: number;
  topic: string;
  scope: string;
  payload: Record<string, unknown>;
}

/** Records a change (call inside the writer's transaction); returns its sequence number. */
export async function announceChange(
  q: Queryable,
  topic: string,
  scope: string,
  payload: Record<string, unknown> = {},
): Promise<number> {
  const r = await q.query<{ seq: number }>(
    `WITH c AS (INSERT INTO change_log (topic, scope, payload, at) VALUES ($1, $2, $3::jsonb, clock_timestamp()) RETURNING seq)
     SELECT seq, pg_notify($4, seq::text) FROM c`,
    [topic, scope, JSON.stringify(payload), CHANGE_CHANNEL],
  );
  return Number(r.rows[0].seq);
}

/** The newest sequence number in the log (0 when empty): where a process that just loaded its state starts following. */
export async function latestChangeSeq(q: Queryable): Promise<number> {
  const r = await q.query<{ seq: number | null }>('SELECT max(seq) AS seq FROM change_log');
  return Number(r.rows[0].seq ?? 0);
}

/** Handles the changes of one topic, in order. */
export type ChangeHandler = (changes: Change[]) => Promise<void> | void;

/** Options of a ChangeFeed. */
export interface ChangeFeedOptions {
  /** re-read the log this often even without a notification, ms (default 5000) */
  pollMs?: number;
  /** called when a handler or a read fails (the feed keeps going) */
  onError?: (err: unknown) => void;
  /**
   * after a read, wait this long before the next one a notification asks for, ms (default 0): a
   * feed that commits many changes a second is then applied in batches (`catchUp` does not wait)
   */
  batchMs?: number;
}

/**
 * A sequence number taken by a transaction that has not committed yet leaves a hole below rows
 * already visible; a hole older than this, seconds, is taken to be a rolled-back transaction.
 */
const HOLE_TIMEOUT_S = 30;

/**
 * Follows the change log from a sequence number on. Sequence numbers are taken at insert and
 * become visible at commit, so a later number can appear before an earlier one: the feed keeps
 * the numbers it applied above the first hole and reads from the hole on, applying each change
 * once, whatever order they become visible in.
 */
export class ChangeFeed {
  private readonly handlers = new Map<string, ChangeHandler[]>();
  /** every change ≤ floor has been applied (or was a hole that timed out) */
  private floor: number;
  /** changes applied above `floor` */
  private readonly applied = new Set<number>();
  private running: Promise<void> | null = null;
  private again = false;
  /** a call that arrived during the read wants the next read at once */
  private againNow = false;
  private timer: NodeJS.Timeout | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private waiters: Array<{ seq: number; resolve: () => void }> = [];
  private stopped = false;
  /** when the last read ended (performance.now()), and the timer of a read held back by `batchMs` */
  private lastReadEndMs = -Infinity;
  private held: NodeJS.Timeout | null = null;

  /** `fromSeq`: the last change already reflected in this process's state. */
  constructor(
    private readonly db: Db,
    fromSeq: number,
    private readonly opts: ChangeFeedOptions = {},
  ) {
    this.floor = fromSeq;
  }

  /** Registers a handler for `topic` (changes read from then on reach it). */
  on(topic: string, handler: ChangeHandler): this {
    const list = this.handlers.get(topic) ?? [];
    list.push(handler);
    this.handlers.set(topic, list);
    return this;
  }

  /** Starts listening and polling. */
  async start(): Promise<void> {
    this.unlisten = await this.db.listen(CHANGE_CHANNEL, () => this.poke());
    const pollMs = this.opts.pollMs ?? 5000;
    this.timer = setInterval(() => this.poke(true), pollMs);
    this.timer.unref();
    this.poke();
  }

  /** Every change up to this sequence number has been applied here. */
  appliedThrough(): number {
    return this.floor;
  }

  /** True when change `seq` has been applied here. */
  hasApplied(seq: number): boolean {
    return seq <= this.floor || this.applied.has(seq);
  }

  /** Resolves once change `seq` (committed) has been applied here. */
  catchUp(seq: number): Promise<void> {
    if (this.hasApplied(seq) || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ seq, resolve });
      this.poke(true);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.held) clearTimeout(this.held);
    await this.unlisten?.();
    await this.running?.catch(() => undefined);
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  /**
   * Reads and applies new changes (coalescing calls that arrive while a read runs): at once when
   * `now`, else no sooner than `batchMs` after the last read ended.
   */
  poke(now = false): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      this.againNow ||= now;
      return;
    }
    const waitMs = now ? 0 : this.lastReadEndMs + (this.opts.batchMs ?? 0) - performance.now();
    if (waitMs > 0) {
      this.held ??= setTimeout(() => {
        this.held = null;
        this.poke(true);
      }, waitMs);
      return;
    }
    if (this.held) {
      clearTimeout(this.held);
      this.held = null;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      this.lastReadEndMs = performance.now();
      if (this.again) {
        const urgent = this.againNow;
        this.again = this.againNow = false;
        this.poke(urgent);
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const r = await this.db.query<{
          seq: number;
          topic: string;
          scope: string;
          payload: Record<string, unknown> | string;
          age_s: number;
        }>(
          `SELECT seq, topic, scope, payload, extract(epoch FROM now() - at)::float8 AS age_s
           FROM change_log WHERE seq > $1 ORDER BY seq LIMIT 1000`,
          [this.floor],
        );
        const byTopic = new Map<string, Change[]>();
        for (const row of r.rows) {
          const seq = Number(row.seq);
          if (this.applied.has(seq)) continue;
          const c: Change = {
            seq,
            topic: row.topic,
            scope: row.scope,
            payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
          };
          const list = byTopic.get(c.topic) ?? [];
          list.push(c);
          byTopic.set(c.topic, list);
        }
        for (const [topic, changes] of byTopic) {
          for (const h of this.handlers.get(topic) ?? []) {
            try {
              await h(changes);
            } catch (err) {
              this.opts.onError?.(err);
            }
          }
          for (const c of changes) this.applied.add(c.seq);
        }
        // move the floor over applied numbers, and over holes older than any open transaction
        for (const row of r.rows) {
          const seq = Number(row.seq);
          if (seq !== this.floor + 1 && Number(row.age_s) < HOLE_TIMEOUT_S) break;
          this.floor = seq;
          this.applied.delete(seq);
        }
        this.release();
        if (r.rows.length < 1000 || byTopic.size === 0) break;
      }
    } catch (err) {
      this.opts.onError?.(err);
    }
    this.release();
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const left: typeof this.waiters = [];
    for (const w of this.waiters) this.hasApplied(w.seq) ? w.resolve() : left.push(w);
    this.waiters = left;
  }
}

/** Deletes changes older than `maxAgeS` (default a day). */
export async function pruneChanges(q: Queryable, maxAgeS = 86_400): Promise<number> {
  const r = await q.query('DELETE FROM change_log WHERE at < now() - make_interval(secs => $1)', [maxAgeS]);
  return r.rowCount;
}
