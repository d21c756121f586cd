import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, refreshFacts } from '../../src/analytics/index.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import type { Trajectory } from '../../src/probes/trajectory.js';
import { buildStory } from './story.js';

const { fx, trajectories } = buildStory();
let db: Db;
beforeAll(async () => {
  db = await openPglite();
  await runMigrations(db, migrations);
});
afterAll(async () => db?.close());

async function* stream(ts: Trajectory[]): AsyncGenerator<Trajectory> {
  for (const t of ts) {
    await db.query('SELECT 1'); // the source reads the same database between items
    yield t;
  }
}

describe('refreshFacts', () => {
  it('builds and stores facts from a streaming source, idempotently', async () => {
    expect(await refreshFacts(db, fx.region, () => stream(trajectories))).toEqual({ trajectories: 6, facts: 7 });
    expect(await refreshFacts(db, fx.region, () => trajectories)).toEqual({ trajectories: 6, facts: 7 });
    const n = await db.query<{ n: number; mv: string }>(
      'SELECT count(*)::int AS n, max(map_version) AS mv FROM analytics_fact',
    );
    expect(n.rows[0]).toEqual({ n: 7, mv: '20261101' });
  });

  it('drops the facts of a trace part that no longer crosses an intersection', async () => {
    const a = trajectories.find((t) => t.traceId === 'A')!;
    const shortened: Trajectory = { ...a, traversals: a.traversals.slice(0, 1) };
    await refreshFacts(db, fx.region, async () => [shortened]);
    const n = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM analytics_fact WHERE trace_id = 'A'`);
    expect(n.rows[0].n).toBe(0);
  });
});
