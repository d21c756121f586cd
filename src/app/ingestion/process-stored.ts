/**
 * Everything that follows stored pings, in order: map matching and traversals, learned and live
 * speeds (probes/), intersection facts of the same traces (analytics/), a `speeds` change for the
 * other processes and threads, and finally the pending marks (only now is the work done).
 * Used by every ingestion path: the ingestion thread, the CLI, the simulator, the demo.
 */
import type { Db } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import { announceChange } from '../../store/changes.js';
import { clearPending } from '../../probes/ingest/pending.js';
import { processTracesMarked, type MatchStateCache, type ProcessReport } from '../../probes/pipeline.js';
import type { TraceMatcher } from '../../probes/match/matcher.js';
import type { Trajectory } from '../../probes/trajectory.js';
import { refreshFacts } from '../../analytics/index.js';
import type { SpeedFeeds } from '../../traffic/feeds.js';

/** What processing needs. */
export interface ProcessStoredDeps {
  db: Db;
  region: Region;
  /** wall clock, unix seconds (live speeds) */
  nowS: number;
  /** feeds to update in this thread (none when omitted: other threads follow the change) */
  feeds?: SpeedFeeds;
  onMatchProgress?: (done: number, total: number) => void;
  /** matching states kept between calls (the ingestion thread's), so growing traces are matched incrementally */
  matchStates?: MatchStateCache;
  /** called between traces: a promise to wait for before the next (see `ProbePipelineDeps.pace`) */
  pace?: () => Promise<void> | undefined;
  /** traces matched per chunk (see `ProbePipelineDeps.traceChunk`) */
  traceChunk?: number;
  /** matches traces without a matching state on another thread (see `ProbePipelineDeps.matchHelper`) */
  matchHelper?: TraceMatcher;
}

/** What processing did. */
export interface ProcessStoredReport {
  process: ProcessReport;
  /** intersection facts rebuilt, and from how many trajectories */
  facts: { trajectories: number; facts: number };
  /** the `speeds` change announced (0 when no edge changed) */
  changeSeq: number;
  /** edges of the replaced traversals */
  edges: ReadonlySet<number>;
}

/**
 * Processes `traceIds` (the traces that got new pings, plus any with pending marks): matches
 * them from `firstNewS` (or their pending marks) on, rebuilds the facts of the re-matched
 * trajectories (from the matcher's output as stored, not read back), announces the changed edges
 * and clears the marks it read.
 */
export async function processStored(
  deps: ProcessStoredDeps,
  traceIds: readonly string[],
  firstNewS?: ReadonlyMap<string, number>,
): Promise<ProcessStoredReport> {
  const { db, region } = deps;
  const mapVersion = region.meta.mapVersion;
  const facts = { trajectories: 0, facts: 0 };
  // the facts of every re-matched trajectory, chunk by chunk as its traversals are written (the
  // parts before a trace's tail were not re-matched: their facts stand)
  const onStored = async (trajectories: readonly Trajectory[]): Promise<void> => {
    const r = await refreshFacts(db, region, () => trajectories);
    facts.trajectories += r.trajectories;
    facts.facts += r.facts;
  };
  const res = await processTracesMarked(
    {
      db,
      graph: region.graph,
      mapVersion,
      timeZone: region.meta.timeZone,
      feeds: deps.feeds,
      nowS: deps.nowS,
      onMatchProgress: deps.onMatchProgress,
      matchStates: deps.matchStates,
      pace: deps.pace,
      onStored,
      traceChunk: deps.traceChunk,
      matchHelper: deps.matchHelper,
    },
    traceIds,
    firstNewS,
  );
  const changeSeq =
    res.edges.size > 0
      ? await announceChange(db, 'speeds', mapVersion, { edges: [...res.edges], learnedBins: [...res.learnedBins] })
      : 0;
  await clearPending(db, res.marks);
  return { process: res.report, facts, changeSeq, edges: res.edges };
}
