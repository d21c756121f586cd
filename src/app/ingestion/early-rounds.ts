/**
 * Processing that starts while a large body is still being stored. A body of a fleet's upload is
 * usually grouped by vehicle: once a stored batch no longer holds a trace whose new pings are
 * stored, the body has most likely moved on past it, and that trace can be matched beside the
 * storing of the rest (the thread parses and sends the next batch while the database stores the
 * last, and matching fills the time in between). Early rounds run one at a time, each over at
 * least `minTraces` such traces, with the same `processStored` as the body's final round; a
 * trace that receives pings again after its early round goes back to waiting and is matched again
 * in the final round (from its new pings on, exactly as a growing trace of a feed). A failed early
 * round leaves its traces to the final round. A body of one batch (every feed post) never has an
 * early round.
 */
import type { ProcessReport } from '../../probes/pipeline.js';
import { countLiveEdges } from '../../traffic/live-speeds.js';
import { processStored, type ProcessStoredDeps, type ProcessStoredReport } from './process-stored.js';

/** Traces an early round waits for before it starts (a chunk of matching, `TRACE_CHUNK`). */
export const EARLY_MIN_TRACES = 200;

/** What the early rounds of a body left for its final round, and what they did. */
export interface EarlyOutcome {
  /** traces an early round processed and no later batch touched: the final round leaves them out */
  done: ReadonlySet<string>;
  /** traces with stored pings no successful round has processed: their earliest such ping */
  waiting: ReadonlyMap<string, number>;
  /** each successful early round: its traces and what it did, in order */
  rounds: EarlyRound[];
}

/** One early round. */
export interface EarlyRound {
  traceIds: readonly string[];
  report: ProcessStoredReport;
}

/** Starts early rounds as batches of a body are stored (`batchStored`), `finish` when the body is stored. */
export class EarlyRounds {
  private readonly waiting = new Map<string, number>();
  private readonly done = new Set<string>();
  private readonly rounds: EarlyRound[] = [];
  private running: Promise<void> | undefined;
  /** an early round failed: none is started after it (the final round takes its traces) */
  private failed = false;

  /** @param process what a round runs (`processStored`; tests pass their own) */
  constructor(
    private readonly deps: ProcessStoredDeps,
    private readonly minTraces = EARLY_MIN_TRACES,
    private readonly process: typeof processStored = processStored,
  ) {}

  /**
   * After each batch is stored: `seen` every trace of the batch, `firstNewS` the earliest newly
   * stored ping of each trace that got new pings. Starts a round over the waiting traces the
   * batch did not touch when there are enough of them and no round is under way.
   */
  batchStored(seen: ReadonlySet<string>, firstNewS: ReadonlyMap<string, number>): void {
    for (const [id, s] of firstNewS) {
      this.waiting.set(id, Math.min(s, this.waiting.get(id) ?? Infinity));
      this.done.delete(id);
    }
    if (this.running !== undefined || this.failed) return;
    const ready = new Map<string, number>();
    for (const [id, s] of this.waiting) if (!seen.has(id)) ready.set(id, s);
    if (ready.size < this.minTraces) return;
    for (const id of ready.keys()) this.waiting.delete(id);
    const traceIds = [...ready.keys()];
    this.running = this.process(this.deps, traceIds, ready)
      .then(
        (report) => {
          this.rounds.push({ traceIds, report });
          // a trace that got pings while its round ran is waiting again
          for (const id of ready.keys()) if (!this.waiting.has(id)) this.done.add(id);
        },
        () => {
          // its pings stay marked pending: the final round matches them
          this.failed = true;
          for (const [id, s] of ready) this.waiting.set(id, Math.min(s, this.waiting.get(id) ?? Infinity));
        },
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Waits for the round under way; what is left is the final round's. */
  async finish(): Promise<EarlyOutcome> {
    await this.running;
    return { done: this.done, waiting: this.waiting, rounds: this.rounds };
  }
}

/**
 * One report for a body's early rounds and final round: traces counted once, trajectories,
 * traversals, unmatched pings and facts summed (a trace matched in two rounds counts in both),
 * edges as the union of every round's, live edges counted again over that union, the last change.
 */
export async function mergeRounds(
  deps: ProcessStoredDeps,
  rounds: readonly EarlyRound[],
): Promise<ProcessStoredReport> {
  if (rounds.length === 1) return rounds[0].report;
  const traces = new Set<string>();
  const edges = new Set<number>();
  const process: ProcessReport = {
    traces: 0,
    trajectories: 0,
    traversals: 0,
    unmatchedPings: 0,
    edgesUpdated: 0,
    liveEdges: 0,
  };
  const facts = { trajectories: 0, facts: 0 };
  let changeSeq = 0;
  for (const { traceIds, report } of rounds) {
    for (const id of traceIds) traces.add(id);
    for (const e of report.edges) edges.add(e);
    process.trajectories += report.process.trajectories;
    process.traversals += report.process.traversals;
    process.unmatchedPings += report.process.unmatchedPings;
    facts.trajectories += report.facts.trajectories;
    facts.facts += report.facts.facts;
    changeSeq = Math.max(changeSeq, report.changeSeq);
  }
  process.traces = traces.size;
  process.edgesUpdated = edges.size;
  process.liveEdges =
    edges.size === 0 ? 0 : await countLiveEdges(deps.db, deps.region.meta.mapVersion, deps.nowS, edges);
  return { process, facts, changeSeq, edges };
}
