/**
 * Ingestion work other than a request body, run where jobs run (the ingestion thread of a
 * server, or the caller's thread): process every pending trace now (what a CLI or broker
 * producer asks for after deferred batches), or rebuild the intersection facts of a period.
 */
import type { Db } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import { listStalePending } from '../../probes/ingest/pending.js';
import type { MatchStateCache, ProcessReport } from '../../probes/pipeline.js';
import { readTrajectories } from '../../probes/traversal-store.js';
import { refreshFacts } from '../../analytics/index.js';
import type { SpeedFeeds } from '../../traffic/feeds.js';
import { processStored } from './process-stored.js';

/** A task as it crosses threads. */
export type IngestionTask =
  | { kind: 'process-pending'; olderThanS?: number }
  | { kind: 'refresh-facts'; sinceS?: number; untilS?: number };

/** What `process-pending` did. */
export interface ProcessPendingReport {
  matched: ProcessReport;
  intersectionFacts: number;
  /** the last `speeds` change announced (0 when none) */
  changeSeq: number;
}

/** What `refresh-facts` did. */
export interface RefreshFactsReport {
  trajectories: number;
  facts: number;
}

/** Traces processed per round of `process-pending`. */
const ROUND_TRACES = 1000;

/** Runs a task. */
export async function runTask(
  deps: {
    db: Db;
    region: Region;
    nowS: number;
    feeds?: SpeedFeeds;
    matchStates?: MatchStateCache;
    pace?: () => Promise<void> | undefined;
  },
  task: IngestionTask,
): Promise<ProcessPendingReport | RefreshFactsReport> {
  if (task.kind === 'refresh-facts') {
    return refreshFacts(deps.db, deps.region, (d) =>
      readTrajectories(d, { sinceS: task.sinceS, untilS: task.untilS, mapVersion: deps.region.meta.mapVersion }),
    );
  }
  const total: ProcessPendingReport = {
    matched: { traces: 0, trajectories: 0, traversals: 0, unmatchedPings: 0, edgesUpdated: 0, liveEdges: 0 },
    intersectionFacts: 0,
    changeSeq: 0,
  };
  const seen = new Set<string>();
  for (;;) {
    const ids = (
      await listStalePending(deps.db, task.olderThanS ?? 0, ROUND_TRACES, deps.region.meta.mapVersion)
    ).filter((id) => !seen.has(id));
    if (ids.length === 0) break;
    for (const id of ids) seen.add(id);
    const r = await processStored(deps, ids, new Map());
    for (const k of Object.keys(total.matched) as Array<keyof ProcessReport>) total.matched[k] += r.process[k];
    total.intersectionFacts += r.facts.facts;
    if (r.changeSeq > 0) total.changeSeq = r.changeSeq;
  }
  return total;
}
