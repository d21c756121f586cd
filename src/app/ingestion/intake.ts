/**
 * What every door of probe ingestion (HTTP, CLI, NATS, the simulator, the demo) does after storing
 * pings: wait until the owners of their traces have processed them, processing them here when no
 * ingestion worker of the region is alive, and summarise what is now stored for those traces.
 */
import type { Db } from '../../store/db.js';
import type { Region } from '../../network/region.js';
import { countHolders, postgresLeases, soloLeases, type PartitionLeases } from '../../store/partition-leases.js';
import { pendingLeft, type PendingRef } from '../../probes/ingest/pending.js';
import { ingestRecords, type IngestReport } from '../../probes/ingest/ingest.js';
import type { ProbeRecord } from '../../probes/ingest/records.js';
import { PARTITIONS } from '../../probes/partition.js';
import { countLiveEdges } from '../../traffic/live-speeds.js';
import { IngestionWorker, type WorkerTotals } from './worker.js';

/** The partition pool of a region's probe traces (lease names). */
export function probePool(region: string): string {
  return `probes/${region}`;
}

/** Where a region's partitions are leased: PostgreSQL at `databaseUrl`, or the embedded database (one holder). */
export interface LeaseSource {
  db: Db;
  region: string;
  /** PostgreSQL URL; absent for the embedded database */
  databaseUrl?: string;
}

/** Joins the region's partition pool (all partitions at once on the embedded database). */
export function leasesOf(src: LeaseSource): () => Promise<PartitionLeases> {
  return async () =>
    src.databaseUrl === undefined
      ? soloLeases(src.db, PARTITIONS)
      : postgresLeases(src.databaseUrl, probePool(src.region), PARTITIONS);
}

/** Live ingestion workers of the region (on the embedded database: `embeddedWorkers`). */
export function workersOf(src: LeaseSource, embeddedWorkers: number): () => Promise<number> {
  return async () => (src.databaseUrl === undefined ? embeddedWorkers : countHolders(src.db, probePool(src.region)));
}

/** How long a door waits for processing, and how it learns whether anybody processes. */
export interface WaitOptions {
  /** live workers of the region */
  workers: () => Promise<number>;
  /** give up after this long, ms (default 10 min) */
  maxWaitMs?: number;
}

/**
 * Waits until the marks `refs` left in `region` are processed; returns how many are not (when
 * no worker is alive, or after `maxWaitMs`).
 */
export async function waitProcessed(
  db: Db,
  region: string,
  refs: readonly PendingRef[],
  opts: WaitOptions,
): Promise<number> {
  const deadline = Date.now() + (opts.maxWaitMs ?? 600_000);
  let pollMs = 20;
  let checkedWorkersAt = 0;
  for (;;) {
    const left = await pendingLeft(db, region, refs);
    if (left === 0 || Date.now() >= deadline) return left;
    if (Date.now() - checkedWorkersAt >= 2000) {
      checkedWorkersAt = Date.now();
      if ((await opts.workers()) === 0) return left;
    }
    await new Promise((r) => setTimeout(r, pollMs));
    pollMs = Math.min(250, pollMs * 2);
  }
}

/**
 * Processes the region's pending traces in this process until none is left: the embedded
 * database's owner (which holds every partition), or a command on PostgreSQL while no worker of
 * the region is alive (it joins the pool for as long as it works).
 */
export async function processHere(
  src: LeaseSource & { graphRegion: Region },
  log?: (line: string) => void,
): Promise<WorkerTotals> {
  const worker = new IngestionWorker({ db: src.db, region: src.graphRegion, leases: leasesOf(src), log });
  try {
    return await worker.drain();
  } finally {
    await worker.stop();
  }
}

/** What is stored for some traces of a region after processing (the answer of the doors). */
export interface TracesSummary {
  traces: number;
  trajectories: number;
  traversals: number;
  /** stored pings of these traces on no traversal (no road within the search radius, outliers) */
  unmatchedPings: number;
  /** distinct edges their traversals cover */
  edgesUpdated: number;
  /** of those, edges with a live speed now */
  liveEdges: number;
  intersectionFacts: number;
}

/** Summarises what is stored for `traceIds` of `region` (at `nowS`, unix seconds, for live speeds). */
export async function summarizeTraces(
  db: Db,
  region: Region,
  traceIds: readonly string[],
  nowS: number,
): Promise<TracesSummary> {
  const none = {
    trajectories: 0,
    traversals: 0,
    unmatchedPings: 0,
    edgesUpdated: 0,
    liveEdges: 0,
    intersectionFacts: 0,
  };
  if (traceIds.length === 0) return { traces: 0, ...none };
  const name = region.meta.name;
  const r = await db.query<{
    parts: number;
    rows: number;
    matched: number;
    pings: number;
    facts: number;
    edges: number[];
  }>(
    `WITH t AS (SELECT DISTINCT unnest($2::text[]) AS trace_id),
     tr AS (SELECT x.trace_id, x.part, x.edge_id, jsonb_array_length(x.pings) AS np
            FROM probe_traversals x JOIN t USING (trace_id) WHERE x.map_version = $1)
     SELECT (SELECT count(*) FROM (SELECT DISTINCT trace_id, part FROM tr) a)::int AS parts,
       (SELECT count(*) FROM tr)::int AS rows,
       (SELECT coalesce(sum(np), 0) FROM tr)::int AS matched,
       (SELECT count(*) FROM probe_pings p JOIN t USING (trace_id) WHERE p.region = $3)::int AS pings,
       (SELECT count(*) FROM analytics_fact f JOIN t USING (trace_id) WHERE f.region = $3)::int AS facts,
       (SELECT coalesce(array_agg(DISTINCT edge_id), '{}') FROM tr) AS edges`,
    [region.meta.mapVersion, traceIds, name],
  );
  const x = r.rows[0];
  const edges = (x.edges ?? []).map(Number);
  return {
    traces: new Set(traceIds).size,
    trajectories: Number(x.parts),
    traversals: Number(x.rows),
    unmatchedPings: Math.max(0, Number(x.pings) - Number(x.matched)),
    edgesUpdated: edges.length,
    liveEdges: edges.length === 0 ? 0 : await countLiveEdges(db, region.meta.mapVersion, nowS, edges),
    intersectionFacts: Number(x.facts),
  };
}

/**
 * Stores `records` in `region` and processes them in this process, on a database it owns alone
 * (tools, scripts and tests; the same storing and processing code as every door).
 * @example
 * const { ingest, processed } = await ingestHere(db, region, readProbes(stream, 'fcd', console.warn));
 */
export async function ingestHere(
  db: Db,
  region: Region,
  records: AsyncIterable<ProbeRecord> | Iterable<ProbeRecord>,
): Promise<{ ingest: IngestReport; processed: WorkerTotals }> {
  const ingest = await ingestRecords(db, records, { region: region.meta.name });
  const processed = await processHere({ db, region: region.meta.name, graphRegion: region });
  return { ingest, processed };
}
