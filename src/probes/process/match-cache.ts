/**
 * What the owner of a trace remembers between processing rounds so that a growing trace is
 * matched only over its new pings: the matcher's state, where the re-matched tail started, and
 * digests of the traversal rows it stored. Valid only while this process owns the trace's
 * partition: the owner is the only writer of the trace, so what it wrote is what is stored.
 */
import type { MatchState } from '../match/matcher.js';

/** Where re-matching of a trace starts. */
export interface TraceTail {
  /** first ping time to re-match, unix seconds */
  cutS: number;
  /** stored parts entirely before the cut (kept) */
  keptParts: number;
  /** stored pings before the cut */
  pingsBefore: number;
}

/** What is kept of a recently processed trace. */
export interface TraceMemory {
  state: MatchState;
  /** digests of its traversal rows as stored by the same write (`replaceTraversals`' `rows`) */
  rows?: ReadonlyMap<string, string>;
  /** the tail the state was matched over (null: the whole trace) */
  tail: TraceTail | null;
  /** the trace's partition (memories are dropped with the partition) */
  partition: number;
}

/**
 * Memories of recently processed traces, least recently used dropped beyond `maxTraces` traces or
 * `maxPings` pings held (a memory holds its trace's matched pieces, so it grows with the trace). A
 * dropped trace is matched again from its first ping the next time, with the same result. An entry
 * is taken out while its trace is processed and put back only after the result is committed, so a
 * failed write never leaves it ahead of the database.
 */
export class MatchCache {
  private readonly memories = new Map<string, TraceMemory>();
  private pings = 0;
  constructor(
    private readonly maxTraces = 20_000,
    private readonly maxPings = 300_000,
  ) {}

  /** The memory of `traceId`, taken out of the cache. */
  take(traceId: string): TraceMemory | undefined {
    const m = this.memories.get(traceId);
    if (m !== undefined) this.remove(traceId, m);
    return m;
  }

  /** Keeps `memory` (its state's trace id is the key). */
  put(memory: TraceMemory): void {
    const id = memory.state.traceId;
    const old = this.memories.get(id);
    if (old !== undefined) this.remove(id, old);
    this.memories.set(id, memory);
    this.pings += memory.state.consumed.length;
    while (this.memories.size > this.maxTraces || (this.pings > this.maxPings && this.memories.size > 1)) {
      const [oldest, m] = this.memories.entries().next().value as [string, TraceMemory];
      this.remove(oldest, m);
    }
  }

  /** Forgets the traces of `partitions` (given up: another process may write them now). */
  dropPartitions(partitions: Iterable<number>): void {
    const gone = new Set(partitions);
    for (const [id, m] of this.memories) if (gone.has(m.partition)) this.remove(id, m);
  }

  /** Forgets everything. */
  clear(): void {
    this.memories.clear();
    this.pings = 0;
  }

  get size(): number {
    return this.memories.size;
  }

  /** Pings held by the memories. */
  get heldPings(): number {
    return this.pings;
  }

  private remove(id: string, m: TraceMemory): void {
    this.memories.delete(id);
    this.pings -= m.state.consumed.length;
  }
}
