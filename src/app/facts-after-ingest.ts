/**
 * Keeps the intersection facts in step with probe ingestion: after new pings were matched, the
 * trajectories from the earliest new ping on are turned into facts again (facts of a trace part
 * are replaced, never doubled). The probe pipeline knows nothing of analytics; the composition
 * root (HTTP plugin, CLI) connects them here.
 */
import type { Db } from '../store/db.js';
import type { Region } from '../network/region.js';
import type { IngestReport } from '../probes/ingest/ingest.js';
import { readTrajectories } from '../probes/traversal-store.js';
import { refreshFacts } from '../analytics/index.js';

/** Rebuilds facts for the trajectories touched by an ingestion; returns the counts. */
export async function refreshFactsAfterIngest(
  db: Db,
  region: Region,
  report: Pick<IngestReport, 'firstNewS'>,
): Promise<{ trajectories: number; facts: number }> {
  let sinceS = Infinity;
  for (const s of report.firstNewS.values()) if (s < sinceS) sinceS = s;
  if (!Number.isFinite(sinceS)) return { trajectories: 0, facts: 0 };
  // a trajectory part may have started before its first new ping: look back one hour
  return refreshFacts(db, region, (d) =>
    readTrajectories(d, { sinceS: sinceS - 3600, mapVersion: region.meta.mapVersion }),
  );
}

/** Rebuilds facts for every trajectory in [sinceS, untilS). */
export async function refreshFactsBetween(
  db: Db,
  region: Region,
  sinceS: number,
  untilS: number,
): Promise<{ trajectories: number; facts: number }> {
  return refreshFacts(db, region, (d) => readTrajectories(d, { sinceS, untilS, mapVersion: region.meta.mapVersion }));
}
