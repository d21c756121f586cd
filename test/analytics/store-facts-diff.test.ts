import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, rebuildRollups, storeFacts, type Fact } from '../../src/analytics/index.js';
import { openPglite, runMigrations, type Db } from '../../src/store/index.js';
import { createRng } from '../../src/sim/prng.js';

// Growing traces re-stored round after round, as probe ingestion does: storeFacts writes only the
// difference to what is stored. Checked against the test's own model of the latest content of
// every trace part (facts) and against rollups rebuilt from scratch out of the final facts.

const INTERSECTIONS = ['39.10001_-76.00001', '39.10002_-76.00002', '39.10003_-76.00003', '39.10004_-76.00004'];
const DAY_MS = Date.UTC(2026, 10, 16);
/** Values on a 1/8 grid: float4-exact, so float8 sums do not depend on the summation order. */
const q8 = (x: number): number => Math.round(x * 8) / 8;

function crossing(rnd: () => number, traceId: string, occurrence: number, ix: number, minute: number): Fact {
  const free = q8(8 + rnd() * 20);
  const delay = rnd() < 0.3 ? 0 : q8(rnd() * 120);
  const stopped = delay > 15;
  const entryS = DAY_MS / 1000 + minute * 60 + Math.floor(rnd() * 60);
  return {
    traceId,
    part: 0,
    intersectionKey: INTERSECTIONS[ix],
    occurrence,
    intersectionId: 2000 + ix,
    movementId: ix * 10 + (occurrence % 3),
    inEdge: ix * 10,
    outEdge: ix * 10 + 5 + (occurrence % 3),
    entryS,
    exitS: entryS + free + delay,
    localDay: '2026-11-16',
    localMinute: minute,
    localDow: 1,
    zoneLengthM: 180,
    travelTimeS: free + delay,
    freeFlowS: free,
    controlDelayS: delay,
    stopped,
    stopDurationS: stopped ? delay / 2 : 0,
    approachSpeedKph: rnd() < 0.2 ? null : q8(5 + rnd() * 50),
    zoneStart: [39, -76],
    zoneEnd: [39, -76],
  };
}

const TABLES = ['analytics_rollup_15m', 'analytics_rollup_hour', 'analytics_rollup_month'];

async function dump(db: Db, table: string): Promise<unknown[]> {
  return (await db.query(`SELECT * FROM ${table} ORDER BY 1, 2, 3, 4, 5`)).rows;
}

describe('storeFacts on growing traces', () => {
  let db: Db;
  /** latest facts of every trace (part 0), as the test built them */
  const model = new Map<string, Fact[]>();
  const written: number[] = [];
  const offered: number[] = [];

  beforeAll(async () => {
    db = await openPglite();
    await runMigrations(db, migrations);
    const rnd = createRng(20261125).next;
    const traces = Array.from({ length: 30 }, (_, i) => `grow-${i}`);
    // each trace starts at its own minute and crosses one intersection every few minutes
    const clock = new Map(traces.map((t, i) => [t, 420 + i * 3]));
    for (let round = 0; round < 10; round++) {
      const touched = traces.filter(() => rnd() < 0.7);
      const batch: Fact[] = [];
      for (const t of touched) {
        const prev = model.get(t) ?? [];
        const next = prev.map((f) => ({ ...f }));
        // the last crossing is re-measured with the new pings: its delay (and so its slice's sums) may change
        if (next.length > 0 && rnd() < 0.5) {
          const last = next[next.length - 1];
          last.controlDelayS = q8(last.controlDelayS + 1 + rnd() * 20);
          last.travelTimeS = last.freeFlowS + last.controlDelayS;
          last.exitS = last.entryS + last.travelTimeS;
          last.stopped = last.controlDelayS > 15;
          last.stopDurationS = last.stopped ? last.controlDelayS / 2 : 0;
        }
        // a re-match may drop the last crossing altogether, or move it into the next 15-minute bin
        if (next.length > 0 && rnd() < 0.15) next.pop();
        else if (next.length > 0 && rnd() < 0.1)
          next[next.length - 1].localMinute = Math.min(1439, next[next.length - 1].localMinute + 15);
        // new crossings at the end
        const adds = Math.floor(rnd() * 3);
        for (let a = 0; a < adds; a++) {
          const minute = clock.get(t)! + 2 + Math.floor(rnd() * 6);
          clock.set(t, minute);
          const ix = Math.floor(rnd() * INTERSECTIONS.length);
          const occurrence = next.filter((f) => f.intersectionKey === INTERSECTIONS[ix]).length;
          next.push(crossing(rnd, t, occurrence, ix, minute));
        }
        model.set(t, next);
        batch.push(...next);
      }
      offered.push(batch.length);
      written.push(
        await storeFacts(db, batch, { mapVersion: '20261116', replace: touched.map((t) => ({ traceId: t, part: 0 })) }),
      );
    }
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('holds exactly the latest facts of every trace part', async () => {
    const rows = (
      await db.query<{
        trace_id: string;
        intersection_key: string;
        occurrence: number;
        local_minute: number;
        control_delay_s: number;
        stopped: boolean;
        exit_s: number;
      }>(
        'SELECT trace_id, intersection_key, occurrence, local_minute, control_delay_s, stopped, exit_s FROM analytics_fact ORDER BY trace_id, intersection_key, occurrence',
      )
    ).rows.map((r) => ({
      ...r,
      occurrence: Number(r.occurrence),
      local_minute: Number(r.local_minute),
      control_delay_s: Number(r.control_delay_s),
      exit_s: Number(r.exit_s),
    }));
    const expected = [...model.values()]
      .flat()
      .map((f) => ({
        trace_id: f.traceId,
        intersection_key: f.intersectionKey,
        occurrence: f.occurrence,
        local_minute: f.localMinute,
        control_delay_s: f.controlDelayS,
        stopped: f.stopped,
        exit_s: f.exitS,
      }))
      .sort((a, b) =>
        a.trace_id < b.trace_id
          ? -1
          : a.trace_id > b.trace_id
            ? 1
            : a.intersection_key < b.intersection_key
              ? -1
              : a.intersection_key > b.intersection_key
                ? 1
                : a.occurrence - b.occurrence,
      );
    expect(rows).toEqual(expected);
  });

  it('keeps every rollup equal to one rebuilt from the final facts', async () => {
    const incremental = await Promise.all(TABLES.map((t) => dump(db, t)));
    expect(incremental[0].length).toBeGreaterThan(10);
    await rebuildRollups(db);
    const rebuilt = await Promise.all(TABLES.map((t) => dump(db, t)));
    for (let i = 0; i < TABLES.length; i++) expect(incremental[i], TABLES[i]).toEqual(rebuilt[i]);
  });

  it('writes only the crossings that are new or changed', () => {
    // later rounds re-offer every earlier crossing of a touched trace; most are left alone
    const later = written.slice(5).reduce((a, b) => a + b, 0);
    const offeredLater = offered.slice(5).reduce((a, b) => a + b, 0);
    expect(later).toBeGreaterThan(0);
    expect(later).toBeLessThan(offeredLater / 2);
  });
});
