/**
 * Persistence of matched trajectories in `probe_traversals` (one row per edge traversal; the
 * table the analytics service reads, documented in docs/probes.md), with the learned-speed sums of
 * `learned_speed_bins` kept equal to an aggregate over it (read back by `traversal-read.ts`).
 */
import { createHash } from 'node:crypto';
import type { Graph } from '../network/graph.js';
import { intArrayLiteral, realAsRead, type Queryable } from '../store/db.js';
import { binOfWeek } from '../time/index.js';
import { learnedBinKey, splitBinKeys } from '../traffic/learned-speeds.js';
import type { EdgeTraversal, MatchedPing, Trajectory } from './trajectory.js';

/** A traversal counts as a speed observation when it covers at least this share of its edge. */
export const MIN_COVERED_FOR_SPEED = 0.5;
/** … and lasts at least this long, seconds (shorter ones are dominated by timestamp rounding). */
export const MIN_DURATION_FOR_SPEED_S = 1;
/** Speeds above this are GPS or matching artefacts and are not learned, km/h. */
export const MAX_OBSERVED_SPEED_KPH = 250;

/**
 * Space-mean speed of a traversal (covered length / time on edge), km/h, or null when it is not
 * usable as an observation (too little of the edge, too short, or implausible).
 */
export function traversalSpeedKph(g: Graph, t: EdgeTraversal): number | null {
  const durationS = t.exitS - t.enterS;
  if (t.coveredFraction < MIN_COVERED_FOR_SPEED || durationS < MIN_DURATION_FOR_SPEED_S) return null;
  const kph = ((t.coveredFraction * g.edgeLengthM[t.edge]) / durationS) * 3.6;
  return kph > 0 && kph <= MAX_OBSERVED_SPEED_KPH ? kph : null;
}

/** Where trajectories are stored: the map version (edge ids are per import) and local time zone. */
export interface TraversalStoreContext {
  mapVersion: string;
  timeZone: string;
}

/** The traversal columns compared to tell whether a stored row changed. */
const VALUE_COLUMNS = ['edge_id', 'enter_s', 'exit_s', 'covered', 'bin_of_week', 'speed_kph', 'pings'] as const;

/** What `replaceTraversals` changed. */
export interface ReplacedTraversals {
  /** edges of every traversal removed or written (the replaced parts' old and new edges) */
  edges: Set<number>;
  /** edges with a traversal added, removed or changed */
  changed: Set<number>;
  /**
   * the learned bins those changes touch (`learnedBinKey`: edge and bin of week of every added,
   * removed or changed traversal with a speed, old and new): exactly the bins whose sums were
   * updated
   */
  learnedBins: Set<number>;
  /**
   * the rows now stored for the replaced parts, per trace: `part/seq` → a digest of the row as
   * written (the first 128 bits of its SHA-256, however long its pings); a caller that is the
   * only writer of these traces may pass it back as `known` next time (once the transaction has
   * committed)
   */
  rows: Map<string, Map<string, string>>;
  /** parts of the replaced traces that had rows and have none now (what derives from them is gone too) */
  removedParts: Array<{ traceId: string; part: number }>;
}

/**
 * A traversal row `replaceTraversals` removed, changed or wrote: its edge and bin, and what it adds
 * to (`sign` 1: as written) or takes from (-1: as it was) its learned bin: its length at its speed
 * (`len`, null without a speed) and its duration (`dur`), computed by the database exactly as a
 * plain aggregate over the table would.
 */
interface ChangedRow {
  edge_id: number;
  bin_of_week: number;
  sign: number;
  len: number | null;
  dur: number;
}

/**
 * What a row contributes to the sums of its learned bin, as SQL over a row alias `t`: its length at
 * its speed in whole millimetres and its duration in whole milliseconds (integers, so the sums are
 * exact whatever order rows are added and removed in). Migration 310 aggregates the same expressions.
 */
const CONTRIBUTION = (t: string): string =>
  `round(${t}.speed_kph::float8 / 3.6 * (${t}.exit_s - ${t}.enter_s) * 1000)::bigint AS len, ` +
  `round((${t}.exit_s - ${t}.enter_s) * 1000)::bigint AS dur`;

/** Rows a caller knows to be stored, per trace: `part/seq` → the digest `replaceTraversals` reported. */
export type KnownTraversalRows = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** Digest of a row's JSON (what `rows` and `known` hold). */
function rowDigest(row: string): string {
  return createHash('sha256').update(row).digest().subarray(0, 16).toString('base64');
}

/**
 * Replaces the stored traversals of every trace in `traceIds` by those of `trajectories` (a
 * re-match of a trace with new pings supersedes the old one): all parts, or the parts numbered
 * from `fromPart.get(trace)` on when given. The table ends as if those parts were deleted and
 * written again, but only rows that differ are touched: a growing trace re-matched over its open
 * part mostly re-derives traversals it already stored, and rewriting them (with the learned bins
 * of their edges) is most of a feed's database work. Rows equal to what `known` says is stored
 * are not even sent (a growing trace re-sends only its last traversals). The sums of the learned
 * bins the changed rows fall in are updated by what each row adds or takes (in the same
 * transaction when the caller runs one). Returns the edges of the replaced parts, the edges whose
 * traversals changed, the learned bins updated, and the rows now stored.
 */
export async function replaceTraversals(
  db: Queryable,
  g: Graph,
  ctx: TraversalStoreContext,
  traceIds: readonly string[],
  trajectories: readonly Trajectory[],
  fromPart?: ReadonlyMap<string, number>,
  known?: KnownTraversalRows,
): Promise<ReplacedTraversals> {
  const tally = new ChangeTally();
  const rows = rowsOf(g, ctx, traceIds, trajectories, known, tally.edges);
  const removedParts =
    traceIds.length > 0 ? await deleteSuperseded(db, ctx, traceIds, trajectories, rows, tally, fromPart) : [];
  await upsertRows(db, ctx, rows.send, tally);
  await applyLearnedDeltas(db, ctx.mapVersion, tally.deltas);
  return {
    edges: tally.edges,
    changed: tally.changed,
    learnedBins: tally.learnedBins,
    rows: rows.written,
    removedParts,
  };
}

/** What the changed rows touch: their edges, the learned bins they fall in and what each bin gains or loses. */
class ChangeTally {
  /** edges of the replaced parts, old and new */
  readonly edges = new Set<number>();
  /** edges whose traversals changed */
  readonly changed = new Set<number>();
  readonly learnedBins = new Set<number>();
  /** per learned bin (`learnedBinKey`): samples, Σ length, Σ duration to add */
  readonly deltas = new Map<number, [number, number, number]>();

  /** Counts a row written (sign 1) or removed (sign −1). */
  note(r: ChangedRow): void {
    const e = Number(r.edge_id);
    this.edges.add(e);
    this.changed.add(e);
    if (r.len === null) return;
    const key = learnedBinKey(e, Number(r.bin_of_week));
    this.learnedBins.add(key);
    let d = this.deltas.get(key);
    if (d === undefined) this.deltas.set(key, (d = [0, 0, 0]));
    const sign = Number(r.sign);
    d[0] += sign;
    d[1] += sign * Number(r.len);
    d[2] += sign * Number(r.dur);
  }
}

/** The rows of the new set: those to send, the digest of every row by trace, and the row count per part. */
interface NewRows {
  /** rows that differ from what `known` says is stored, as JSON */
  send: string[];
  /** per trace: digest of each row by `part/seq` */
  written: Map<string, Map<string, string>>;
  /** per (trace, part) of the new set: its rows, seq 0 … n − 1 */
  partTrace: string[];
  partNo: number[];
  partRows: number[];
}

/** The rows of `trajectories` as JSON, adding their edges to `edges`. */
function rowsOf(
  g: Graph,
  ctx: TraversalStoreContext,
  traceIds: readonly string[],
  trajectories: readonly Trajectory[],
  known: KnownTraversalRows | undefined,
  edges: Set<number>,
): NewRows {
  const out: NewRows = { send: [], written: new Map(), partTrace: [], partNo: [], partRows: [] };
  for (const id of traceIds) out.written.set(id, new Map());
  for (const tr of trajectories) {
    out.partTrace.push(tr.traceId);
    out.partNo.push(tr.part);
    out.partRows.push(tr.traversals.length);
    let mine = out.written.get(tr.traceId);
    if (mine === undefined) out.written.set(tr.traceId, (mine = new Map()));
    const stored = known?.get(tr.traceId);
    tr.traversals.forEach((t, seq) => {
      edges.add(t.edge);
      const row = JSON.stringify({
        trace_id: tr.traceId,
        part: tr.part,
        seq,
        edge_id: t.edge,
        enter_s: t.enterS,
        exit_s: t.exitS,
        covered: t.coveredFraction,
        bin_of_week: binOfWeek((t.enterS + t.exitS) / 2, ctx.timeZone),
        speed_kph: traversalSpeedKph(g, t),
        pings: t.pings.map(compactPing),
      });
      const k = `${tr.part}/${seq}`;
      const digest = rowDigest(row);
      mine.set(k, digest);
      if (stored?.get(k) !== digest) out.send.push(row);
    });
  }
  return out;
}

/**
 * Deletes the stored rows of the replaced parts that the new set does not have, counting them in
 * `tally`; returns the parts left without any row.
 */
async function deleteSuperseded(
  db: Queryable,
  ctx: TraversalStoreContext,
  traceIds: readonly string[],
  trajectories: readonly Trajectory[],
  rows: NewRows,
  tally: ChangeTally,
  fromPart?: ReadonlyMap<string, number>,
): Promise<Array<{ traceId: string; part: number }>> {
  const old = await db.query<ChangedRow & { trace_id: string; part: number }>(
    `DELETE FROM probe_traversals t USING unnest($2::text[], $3::int[]) AS f(trace_id, from_part)
     WHERE t.map_version = $1 AND t.trace_id = f.trace_id AND t.part >= f.from_part
       AND NOT EXISTS (SELECT 1 FROM unnest($4::text[], $5::int[], $6::int[]) AS k(trace_id, part, n)
                       WHERE k.trace_id = t.trace_id AND k.part = t.part AND t.seq < k.n)
     RETURNING t.trace_id, t.part, t.edge_id, t.bin_of_week, -1 AS sign, ${CONTRIBUTION('t')}`,
    [
      ctx.mapVersion,
      traceIds,
      traceIds.map((id) => fromPart?.get(id) ?? 0),
      rows.partTrace,
      rows.partNo,
      rows.partRows,
    ],
  );
  const removedParts: Array<{ traceId: string; part: number }> = [];
  const kept = new Set(trajectories.map((t) => `${t.part}\u0000${t.traceId}`));
  for (const r of old.rows) {
    tally.note(r);
    const k = `${Number(r.part)}\u0000${r.trace_id}`;
    if (kept.has(k)) continue;
    kept.add(k);
    removedParts.push({ traceId: r.trace_id, part: Number(r.part) });
  }
  return removedParts;
}

/**
 * Writes `rows` in batches of 5 000: new rows are inserted, differing rows updated (their old
 * edge is reported too), equal rows left alone; every row written or replaced is counted in `tally`.
 */
async function upsertRows(
  db: Queryable,
  ctx: TraversalStoreContext,
  rows: readonly string[],
  tally: ChangeTally,
): Promise<void> {
  const stored = VALUE_COLUMNS.map((c) => `t.${c}`).join(', ');
  const incoming = VALUE_COLUMNS.map((c) => `x.${c}`).join(', ');
  const existing = VALUE_COLUMNS.map((c) => `probe_traversals.${c}`).join(', ');
  const excluded = VALUE_COLUMNS.map((c) => `excluded.${c}`).join(', ');
  for (let i = 0; i < rows.length; i += 5000) {
    const res = await db.query<ChangedRow>(
      `WITH x AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(trace_id text, part int, seq int, edge_id int, enter_s float8, exit_s float8,
              covered real, bin_of_week smallint, speed_kph real, pings jsonb)),
       before AS (
         SELECT t.edge_id, t.bin_of_week, -1 AS sign, ${CONTRIBUTION('t')} FROM probe_traversals t JOIN x ON t.trace_id = x.trace_id AND t.part = x.part AND t.seq = x.seq
         WHERE t.map_version = $1 AND (${stored}) IS DISTINCT FROM (${incoming})),
       written AS (
         INSERT INTO probe_traversals (map_version, trace_id, part, seq, edge_id, enter_s, exit_s, covered, bin_of_week, speed_kph, pings)
         SELECT $1, x.trace_id, x.part, x.seq, x.edge_id, x.enter_s, x.exit_s, x.covered, x.bin_of_week, x.speed_kph, x.pings FROM x
         ON CONFLICT (map_version, trace_id, part, seq) DO UPDATE SET
           edge_id = excluded.edge_id, enter_s = excluded.enter_s, exit_s = excluded.exit_s, covered = excluded.covered,
           bin_of_week = excluded.bin_of_week, speed_kph = excluded.speed_kph, pings = excluded.pings
         WHERE (${existing}) IS DISTINCT FROM (${excluded})
         RETURNING edge_id, bin_of_week, 1 AS sign, ${CONTRIBUTION('probe_traversals')})
       SELECT * FROM written UNION ALL SELECT * FROM before`,
      [ctx.mapVersion, `[${rows.slice(i, i + 5000).join(',')}]`],
    );
    for (const r of res.rows) tally.note(r);
  }
}

/**
 * Adds what the changed rows add to and take from their learned bins (in the caller's
 * transaction, so the sums always match the table), then deletes the bins left without samples.
 * Bins are locked in one statement in (edge, bin) order, so two writers never wait for each other
 * in a circle. The work is that of the changed rows alone, however many samples a bin has.
 */
async function applyLearnedDeltas(
  db: Queryable,
  mapVersion: string,
  deltas: ReadonlyMap<number, [number, number, number]>,
): Promise<void> {
  if (deltas.size === 0) return;
  const keys = [...deltas.keys()].sort((a, b) => a - b);
  const { edges, bins } = splitBinKeys(keys);
  const samples = keys.map((k) => deltas.get(k)![0]);
  const lengths = keys.map((k) => deltas.get(k)![1]);
  const durations = keys.map((k) => deltas.get(k)![2]);
  const res = await db.query<{ edge_id: number; bin_of_week: number; samples: number }>(
    `INSERT INTO learned_speed_bins AS b (map_version, edge_id, bin_of_week, samples, sum_length_mm, sum_duration_ms)
     SELECT $1, d.edge_id, d.bin_of_week, d.samples, d.len, d.dur
     FROM unnest($2::int[], $3::int[], $4::int[], $5::bigint[], $6::bigint[]) WITH ORDINALITY AS d(edge_id, bin_of_week, samples, len, dur, i)
     ORDER BY d.i
     ON CONFLICT (map_version, edge_id, bin_of_week) DO UPDATE
       SET samples = b.samples + excluded.samples, sum_length_mm = b.sum_length_mm + excluded.sum_length_mm,
           sum_duration_ms = b.sum_duration_ms + excluded.sum_duration_ms
     RETURNING b.edge_id, b.bin_of_week, b.samples`,
    [
      mapVersion,
      intArrayLiteral(edges),
      intArrayLiteral(bins),
      intArrayLiteral(samples),
      intArrayLiteral(lengths),
      intArrayLiteral(durations),
    ],
  );
  const emptyEdges: number[] = [];
  const emptyBins: number[] = [];
  for (const r of res.rows) {
    if (Number(r.samples) > 0) continue;
    emptyEdges.push(Number(r.edge_id));
    emptyBins.push(Number(r.bin_of_week));
  }
  if (emptyEdges.length === 0) return;
  await db.query(
    `DELETE FROM learned_speed_bins b USING unnest($2::int[], $3::int[]) AS k(edge_id, bin_of_week)
     WHERE b.map_version = $1 AND b.edge_id = k.edge_id AND b.bin_of_week = k.bin_of_week AND b.samples <= 0`,
    [mapVersion, intArrayLiteral(emptyEdges), intArrayLiteral(emptyBins)],
  );
}

/**
 * A trajectory exactly as `readTrajectories` would give it back once `replaceTraversals` stored
 * it: pings as their stored JSON gives them back, with the traversal's edge, the covered fraction
 * at the `real` column's precision. Lets what follows the write (intersection facts) work on the
 * matcher's output without reading it back.
 */
export function asStored(t: Trajectory): Trajectory {
  return {
    traceId: t.traceId,
    part: t.part,
    traversals: t.traversals.map((x) => ({
      edge: x.edge,
      enterS: x.enterS,
      exitS: x.exitS,
      coveredFraction: realAsRead(x.coveredFraction),
      pings: x.pings.map((p) => {
        // the stored JSON's numbers: −0 is written as 0, a non-finite number as null
        const o: Record<string, number | null> = compactPing(p);
        for (const k in o) {
          const v = o[k] as number;
          o[k] = Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
        }
        o.edge = x.edge;
        return o as unknown as MatchedPing;
      }),
    })),
  };
}

/** Stored form of a matched ping (the edge is the traversal's). */
function compactPing(p: MatchedPing): Record<string, number> {
  const o: Record<string, number> = {
    index: p.index,
    tS: p.tS,
    lat: p.lat,
    lon: p.lon,
    offsetM: Math.round(p.offsetM * 100) / 100,
  };
  if (p.speedKph !== undefined) o.speedKph = p.speedKph;
  if (p.headingDeg !== undefined) o.headingDeg = p.headingDeg;
  return o;
}
