/**
 * Runs the database work of one role at a lower CPU priority, as its own processes run: every
 * second, the PostgreSQL backends whose `application_name` is `name` (`pg_stat_activity`) are
 * reniced to `nice`. Only possible when PostgreSQL runs on this machine and this process may
 * renice its processes (root, or the same user); otherwise it says so once and does nothing.
 */
import { setPriority } from 'node:os';
import { openPostgres } from '../../src/store/index.js';

export interface Renicer {
  /** Backends reniced so far. */
  readonly reniced: () => number;
  stop(): Promise<void>;
}

export async function reniceBackends(databaseUrl: string, name: string, nice: number): Promise<Renicer> {
  const db = await openPostgres(databaseUrl, { max: 1, applicationName: 'streetwise bench' });
  const done = new Set<number>();
  let refused = false;
  const pass = async (): Promise<void> => {
    const { rows } = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
      name,
    ]);
    for (const { pid } of rows) {
      if (done.has(pid) || refused) continue;
      try {
        setPriority(pid, nice);
        done.add(pid);
      } catch (err) {
        refused = true;
        console.log(`  (cannot renice the "${name}" database sessions: ${(err as Error).message})`);
      }
    }
  };
  await pass();
  const timer = setInterval(() => void pass().catch(() => {}), 1000);
  return {
    reniced: () => done.size,
    async stop() {
      clearInterval(timer);
      await db.close();
    },
  };
}
