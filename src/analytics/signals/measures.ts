/**
 * Controller-based measures from hi-res event logs and their channel/phase map: signal timing for
 * arrivals on green (`signalTimingFromLogs`), split failures and the Purdue coordination diagram
 * of a phase. Definitions as in ATSPM (Day et al., "Performance Measures for Traffic Signal
 * Systems: An Outcome-Oriented Approach", Purdue University, 2014). See docs/analytics.md.
 */
import type { CatalogMovement } from '../catalog/catalog.js';
import type { SignalTiming } from '../facts/build-facts.js';
import {
  type ChannelMap,
  intervalAt,
  type PhaseInterval,
  phaseTimeline,
  type SignalEvent,
  SignalEventCode,
} from './event-log.js';

/** A controller's log with its map. */
export interface IntersectionLog {
  map: ChannelMap;
  /** events in time order */
  events: readonly SignalEvent[];
}

/** Green occupancy ratio and red occupancy ratio (first 5 s of red) above this: a split failure. */
export const SPLIT_FAILURE_OCCUPANCY = 0.79;
/** Seconds of red at the start of red whose occupancy is the ROR5. */
export const ROR_WINDOW_S = 5;

/**
 * Signal timing from controller logs (keyed by public intersection id): a movement is green when
 * a phase or overlap the map gives it shows green; undefined outside the span of the log or for a
 * movement the map does not name.
 *
 * @example
 * const facts = buildFacts(region, trajectories, { signalTiming: signalTimingFromLogs(logs) });
 */
export function signalTimingFromLogs(logs: ReadonlyMap<string, IntersectionLog>): SignalTiming {
  const greensOf = new Map<string, Map<string, PhaseInterval[][]>>();
  const spanOf = new Map<string, [number, number]>();
  for (const [key, log] of logs) {
    const byMovement = new Map<string, PhaseInterval[][]>();
    for (const p of log.map.phases) {
      const { greens } =
        p.phase !== undefined ? phaseTimeline(log.events, p.phase) : phaseTimeline(log.events, p.overlap!, true);
      for (const m of p.movements) {
        const arr = byMovement.get(m) ?? [];
        arr.push(greens);
        byMovement.set(m, arr);
      }
    }
    greensOf.set(key, byMovement);
    if (log.events.length > 0) spanOf.set(key, [log.events[0].tS, log.events[log.events.length - 1].tS]);
  }
  return (movement: CatalogMovement, tS: number): boolean | undefined => {
    const span = spanOf.get(movement.intersectionKey);
    const lists = greensOf.get(movement.intersectionKey)?.get(movement.id);
    if (span === undefined || lists === undefined || tS < span[0] || tS > span[1]) return undefined;
    return lists.some((greens) => intervalAt(greens, tS) >= 0);
  };
}

/** On-intervals of the given detector channels merged (any of them on), in time order. */
export function occupancy(events: readonly SignalEvent[], channels: ReadonlySet<number>): PhaseInterval[] {
  const onSince = new Map<number, number>();
  const raw: PhaseInterval[] = [];
  for (const e of events) {
    if (!channels.has(e.param)) continue;
    if (e.code === SignalEventCode.detectorOn) {
      if (!onSince.has(e.param)) onSince.set(e.param, e.tS);
    } else if (e.code === SignalEventCode.detectorOff) {
      const s = onSince.get(e.param);
      if (s !== undefined) raw.push({ startS: s, endS: e.tS });
      onSince.delete(e.param);
    }
  }
  const lastS = events.length > 0 ? events[events.length - 1].tS : 0;
  for (const s of onSince.values()) if (lastS > s) raw.push({ startS: s, endS: lastS });
  raw.sort((a, b) => a.startS - b.startS);
  const out: PhaseInterval[] = [];
  for (const iv of raw) {
    const last = out[out.length - 1];
    if (last !== undefined && iv.startS <= last.endS) last.endS = Math.max(last.endS, iv.endS);
    else out.push({ ...iv });
  }
  return out;
}

/** Seconds of `[a, b)` covered by the merged `intervals`. */
function coveredS(intervals: readonly PhaseInterval[], a: number, b: number): number {
  let s = 0;
  for (const iv of intervals) {
    if (iv.endS <= a) continue;
    if (iv.startS >= b) break;
    s += Math.min(b, iv.endS) - Math.max(a, iv.startS);
  }
  return s;
}

/** One green of a phase judged for split failure. */
export interface SplitCycle {
  greenStartS: number;
  greenEndS: number;
  /** start of red after the yellow */
  redStartS: number;
  /** green occupancy ratio of the stop-bar detectors, 0–1 */
  gor: number;
  /** occupancy ratio of the first `ROR_WINDOW_S` of red, 0–1 */
  ror5: number;
  splitFailure: boolean;
}

/**
 * Split failures of `phase`: for every green, the occupancy of the phase's stop-bar detectors
 * over the green (GOR) and over the first 5 s of red (ROR5); both above 79 % is a split failure
 * (vehicles were waiting through the whole green and still are when it ends).
 */
export function splitFailures(log: IntersectionLog, phase: number): SplitCycle[] {
  const channels = new Set(
    log.map.detectors.filter((d) => d.phase === phase && d.kind === 'stopbar').map((d) => d.channel),
  );
  if (channels.size === 0) return [];
  const occ = occupancy(log.events, channels);
  const { greens, yellows } = phaseTimeline(log.events, phase);
  const out: SplitCycle[] = [];
  for (const g of greens) {
    const y = yellows.find((v) => v.startS === g.endS);
    const redStartS = y?.endS ?? g.endS;
    const lastS = log.events[log.events.length - 1].tS;
    if (redStartS + ROR_WINDOW_S > lastS) continue; // the log ends before the red could be judged
    const gor = g.endS > g.startS ? coveredS(occ, g.startS, g.endS) / (g.endS - g.startS) : 0;
    const ror5 = coveredS(occ, redStartS, redStartS + ROR_WINDOW_S) / ROR_WINDOW_S;
    out.push({
      greenStartS: g.startS,
      greenEndS: g.endS,
      redStartS,
      gor,
      ror5,
      splitFailure: gor > SPLIT_FAILURE_OCCUPANCY && ror5 > SPLIT_FAILURE_OCCUPANCY,
    });
  }
  return out;
}

/** One cycle of a phase: red from `startS`, green from `greenS`, yellow from `yellowS` to `endS`. */
export interface PcdCycle {
  startS: number;
  greenS: number;
  yellowS: number;
  endS: number;
}

/** One arrival at the stop bar on the diagram. */
export interface PcdArrival {
  /** unix seconds of the arrival at the stop bar */
  tS: number;
  /** seconds since the start of its cycle */
  inCycleS: number;
  onGreen: boolean;
  source: 'detector' | 'probe';
}

/** The Purdue coordination diagram of one phase. */
export interface CoordinationDiagram {
  phase: number;
  cycles: PcdCycle[];
  arrivals: PcdArrival[];
  /** share of the arrivals on green, percent (null without arrivals) */
  percentOnGreen: number | null;
}

/**
 * The Purdue coordination diagram of `phase` between `fromS` and `toS`: each cycle from the start
 * of red to the end of the next yellow, with every arrival placed at its second in the cycle.
 * Arrivals are advance-detector actuations projected to the stop bar (distance / speed of the
 * map) and, when given, probe vehicles' arrivals (`probeArrivalsS`: the free-flow arrival times
 * of the traversal facts of the phase's movements).
 */
export function coordinationDiagram(
  log: IntersectionLog,
  phase: number,
  fromS: number,
  toS: number,
  probeArrivalsS: readonly number[] = [],
): CoordinationDiagram {
  const { greens, yellows } = phaseTimeline(log.events, phase);
  const cycles: PcdCycle[] = [];
  for (let i = 0; i + 1 < yellows.length; i++) {
    const startS = yellows[i].endS;
    const next = yellows[i + 1];
    const g = greens.find((v) => v.startS >= startS && v.endS <= next.startS);
    if (g === undefined || next.endS < fromS || startS > toS) continue;
    cycles.push({ startS, greenS: g.startS, yellowS: next.startS, endS: next.endS });
  }
  const arrivals: PcdArrival[] = [];
  const place = (tS: number, source: PcdArrival['source']): void => {
    if (tS < fromS || tS >= toS) return;
    let lo = 0;
    let hi = cycles.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = cycles[mid];
      if (c.endS <= tS) lo = mid + 1;
      else if (c.startS > tS) hi = mid - 1;
      else {
        arrivals.push({ tS, inCycleS: tS - c.startS, onGreen: tS >= c.greenS && tS < c.yellowS, source });
        return;
      }
    }
  };
  for (const d of log.map.detectors) {
    if (d.phase !== phase || d.kind !== 'advance') continue;
    const travelS = d.distanceM! / (d.speedKph! / 3.6);
    for (const e of log.events)
      if (e.code === SignalEventCode.detectorOn && e.param === d.channel) place(e.tS + travelS, 'detector');
  }
  for (const t of probeArrivalsS) place(t, 'probe');
  arrivals.sort((a, b) => a.tS - b.tS);
  const on = arrivals.filter((a) => a.onGreen).length;
  return {
    phase,
    cycles,
    arrivals,
    percentOnGreen: arrivals.length > 0 ? (100 * on) / arrivals.length : null,
  };
}
