import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { platformThreads, v8PoolSize } from './helper-threads.js';

describe('platformThreads', () => {
  it('takes the pool size + 1 threads made first after the main thread, by start tick then id', () => {
    const threads = [
      { tid: 100, startTicks: 50 }, // main
      { tid: 109, startTicks: 58 }, // libuv pool, later
      { tid: 102, startTicks: 57 },
      { tid: 101, startTicks: 57 },
      { tid: 103, startTicks: 57 },
      { tid: 108, startTicks: 58 },
    ];
    expect(platformThreads(threads, 100, 2)).toEqual([101, 102, 103]);
    expect(platformThreads(threads, 100, 4)).toEqual([101, 102, 103, 108, 109]);
    // fewer threads than the platform has: not the expected process, nothing is taken
    expect(platformThreads(threads, 100, 5)).toEqual([]);
  });
});

describe('v8PoolSize', () => {
  it("reads --v8-pool-size in both spellings, Node's default otherwise", () => {
    expect(v8PoolSize([])).toBe(4);
    expect(v8PoolSize(['--v8-pool-size=2'])).toBe(2);
    expect(v8PoolSize(['--max-old-space-size=100', '--v8-pool-size', '7'])).toBe(7);
  });
});

// The threads are told apart in a real Node process by what they wait on, independently of how
// lowerV8Helpers picks them: the platform's delayed-task thread waits in epoll, its workers on
// one condition variable of their own (libuv's thread pool waits on another).
const linux = existsSync('/proc/self/task');
// (a test process already at nice 10 or lower priority cannot show the change)
describe.skipIf(!linux)('lowerV8Helpers in a real process', () => {
  it("lowers exactly the delayed-task thread and the V8 workers, not the main thread or libuv's pool", () => {
    const script = `
      import { readFileSync, readdirSync, readFile } from 'node:fs';
      import { lowerV8Helpers } from './src/app/helper-threads.ts';
      // make sure libuv's pool exists
      await new Promise((r) => readFile('package.json', r));
      const changed = lowerV8Helpers(10);
      const read = () => readdirSync('/proc/self/task').map((t) => {
        const stat = readFileSync('/proc/self/task/' + t + '/stat', 'utf8');
        const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
        const [nr, arg0] = readFileSync('/proc/self/task/' + t + '/syscall', 'utf8').trim().split(' ');
        return { tid: Number(t), nice, nr: nr === 'running' ? null : Number(nr), arg0 };
      });
      // a helper may be at work for a moment: look again until every changed thread waits
      let info = read();
      for (let i = 0; i < 100 && info.some((x) => changed.includes(x.tid) && x.nr === null); i++) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        info = read();
      }
      console.log(JSON.stringify({ pid: process.pid, changed, info }));`;
    const out = execFileSync(
      process.execPath,
      ['--v8-pool-size=3', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const { pid, changed, info } = JSON.parse(out.trim().split('\n').pop()!) as {
      pid: number;
      changed: number[];
      info: Array<{ tid: number; nice: number; nr: number; arg0: string }>;
    };
    expect(changed).toHaveLength(4);
    const byTid = new Map(info.map((i) => [i.tid, i]));
    const [delayed, ...workers] = changed.map((t) => byTid.get(t)!);
    // x86-64 and arm64 syscall numbers of epoll_pwait and futex
    const EPOLL_PWAIT = process.arch === 'arm64' ? 22 : 281;
    const FUTEX = process.arch === 'arm64' ? 98 : 202;
    expect(delayed.nr).toBe(EPOLL_PWAIT);
    // one condition variable (its two futex words lie 4 bytes apart), which no other thread waits on
    const sameCv = (a: string, b: string): boolean => {
      const d = BigInt(a) - BigInt(b);
      return d >= -8n && d <= 8n;
    };
    for (const w of workers) {
      expect(w.nr).toBe(FUTEX);
      expect(sameCv(w.arg0, workers[0].arg0)).toBe(true);
    }
    expect(
      info
        .filter((i) => i.nr === FUTEX && sameCv(i.arg0, workers[0].arg0))
        .map((i) => i.tid)
        .sort(),
    ).toEqual(changed.slice(1).sort());
    const base = byTid.get(pid)!.nice;
    for (const i of info) expect(i.nice).toBe(changed.includes(i.tid) ? 10 : base);
    expect(changed).not.toContain(pid);
  });
});
