import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';
import { loadRegion } from '../../src/network/index.js';
import { simulate } from '../../src/sim/simulator.js';
import type { ProbeRecord } from '../../src/probes/ingest/records.js';
import type { Db } from '../../src/store/db.js';
import { openPglite, runMigrations } from '../../src/store/index.js';
import { allMigrations } from '../../src/app/migrations.js';
import { MatchStateCache } from '../../src/probes/pipeline.js';
import { processJobs, storeJobBody, type IngestJobDeps } from '../../src/app/ingestion/ingest-job.js';
import { runTask } from '../../src/app/ingestion/tasks.js';
import { MatchThread } from '../../src/app/ingestion/match-thread.js';
import { readGraphShared } from '../../src/network/bundle.js';
import { MapMatcher, matchTraces, type TraceMatcher } from '../../src/probes/match/matcher.js';

// A large body is stored in batches; traces the body has moved on past are processed while the
// rest is stored (early rounds). Whatever the order of the body, and even when an early round
// fails, the tables must end exactly as when the whole body is stored first and processed in one
// round.

/**
 * The tables processing writes. Traversals and facts must match exactly. Learned bins and rollups
 * hold running sums, added to round by round: traces processed in other rounds add the same terms
 * in another order, which moves a float8 sum in its last bits, so their numbers are compared to 12
 * significant digits (counts stay exact).
 */
async function dump(db: Db): Promise<unknown[][]> {
  const q = async (sql: string): Promise<Array<Record<string, unknown>>> =>
    (await db.query<Record<string, unknown>>(sql)).rows;
  const sums = (rows: Array<Record<string, unknown>>): unknown[] =>
    rows.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [
          k,
          typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v,
        ]),
      ),
    );
  return [
    await q(
      'SELECT trace_id, part, seq, map_version, edge_id, enter_s, exit_s, covered, bin_of_week, speed_kph, pings::text AS pings FROM probe_traversals ORDER BY trace_id, part, seq',
    ),
    sums(await q('SELECT * FROM learned_speed_bins ORDER BY map_version, edge_id, bin_of_week')),
    await q('SELECT * FROM analytics_fact ORDER BY trace_id, part, intersection_key, occurrence'),
    sums(
      await q(
        'SELECT * FROM analytics_rollup_15m ORDER BY intersection_key, local_day, local_minute, movement_id, in_edge, map_version',
      ),
    ),
    sums(
      await q('SELECT * FROM analytics_rollup_hour ORDER BY intersection_key, local_day, local_minute, map_version'),
    ),
    sums(
      await q(
        'SELECT * FROM analytics_rollup_month ORDER BY intersection_key, local_day, local_dow, local_minute, map_version',
      ),
    ),
  ];
}

/** A database whose `failing`-th transaction (counted from 1) throws before it commits. */
function failingOnce(db: Db, failing: number): Db {
  let n = 0;
  return {
    ...db,
    async transaction(fn) {
      n++;
      if (n !== failing) return db.transaction(fn);
      return db.transaction(async (tx) => {
        await fn(tx);
        throw new Error('injected failure');
      });
    },
  };
}

describe('early rounds while a large body is stored', () => {
  const dir = mkdtempSync(join(tmpdir(), 'streetwise-early-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const input = (async () => {
    const { regionDir } = await createDemoRegion(dir);
    const region = loadRegion(regionDir);
    const startS = Date.UTC(2026, 0, 7, 12, 30) / 1000;
    const records: ProbeRecord[] = [];
    for await (const b of simulate(region, {
      startS,
      durationS: 1800,
      penetration: 1,
      intervalS: 3,
      seed: 5,
      tracePrefix: 'er',
      stopAtEnd: true,
    }))
      records.push(...b);
    return { region, regionDir, startS, records };
  })();

  const ndjson = (records: readonly ProbeRecord[]): string =>
    records
      .map((r) =>
        JSON.stringify({
          traceId: r.traceId,
          timestamp: r.ping.tS,
          lat: r.ping.lat,
          lon: r.ping.lon,
          speedKph: r.ping.speedKph,
        }),
      )
      .join('\n');

  /** Stores and processes `body` in a fresh database; returns the tables, the report and the early rounds. */
  const run = async (
    body: string,
    opts: {
      earlyMinTraces: number;
      failTransaction?: number;
      traceChunk?: number;
      batchSize?: number;
      matchHelper?: TraceMatcher;
    },
  ) => {
    const { region, startS } = await input;
    const base = await openPglite();
    await runMigrations(base, allMigrations());
    const db = opts.failTransaction === undefined ? base : failingOnce(base, opts.failTransaction);
    try {
      const deps: IngestJobDeps = {
        db,
        region,
        nowS: startS + 1800,
        matchStates: new MatchStateCache(),
        batchSize: opts.batchSize ?? 200,
        earlyMinTraces: opts.earlyMinTraces,
        traceChunk: opts.traceChunk,
        matchHelper: opts.matchHelper,
      };
      const job = await storeJobBody(deps, { format: 'ndjson' }, Readable.from([body]));
      const [report] = await processJobs(deps, [job]);
      const pending = (await base.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_pending')).rows[0].n;
      return {
        tables: await dump(base),
        report,
        early: job.early.length,
        earlyTraces: new Set(job.early.flatMap((r) => r.traceIds)),
        pending,
        nowS: deps.nowS,
      };
    } finally {
      await base.close();
    }
  };

  it('a body grouped by vehicle: the same tables and report as one round after storing', async () => {
    const { records } = await input;
    const grouped = [...records].sort((a, b) =>
      a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.ping.tS - b.ping.tS,
    );
    const body = ndjson(grouped);
    const reference = await run(body, { earlyMinTraces: Infinity });
    const early = await run(body, { earlyMinTraces: 3 });
    expect(reference.early).toBe(0);
    expect(early.early).toBeGreaterThan(0);
    expect(reference.tables[0].length).toBeGreaterThan(200);
    expect(reference.tables[2].length).toBeGreaterThan(50);
    expect(early.tables).toEqual(reference.tables);
    expect(early.pending).toBe(0);
    // each trace is in one part of a grouped body: matched once, so even the sums agree
    expect(early.report).toEqual({ ...reference.report, changeSeq: early.report.changeSeq });
  }, 120_000);

  it('a trace that gets pings again after its early round is matched again from them', async () => {
    const { records } = await input;
    const grouped = [...records].sort((a, b) =>
      a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.ping.tS - b.ping.tS,
    );
    // the last pings of the first vehicle come at the very end of the body (a buffered upload)
    const first = grouped[0].traceId;
    const own = grouped.filter((r) => r.traceId === first);
    const late = own.slice(-5);
    const body = ndjson([...grouped.filter((r) => !late.includes(r)), ...late]);
    const reference = await run(body, { earlyMinTraces: Infinity });
    const early = await run(body, { earlyMinTraces: 3 });
    expect(early.earlyTraces.has(first)).toBe(true);
    expect(early.tables).toEqual(reference.tables);
    expect(early.pending).toBe(0);
  }, 120_000);

  it('a body in time order (traces touched again and again) ends the same', async () => {
    const { records } = await input;
    const body = ndjson([...records].sort((a, b) => a.ping.tS - b.ping.tS));
    const reference = await run(body, { earlyMinTraces: Infinity });
    const early = await run(body, { earlyMinTraces: 3 });
    expect(early.early).toBeGreaterThan(0);
    expect(early.tables).toEqual(reference.tables);
    expect(early.pending).toBe(0);
    expect(early.report.matched.traces).toBe(reference.report.matched.traces);
    expect(early.report.matched.edgesUpdated).toBe(reference.report.matched.edgesUpdated);
    expect(early.report.matched.liveEdges).toBe(reference.report.matched.liveEdges);
  }, 120_000);

  it('an early round that fails leaves its traces to the final round', async () => {
    const { records } = await input;
    const grouped = [...records].sort((a, b) =>
      a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.ping.tS - b.ping.tS,
    );
    const body = ndjson(grouped);
    const reference = await run(body, { earlyMinTraces: Infinity });
    // pings are stored by single statements: the first transaction is the first early round's
    // (how the traces of a failed round after successful ones go back is in early-rounds.test.ts)
    const failed = await run(body, { earlyMinTraces: 3, failTransaction: 1 });
    expect(failed.early).toBe(0);
    expect(failed.tables).toEqual(reference.tables);
    expect(failed.pending).toBe(0);
    expect(failed.report.matched.traces).toBe(reference.report.matched.traces);
  }, 120_000);

  it('a round in chunks of three traces (facts written a chunk behind the traversals) ends as one chunk', async () => {
    const { records } = await input;
    const body = ndjson([...records].sort((a, b) => a.ping.tS - b.ping.tS));
    const whole = await run(body, { earlyMinTraces: Infinity, traceChunk: 1000 });
    const chunked = await run(body, { earlyMinTraces: Infinity, traceChunk: 3 });
    expect(whole.report.matched.traces).toBeGreaterThan(12);
    expect(chunked.tables).toEqual(whole.tables);
    expect(chunked.report).toEqual({ ...whole.report, changeSeq: chunked.report.changeSeq });
    expect(chunked.pending).toBe(0);
  }, 120_000);

  it('traces matched on the helper thread, a chunk ahead: the same tables and report', async () => {
    const { records, regionDir } = await input;
    const grouped = [...records].sort((a, b) =>
      a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.ping.tS - b.ping.tS,
    );
    // the last pings of the first vehicle come at the end: its trace is matched in an early round and again in the final one
    const late = grouped.filter((r) => r.traceId === grouped[0].traceId).slice(-5);
    const body = ndjson([...grouped.filter((r) => !late.includes(r)), ...late]);
    const reference = await run(body, { earlyMinTraces: 3, traceChunk: 4 });
    const helper = new MatchThread({ graphBytes: readGraphShared(regionDir) });
    try {
      // the final round matches the first vehicle again from its tail (the helper keeps no matching state)
      const helped = await run(body, { earlyMinTraces: 3, traceChunk: 4, matchHelper: helper });
      expect(helped.early).toBeGreaterThan(0);
      expect(helper.traces).toBeGreaterThan(reference.report.matched.traces);
      expect(helped.tables).toEqual(reference.tables);
      expect(helped.pending).toBe(0);
      expect(helped.report.matched.traces).toBe(reference.report.matched.traces);
      expect(helped.report.matched.edgesUpdated).toBe(reference.report.matched.edgesUpdated);
    } finally {
      await helper.close();
    }
  }, 120_000);

  it('a body stored in one batch (a feed post) is matched on this thread', async () => {
    const { records, region } = await input;
    const body = ndjson([...records].sort((a, b) => a.ping.tS - b.ping.tS));
    let sent = 0;
    const local = new MapMatcher(region.graph);
    const counting: TraceMatcher = {
      match: async (t) => {
        sent += t.length;
        return matchTraces(local, t);
      },
    };
    await run(body, { earlyMinTraces: Infinity, batchSize: records.length + 1, matchHelper: counting });
    expect(sent).toBe(0);
    await run(body, { earlyMinTraces: Infinity, batchSize: Math.ceil(records.length / 2), matchHelper: counting });
    expect(sent).toBeGreaterThan(12);
  }, 120_000);

  it('a helper that fails fails its round; the pings stay pending and a later round matches them', async () => {
    const { records, region } = await input;
    const body = ndjson([...records].sort((a, b) => a.ping.tS - b.ping.tS));
    const reference = await run(body, { earlyMinTraces: Infinity, traceChunk: 4 });
    const local = new MapMatcher(region.graph);
    let calls = 0;
    // the second chunk fails while the first one's write may be under way
    const failing: TraceMatcher = {
      match: async (t) => {
        if (++calls === 2) throw new Error('helper lost');
        return matchTraces(local, t);
      },
    };
    const db = await openPglite();
    await runMigrations(db, allMigrations());
    try {
      const deps: IngestJobDeps = {
        db,
        region,
        nowS: reference.nowS,
        matchStates: new MatchStateCache(),
        batchSize: 200,
        earlyMinTraces: Infinity,
        traceChunk: 4,
        matchHelper: failing,
      };
      const job = await storeJobBody(deps, { format: 'ndjson' }, Readable.from([body]));
      await expect(processJobs(deps, [job])).rejects.toThrow('helper lost');
      const pending = async (): Promise<number> =>
        (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_pending')).rows[0].n;
      expect(await pending()).toBeGreaterThan(12);
      await runTask(
        { db, region, nowS: reference.nowS, matchStates: new MatchStateCache() },
        { kind: 'process-pending', olderThanS: 0 },
      );
      expect(await pending()).toBe(0);
      expect(await dump(db)).toEqual(reference.tables);
    } finally {
      await db.close();
    }
  }, 120_000);
});
