/**
 * The one processing step of probe ingestion, whatever door the pings came in by: a chunk of
 * pending traces of one region is read, map-matched, and written in ONE transaction on the
 * owner's lease session — traversals (with the learned speed sums they change), the intersection
 * facts of the re-matched trajectories, the `speeds` change that tells every process which edges
 * and learned bins changed, and the clearing of the pending marks read. Either all of it commits
 * or none of it: a failure leaves the marks for the next attempt and announces nothing.
 */
import type { Db } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import { announceChange } from '../../store/changes.js';
import { clearPending } from '../../probes/ingest/pending.js';
import type { MapMatcher } from '../../probes/match/matcher.js';
import { asStored, replaceTraversals } from '../../probes/traversal-store.js';
import { partitionOf } from '../../probes/partition.js';
import { readChunk } from '../../probes/process/read-chunk.js';
import { matchChunk } from '../../probes/process/match-chunk.js';
import type { MatchCache } from '../../probes/process/match-cache.js';
import { storeTrajectoryFacts } from '../../analytics/index.js';

/** What processing reads with, writes with and works on. */
export interface ChunkContext {
  /** reads (any connection) */
  db: Db;
  /** writes: the lease session of the chunk's partitions (`PartitionLeases.session`) */
  session: Db;
  region: Region;
  matcher: MapMatcher;
  /** the owner's memories of its traces (absent: every trace is matched from its tail) */
  cache?: MatchCache;
}

/** What processing a chunk did. */
export interface ChunkReport {
  /** traces processed (those of the chunk that still had a pending mark) */
  traces: number;
  trajectories: number;
  traversals: number;
  /** pings with no road within the search radius, or unreachable outliers */
  unmatchedPings: number;
  /** edges of the replaced traversals (their live and learned speeds were announced) */
  edges: number;
  facts: number;
  /** the `speeds` change committed (0 when no edge changed) */
  changeSeq: number;
}

/** Processes the traces `traceIds` of `ctx.region` (those without a pending mark are skipped). */
export async function processChunk(ctx: ChunkContext, traceIds: readonly string[]): Promise<ChunkReport> {
  const { region } = ctx;
  const name = region.meta.name;
  const mapVersion = region.meta.mapVersion;
  const scope = { region: name, mapVersion, maxGapS: ctx.matcher.options.maxGapS };
  const input = await readChunk(ctx.db, scope, traceIds, ctx.cache);
  const matched = matchChunk(ctx.matcher, input);
  const written = await ctx.session.transaction(async (tx) => {
    const t = await replaceTraversals(
      tx,
      region.graph,
      { mapVersion, timeZone: region.meta.timeZone },
      input.traceIds,
      matched.trajectories,
      matched.fromPart,
      matched.known,
    );
    const facts = await storeTrajectoryFacts(tx, region, matched.trajectories.map(asStored), t.removedParts);
    await clearPending(tx, name, input.marks);
    // the last statement, so that the change's time (`change_log.at`) is that of the commit, near enough
    const changeSeq =
      t.edges.size > 0
        ? await announceChange(tx, 'speeds', mapVersion, { edges: [...t.edges], learnedBins: [...t.learnedBins] })
        : 0;
    return { rows: t.rows, edges: t.edges.size, facts, changeSeq };
  });
  for (const state of matched.states) {
    ctx.cache?.put({
      state,
      rows: written.rows.get(state.traceId),
      tail: input.tails.get(state.traceId) ?? null,
      partition: partitionOf(name, state.traceId),
    });
  }
  return {
    traces: input.traceIds.length,
    trajectories: matched.trajectories.length,
    traversals: matched.trajectories.reduce((n, t) => n + t.traversals.length, 0),
    unmatchedPings: matched.unmatchedPings,
    edges: written.edges,
    facts: written.facts,
    changeSeq: written.changeSeq,
  };
}
