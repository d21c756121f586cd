/**
 * An ingestion worker: the owner of some partitions of one region's traces. It holds its
 * partitions through `PartitionLeases`, and works in rounds: rebalance the partitions (at most
 * once a second), list the pending traces of the partitions it holds (oldest first), process them
 * a chunk at a time (`processChunk`). It waits for a `probes` notification (sent by whoever stores
 * pings) or one poll interval when nothing is pending. A worker that loses its leases forgets what
 * it remembered and joins again. Any number of workers, in any number of processes, share a region
 * on PostgreSQL; the embedded database has one.
 */
import type { Db } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import type { PartitionLeases } from '../../store/partition-leases.js';
import { PARTITIONS, partitionOf } from '../../probes/partition.js';
import { listPending, PROBES_CHANNEL } from '../../probes/ingest/pending.js';
import { adoptUnassigned } from '../../probes/ingest/ping-store.js';
import { MapMatcher } from '../../probes/match/matcher.js';
import { MatchCache } from '../../probes/process/match-cache.js';
import { adoptUnassignedFacts } from '../../analytics/index.js';
import { processChunk, type ChunkReport } from './process-chunk.js';

/**
 * Niceness of ingestion (0 = normal, 19 = lowest): the ingestion thread runs at it, so requests
 * keep the cores.
 */
export const INGESTION_NICE = 10;

/** Traces listed per round, and per chunk (one transaction). */
const ROUND_TRACES = 1000;
const CHUNK_TRACES = 200;

/** How to run a worker. */
export interface WorkerOptions {
  /** reads and notifications */
  db: Db;
  region: Region;
  /** joins the region's partition pool (again after a loss) */
  leases: () => Promise<PartitionLeases>;
  /** idle wait and rebalance interval, ms (default 1000) */
  pollMs?: number;
  /** traces per chunk (default 200) */
  chunkTraces?: number;
  log?: (line: string) => void;
}

/** Running totals of a worker. */
export type WorkerTotals = Omit<ChunkReport, 'changeSeq'> & { chunks: number; lastChangeSeq: number };

/** The owner of some partitions of a region's traces. */
export class IngestionWorker {
  private leases: PartitionLeases | undefined;
  private readonly cache = new MatchCache();
  private readonly matcher: MapMatcher;
  private lastRebalanceMs = 0;
  private adopted = false;
  private running: Promise<void> | undefined;
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  /** what this worker has processed since it started */
  readonly totals: WorkerTotals = {
    traces: 0,
    trajectories: 0,
    traversals: 0,
    unmatchedPings: 0,
    edges: 0,
    facts: 0,
    chunks: 0,
    lastChangeSeq: 0,
  };
  /** the last failure, until a round succeeds */
  lastError: string | undefined;

  constructor(private readonly opts: WorkerOptions) {
    this.matcher = new MapMatcher(opts.region.graph);
  }

  /** Partitions held now. */
  partitions(): readonly number[] {
    return this.leases?.held() ?? [];
  }

  /** Works until `stop`. */
  start(): void {
    this.running ??= this.loop();
  }

  /** Ends the current chunk, gives up the partitions. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.running;
    await this.unlisten?.();
    await this.leases?.close();
    this.leases = undefined;
  }

  /** Processes until no trace of the partitions it holds is pending; returns the totals. */
  async drain(): Promise<WorkerTotals> {
    this.lastRebalanceMs = 0;
    while ((await this.round()) > 0) {
      /* next round */
    }
    return this.totals;
  }

  /** One round: returns the traces processed. */
  async round(): Promise<number> {
    const leases = await this.ownLeases();
    await this.rebalanceIfDue(leases);
    const held = leases.held();
    if (held.length === 0) return 0;
    const name = this.opts.region.meta.name;
    const ids = await listPending(this.opts.db, name, ROUND_TRACES, held.length === PARTITIONS ? undefined : held);
    const chunk = this.opts.chunkTraces ?? CHUNK_TRACES;
    let mine = new Set(held);
    let done = 0;
    for (let i = 0; i < ids.length && !this.stopped && !leases.lost; i += chunk) {
      // between chunks too, so that a partition a dead worker left is taken over within a second;
      // traces of partitions given up are left to their new owner
      if (await this.rebalanceIfDue(leases)) mine = new Set(leases.held());
      const traces = ids.slice(i, i + chunk).filter((id) => mine.has(partitionOf(name, id)));
      if (traces.length === 0) continue;
      const r = await processChunk(
        {
          db: this.opts.db,
          session: leases.session,
          region: this.opts.region,
          matcher: this.matcher,
          cache: this.cache,
        },
        traces,
      );
      this.add(r);
      done += r.traces;
    }
    return done;
  }

  /**
   * Rebalances the partitions when the last rebalance is a poll interval old; returns whether it
   * gave any up (the traces of those must not be processed any more).
   */
  private async rebalanceIfDue(leases: PartitionLeases): Promise<boolean> {
    if (Date.now() - this.lastRebalanceMs < (this.opts.pollMs ?? 1000)) return false;
    this.lastRebalanceMs = Date.now();
    const { released } = await leases.rebalance();
    this.cache.dropPartitions(released);
    return released.length > 0;
  }

  private add(r: ChunkReport): void {
    const t = this.totals;
    t.traces += r.traces;
    t.trajectories += r.trajectories;
    t.traversals += r.traversals;
    t.unmatchedPings += r.unmatchedPings;
    t.edges += r.edges;
    t.facts += r.facts;
    t.chunks++;
    if (r.changeSeq > 0) t.lastChangeSeq = r.changeSeq;
  }

  /** The leases, joined again when they were lost (what was remembered is forgotten then). */
  private async ownLeases(): Promise<PartitionLeases> {
    if (this.leases?.lost) {
      this.opts.log?.('ingestion: lost the partition leases; joining again');
      await this.leases.close();
      this.leases = undefined;
      this.cache.clear();
    }
    if (this.leases === undefined) {
      this.leases = await this.opts.leases();
      this.lastRebalanceMs = 0;
    }
    if (!this.adopted) {
      await adoptUnassigned(this.opts.db, this.opts.region.meta.name, this.opts.region.meta.mapVersion);
      await adoptUnassignedFacts(this.opts.db, this.opts.region.meta.name);
      this.adopted = true;
    }
    return this.leases;
  }

  private async loop(): Promise<void> {
    const name = this.opts.region.meta.name;
    this.unlisten = await this.opts.db
      .listen(PROBES_CHANNEL, (payload) => {
        if (payload === name) this.wakeUp?.();
      })
      .catch(() => undefined);
    while (!this.stopped) {
      let done = 0;
      try {
        done = await this.round();
        this.lastError = undefined;
      } catch (err) {
        this.lastError = err instanceof Error ? err.message : String(err);
        this.opts.log?.(`ingestion: a round failed (${this.lastError}); trying again`);
      }
      if (done === 0 && !this.stopped) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.opts.pollMs ?? 1000);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }
}
