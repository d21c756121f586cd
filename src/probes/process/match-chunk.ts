/**
 * Processing step 2: map matching of a chunk read by `readChunk` — each trace from its tail on,
 * going on from the owner's remembered state where there is one. Pure computation.
 */
import type { MapMatcher, MatchState } from '../match/matcher.js';
import type { Trajectory } from '../trajectory.js';
import type { ChunkInput } from './read-chunk.js';

/** A matched chunk, ready to be written. */
export interface MatchedChunk {
  /** the re-matched parts of every trace of the chunk */
  trajectories: Trajectory[];
  /** per trace: the first part re-matched (the parts before it stand) */
  fromPart: Map<string, number>;
  /** per trace with a memory: the rows it stored last time (`replaceTraversals`' `known`) */
  known: Map<string, ReadonlyMap<string, string>>;
  /** the matching state of every trace, to remember once the chunk is committed */
  states: MatchState[];
  /** pings with no road within the search radius, or unreachable outliers */
  unmatchedPings: number;
}

/** Matches every trace of `input`. */
export function matchChunk(matcher: MapMatcher, input: ChunkInput): MatchedChunk {
  const out: MatchedChunk = { trajectories: [], fromPart: new Map(), known: new Map(), states: [], unmatchedPings: 0 };
  for (const id of input.traceIds) {
    const tail = input.tails.get(id);
    const memory = input.memories.get(id);
    if (memory?.rows !== undefined) out.known.set(id, memory.rows);
    const { parts, state } = matcher.matchResumable(
      id,
      input.pings.get(id) ?? [],
      tail?.keptParts ?? 0,
      tail?.pingsBefore ?? 0,
      memory?.state,
    );
    out.unmatchedPings += matcher.lastStats.unmatchedPings;
    out.fromPart.set(id, tail?.keptParts ?? 0);
    out.states.push(state);
    for (const t of parts) out.trajectories.push(t);
  }
  return out;
}
