/**
 * A helper thread of the ingestion thread that map-matches whole traces (`TraceMatcher`): while
 * it matches the next chunk of a large body's traces, the ingestion thread writes the last one
 * (traversals, facts), so the two halves of processing run on both cores instead of one after
 * the other. It shares the region's graph (the same bytes, in shared memory), matches with the
 * default options, as the ingestion thread does, and gives back exactly what matching there would
 * (structured clones of the trajectories; no matching state comes back). It runs at the ingestion thread's
 * lower priority and steps aside while requests are answered, as that thread does.
 */
import type { Worker } from 'node:worker_threads';
import type { MatchedTrace, TraceMatcher, TraceToMatch } from '../../probes/match/matcher.js';
import { siblingModule, startThread } from '../../store/thread.js';

/** What the helper thread starts with. */
export interface MatchWorkerData {
  /** the region's graph file in a SharedArrayBuffer (`readGraphShared`) */
  graphBytes: Uint8Array;
  /** requests under way in the serving threads (`step-aside.ts`); none: never steps aside */
  requestGauge?: SharedArrayBuffer;
}

type Reply = { id: number; results: MatchedTrace[] } | { id: number; error: string };

/** The helper thread, started on first use; a thread that failed is replaced by the next use. */
export class MatchThread implements TraceMatcher {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: MatchedTrace[]) => void; reject: (e: Error) => void }>();
  /** traces matched on the helper so far */
  traces = 0;

  constructor(private readonly data: MatchWorkerData) {}

  match(traces: readonly TraceToMatch[]): Promise<MatchedTrace[]> {
    const id = this.nextId++;
    const w = this.thread();
    return new Promise<MatchedTrace[]>((resolve, reject) => {
      this.waiting.set(id, {
        resolve: (r) => {
          this.traces += traces.length;
          resolve(r);
        },
        reject,
      });
      w.postMessage({ id, traces });
    });
  }

  /** Stops the thread; requests under way fail. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w !== undefined) await w.terminate();
  }

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const w = startThread(siblingModule(import.meta.url, 'match-worker'), this.data);
    const fail = (err: Error): void => {
      if (this.worker === w) this.worker = undefined;
      for (const p of this.waiting.values()) p.reject(err);
      this.waiting.clear();
    };
    w.on('message', (m: Reply) => {
      const p = this.waiting.get(m.id);
      if (p === undefined) return;
      this.waiting.delete(m.id);
      if ('error' in m) p.reject(new Error(`matching on the helper thread failed: ${m.error}`));
      else p.resolve(m.results);
    });
    w.on('error', (err) => fail(new Error(`the matching helper thread failed: ${err.message}`)));
    w.on('exit', (code) => fail(new Error(`the matching helper thread stopped (exit code ${code})`)));
    this.worker = w;
    return w;
  }
}
