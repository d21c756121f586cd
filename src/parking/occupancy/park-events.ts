/**
 * Park events (`POST /USS`) as occupancy observations of curb segments. Each event is snapped to
 * the nearest curb segment (within PARK_EVENT_SNAP_M); for each event, in time order per segment,
 * the model's occupied count at the event time (profile corrected by the segment's latest
 * observation, including the ones this function just derived) is read, one car is added (parked
 * in) or taken away (parked out), and the result, clamped to [0, spaces], is recorded as a
 * `park_events` observation at the event time. The model then carries the change forward with its
 * usual decay (OBSERVATION_DECAY_MIN).
 */
import { occupancyPctAt, type OccupancyObservation } from './model.js';
import type { ObservationInput } from './store.js';

/** An event farther than this from every curb segment is not counted, metres. */
export const PARK_EVENT_SNAP_M = 30;

/** A park event reduced to what occupancy needs. */
export interface ParkEventPoint {
  lat: number;
  lon: number;
  /** true: a car left; false: a car parked */
  parkedOut: boolean;
  /** unix seconds */
  observedAtS: number;
}

/** The countable curb segment an event belongs to, and the UTC offset (seconds) of its zone at a time. */
export interface SnappedSegment {
  segmentID: string;
  spacesTotal: number;
  offsetAt: (unixS: number) => number;
}

/**
 * Observations derived from park events. `snap` returns the segment of a point (null: not on a
 * countable curb); `existing` holds each segment's stored observations (any order).
 * @example parkEventObservations(events, (lat, lon) => seg, new Map()) // [{ kind: 'segment', targetId: '12-R1', occupied: 9, … }]
 */
export function parkEventObservations(
  events: readonly ParkEventPoint[],
  snap: (lat: number, lon: number) => SnappedSegment | null,
  existing: ReadonlyMap<string, readonly OccupancyObservation[]>,
): ObservationInput[] {
  const bySegment = new Map<string, { seg: SnappedSegment; events: ParkEventPoint[] }>();
  for (const e of events) {
    const seg = snap(e.lat, e.lon);
    if (!seg || seg.spacesTotal <= 0) continue;
    let g = bySegment.get(seg.segmentID);
    if (!g) bySegment.set(seg.segmentID, (g = { seg, events: [] }));
    g.events.push(e);
  }
  const out: ObservationInput[] = [];
  for (const [id, { seg, events: list }] of bySegment) {
    const obs: OccupancyObservation[] = [...(existing.get(id) ?? [])].sort((a, b) => a.observedAtS - b.observedAtS);
    for (const e of [...list].sort((a, b) => a.observedAtS - b.observedAtS)) {
      const { pct } = occupancyPctAt('On-street', seg.spacesTotal, e.observedAtS, seg.offsetAt(e.observedAtS), obs);
      const before = Math.round((pct / 100) * seg.spacesTotal);
      const occupied = Math.min(seg.spacesTotal, Math.max(0, before + (e.parkedOut ? -1 : 1)));
      const o = { observedAtS: e.observedAtS, occupied, capacity: seg.spacesTotal, source: 'park_events' as const };
      obs.push(o);
      out.push({ kind: 'segment', targetId: id, ...o });
    }
  }
  return out;
}
