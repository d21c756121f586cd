/**
 * V8's helper threads at the ingestion thread's priority. Node starts one pool of V8 helper
 * threads per process, shared by every isolate in it: they mark and sweep the heaps concurrently
 * and compile hot code in the background. Under a probe feed most of their work is collecting
 * the ingestion thread's garbage, and at normal priority they take the cores from requests just
 * as the ingestion thread would without its niceness. A serving thread loses little by it: the
 * thread of an isolate takes part in each of its own collections and does whatever the helpers
 * have not taken.
 *
 * The pool has no handle in Node: its threads are found by when they were made. Node's platform
 * starts right after the process: first its delayed-task thread, then the pool's workers
 * (`--v8-pool-size`, default 4), before any other thread (libuv's thread pool, which answers file,
 * compression and crypto work for requests, comes later and keeps its priority). Linux only:
 * elsewhere, or when the threads are not as expected, nothing is changed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Niceness of the work behind requests: the ingestion thread and V8's helper threads (0 = normal, 19 = lowest). */
export const BACKGROUND_NICE = 10;

/** Node's default number of V8 helper threads (`--v8-pool-size`). */
const DEFAULT_V8_POOL_SIZE = 4;

/** A thread of this process: its id and the clock tick it started at. */
export interface ThreadStart {
  tid: number;
  startTicks: number;
}

/** The threads of this process (Linux `/proc/self/task`), or null where that is not available. */
export function processThreads(): ThreadStart[] | null {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const out: ThreadStart[] = [];
  for (const t of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      // the fields after the command name (which may hold spaces and parentheses); starttime is field 22
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ tid: Number(t), startTicks: Number(fields[19]) });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** The pool size this process was started with (`--v8-pool-size`; Node's default otherwise). */
export function v8PoolSize(execArgv: readonly string[] = process.execArgv): number {
  let size = DEFAULT_V8_POOL_SIZE;
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i];
    const v = a.startsWith('--v8-pool-size=')
      ? a.slice('--v8-pool-size='.length)
      : a === '--v8-pool-size'
        ? execArgv[i + 1]
        : undefined;
    if (v !== undefined && /^\d+$/.test(v)) size = Number(v);
  }
  return size;
}

/**
 * The threads of Node's platform among `threads`: the `poolSize` + 1 made first after the main
 * thread (`mainTid`), by start tick then id. Empty when there are fewer threads than that.
 */
export function platformThreads(threads: readonly ThreadStart[], mainTid: number, poolSize: number): number[] {
  const others = threads.filter((t) => t.tid !== mainTid).sort((a, b) => a.startTicks - b.startTicks || a.tid - b.tid);
  if (others.length < poolSize + 1) return [];
  return others.slice(0, poolSize + 1).map((t) => t.tid);
}

/**
 * Lowers the priority of Node's platform threads (V8's helpers and its delayed-task thread) to
 * `nice` (threads made later keep their own). Returns the thread ids
 * changed (none where the threads cannot be listed or changed).
 */
export function lowerV8Helpers(nice: number): number[] {
  const threads = processThreads();
  if (threads === null) return [];
  const changed: number[] = [];
  for (const tid of platformThreads(threads, process.pid, v8PoolSize())) {
    try {
      setPriority(tid, nice);
      changed.push(tid);
    } catch {
      // not permitted here: they keep their priority
    }
  }
  return changed;
}
