/**
 * What this process keeps in memory and other processes (or this process's ingestion thread)
 * change through the database: it follows the change log (`store/changes.ts`) and reloads exactly
 * what changed. Speeds are handled here; the HTTP plugins register their own topics
 * (`incidents`, `parking`) on `ctx.changes`. Applications and signing keys need nothing: they are
 * read from the database when a token is issued or carries an unknown key id.
 */
import type { Db } from '../store/db.js';
import type { Region } from '../network/region.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import { ChangeFeed, type Change } from '../store/changes.js';
import { loadLearnedBins, loadLearnedProfiles } from '../traffic/learned-speeds.js';
import { refreshLiveSpeeds } from '../traffic/live-speeds.js';

/** How often the change log is re-read without a notification, ms. */
export const CHANGE_POLL_MS = 5000;
/**
 * Changes notified within this many ms of the last read are applied together: a probe feed
 * commits several learned-speed changes a second, and each read costs the serving thread.
 */
export const CHANGE_BATCH_MS = 250;

/**
 * What `speeds` changes of this map version name: `edges` (live speeds to refresh), `learnedBins`
 * (bins of learned profiles to reload, `learnedBinKey`) and `learned` (edges whose whole learned
 * profile is reloaded: those of a change that names no bins).
 */
export function changedEdges(
  changes: readonly Change[],
  mapVersion: string,
): { edges: Set<number>; learned: Set<number>; learnedBins: Set<number> } {
  const edges = new Set<number>();
  const learned = new Set<number>();
  const learnedBins = new Set<number>();
  const add = (list: unknown, into: Set<number>): void => {
    if (Array.isArray(list))
      for (const e of list) if (Number.isSafeInteger(e) && (e as number) >= 0) into.add(e as number);
  };
  for (const c of changes) {
    if (c.scope !== mapVersion) continue;
    add(c.payload.edges, edges);
    if (c.payload.learnedBins !== undefined) add(c.payload.learnedBins, learnedBins);
    else add(c.payload.learnedEdges === undefined ? c.payload.edges : c.payload.learnedEdges, learned);
  }
  return { edges, learned, learnedBins };
}

/**
 * Starts following the change log from `fromSeq` (read before the state was loaded, so nothing
 * falls between): `speeds` changes reload the learned bins and live speeds they name.
 */
export async function followChanges(
  deps: { db: Db; region: Region; speeds: SpeedFeeds; now: () => number },
  fromSeq: number,
  onError: (err: unknown) => void,
): Promise<ChangeFeed> {
  const { db, region, speeds } = deps;
  const mapVersion = region.meta.mapVersion;
  const feed = new ChangeFeed(db, fromSeq, { pollMs: CHANGE_POLL_MS, batchMs: CHANGE_BATCH_MS, onError });
  feed.on('speeds', async (changes) => {
    const { edges, learned, learnedBins } = changedEdges(changes, mapVersion);
    if (learned.size > 0) await loadLearnedProfiles(db, region.graph, speeds, mapVersion, learned);
    if (learnedBins.size > 0) await loadLearnedBins(db, region.graph, speeds, mapVersion, learnedBins);
    if (edges.size > 0) await refreshLiveSpeeds(db, speeds, mapVersion, deps.now() / 1000, edges);
  });
  await feed.start();
  return feed;
}
