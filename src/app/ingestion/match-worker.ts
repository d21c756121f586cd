/**
 * The matching helper thread (see `match-thread.ts`): decodes the shared graph, builds its own
 * matcher, and answers each request with the traces matched in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { decodeGraph } from '../../network/bundle.js';
import { MapMatcher, matchTraces, type TraceToMatch } from '../../probes/match/matcher.js';
import { BACKGROUND_NICE } from '../helper-threads.js';
import { StepAside } from './step-aside.js';
import type { MatchWorkerData } from './match-thread.js';

const data = workerData as MatchWorkerData;
const port = parentPort!;
try {
  setPriority(BACKGROUND_NICE);
} catch {
  /* not permitted here: run at normal priority */
}

const matcher = new MapMatcher(decodeGraph(data.graphBytes));
const aside = data.requestGauge === undefined ? undefined : new StepAside(data.requestGauge);
const pace =
  aside === undefined ? undefined : (): Promise<void> | undefined => (aside.busy() ? aside.pause() : undefined);

/** Requests in arrival order, one at a time. */
let queue = Promise.resolve();
port.on('message', (m: { id: number; traces: TraceToMatch[] }) => {
  queue = queue.then(async () => {
    try {
      port.postMessage({ id: m.id, results: await matchTraces(matcher, m.traces, pace) });
    } catch (err) {
      port.postMessage({ id: m.id, error: (err as Error).message });
    }
  });
});
