/**
 * What facts are built with besides the trajectories: the stored observed free-flow speeds and the
 * stored controller logs of the time the trajectories cover. Shared by every fact writer.
 */
import type { Region } from '../../network/region.js';
import type { Trajectory } from '../../probes/trajectory.js';
import type { Queryable } from '../../store/db.js';
import { storedSignalTiming } from '../signals/signal-store.js';
import type { FactOptions } from './build-facts.js';
import { storedFreeFlow } from './free-flow.js';

/** Controller logs are read this far around the trajectories' span, seconds. */
const TIMING_MARGIN_S = 600;

/** `buildFacts` options for `trajectories` of `region` from the database. */
export async function storedFactInputs(
  db: Queryable,
  region: Region,
  trajectories: readonly Trajectory[],
): Promise<FactOptions> {
  let fromS = Number.POSITIVE_INFINITY;
  let toS = Number.NEGATIVE_INFINITY;
  for (const t of trajectories)
    if (t.traversals.length > 0) {
      fromS = Math.min(fromS, t.traversals[0].enterS);
      toS = Math.max(toS, t.traversals[t.traversals.length - 1].exitS);
    }
  const signalTiming =
    fromS <= toS
      ? await storedSignalTiming(
          db,
          { region: region.meta.name, timeZone: region.meta.timeZone || 'UTC' },
          fromS - TIMING_MARGIN_S,
          toS + TIMING_MARGIN_S,
        )
      : undefined;
  return { signalTiming, freeFlow: await storedFreeFlow(db, region) };
}
