/** Messages from the benchmarks' helper processes (the feeder, the timed load). */
import type { ChildProcess } from 'node:child_process';

/** Resolves with the next message `{ t, … }` of type `t` from `child` (`name` in errors); rejects if it exits first. */
export function nextMessage(child: ChildProcess, name: string, t: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: Record<string, unknown>): void => {
      if (m.t !== t) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m);
    };
    const onExit = (code: number | null): void => reject(new Error(`${name} exited with ${code} before "${t}"`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
