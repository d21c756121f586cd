/**
 * Signal controllers' high-resolution event logs (the Indiana enumerations used by ATSPM:
 * Sturdevant et al., "Indiana Traffic Signal Hi Resolution Data Logger Enumerations", 2012), and
 * the per-intersection channel/phase map that ties a controller's phases and detector channels to
 * the catalog's movements. See docs/analytics.md, *Signal timing from controller logs*.
 */
import { DateTime } from 'luxon';
import { parseIsoToUnixS } from '../../time/index.js';
import { invalid } from '../errors.js';

/** The event codes streetwise reads (the others are accepted and ignored). */
export const SignalEventCode = {
  phaseBeginGreen: 1,
  phaseBeginYellow: 8,
  phaseEndYellow: 9,
  phaseBeginRedClearance: 10,
  phaseEndRedClearance: 11,
  overlapBeginGreen: 61,
  overlapBeginYellow: 63,
  overlapBeginRedClearance: 64,
  detectorOff: 81,
  detectorOn: 82,
} as const;

/** One controller event: unix seconds, Indiana event code, parameter (phase, overlap or detector channel). */
export interface SignalEvent {
  tS: number;
  code: number;
  param: number;
}

/**
 * Order of events logged at the same instant: a phase's green begins after its yellow and red
 * clearance end (a controller logs them in that order), a detector goes off before it goes on.
 */
export function eventOrder(a: SignalEvent, b: SignalEvent): number {
  const rank = (c: number): number =>
    c === SignalEventCode.phaseBeginGreen || c === SignalEventCode.overlapBeginGreen ? 300 + c : c;
  return a.tS - b.tS || rank(a.code) - rank(b.code) || a.param - b.param;
}

/** Greatest number of events one upload may hold. */
export const MAX_EVENTS_PER_LOG = 2_000_000;

const US_DATE_RE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/;

function parseTimestamp(text: string, timeZone: string): number | undefined {
  const iso = parseIsoToUnixS(text, timeZone);
  if (iso !== undefined) return iso;
  const m = US_DATE_RE.exec(text.trim());
  if (!m) return undefined;
  const dt = DateTime.fromObject(
    {
      year: Number(m[3]),
      month: Number(m[1]),
      day: Number(m[2]),
      hour: Number(m[4]),
      minute: Number(m[5]),
      second: Number(m[6] ?? 0),
      millisecond: m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0,
    },
    { zone: timeZone },
  );
  return dt.isValid ? dt.toMillis() / 1000 : undefined;
}

/**
 * Parses a hi-res event log in CSV: one event a line, `timestamp,event code,parameter` (an ATSPM
 * export's `SignalID,Timestamp,EventCode,EventParam` is read too: with four columns the first is
 * the controller id and is ignored). A header line is skipped. Timestamps are ISO 8601 or
 * `MM/DD/YYYY HH:MM:SS.s`; without an offset they are local time in `timeZone` (controllers log
 * local time). Throws ANALYTICS_INVALID_PARAMETER naming the first bad line. Events come back in
 * time order (`eventOrder` at one instant).
 *
 * @example
 * parseEventLog('2026-11-16 08:00:00.0,1,2\n', 'America/New_York'); // [{ tS: 1763298000, code: 1, param: 2 }]
 */
export function parseEventLog(csv: string, timeZone: string): SignalEvent[] {
  const out: SignalEvent[] = [];
  let lineNo = 0;
  for (const raw of csv.split(/\r?\n/)) {
    lineNo++;
    const line = raw.trim();
    if (line === '') continue;
    const cols = line.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
    if (cols.length !== 3 && cols.length !== 4)
      throw invalid(`line ${lineNo}`, 'expected timestamp,event code,parameter');
    const [ts, code, param] = cols.length === 4 ? cols.slice(1) : cols;
    const tS = parseTimestamp(ts, timeZone);
    if (tS === undefined) {
      if (out.length === 0 && lineNo === 1) continue; // a header
      throw invalid(`line ${lineNo}`, `timestamp "${ts}" is not ISO 8601 or MM/DD/YYYY HH:MM:SS`);
    }
    const c = Number(code);
    const p = Number(param);
    if (!/^\d+$/.test(code) || c > 255) throw invalid(`line ${lineNo}`, `event code "${code}" is not 0–255`);
    if (!/^\d+$/.test(param) || p > 255) throw invalid(`line ${lineNo}`, `parameter "${param}" is not 0–255`);
    out.push({ tS, code: c, param: p });
    if (out.length > MAX_EVENTS_PER_LOG) throw invalid('events', `more than ${MAX_EVENTS_PER_LOG} events in one log`);
  }
  return out.sort(eventOrder);
}

/** A detector channel of the map. */
export interface DetectorChannel {
  channel: number;
  phase: number;
  /** `stopbar`: presence at the stop line (split failures); `advance`: upstream count (arrivals) */
  kind: 'stopbar' | 'advance';
  /** advance detectors: distance before the stop line, metres */
  distanceM?: number;
  /** advance detectors: speed to project an actuation to the stop line, km/h */
  speedKph?: number;
}

/** Which controller phase (or overlap) shows green to which movements of one intersection. */
export interface ChannelMap {
  /** the catalog's public intersection id */
  intersectionId: string;
  phases: Array<{ phase?: number; overlap?: number; movements: string[] }>;
  detectors: DetectorChannel[];
}

/**
 * Validates a channel/phase map (JSON already parsed) against the movements of its intersection
 * (`movementIds`: the public movement ids). Throws ANALYTICS_INVALID_PARAMETER on the first fault.
 */
export function parseChannelMap(body: unknown, movementIds: ReadonlySet<string>): ChannelMap {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('map', 'must be an object');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b))
    if (!['intersectionId', 'phases', 'detectors'].includes(k)) throw invalid(`map.${k}`, 'unknown field');
  if (typeof b.intersectionId !== 'string') throw invalid('map.intersectionId', 'must be a string');
  if (!Array.isArray(b.phases) || b.phases.length === 0) throw invalid('map.phases', 'must be a non-empty array');
  const num = (v: unknown, at: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 255)
      throw invalid(at, 'must be an integer 1–255');
    return v;
  };
  const phases = b.phases.map((p, i) => {
    const at = `map.phases[${i}]`;
    if (typeof p !== 'object' || p === null) throw invalid(at, 'must be an object');
    const q = p as Record<string, unknown>;
    if ((q.phase === undefined) === (q.overlap === undefined)) throw invalid(at, 'needs exactly one of phase, overlap');
    if (!Array.isArray(q.movements) || q.movements.length === 0)
      throw invalid(`${at}.movements`, 'must be a non-empty array');
    const movements = q.movements.map((m, k) => {
      if (typeof m !== 'string' || !movementIds.has(m))
        throw invalid(`${at}.movements[${k}]`, `"${String(m)}" is not a movement of ${b.intersectionId}`);
      return m;
    });
    return q.phase !== undefined
      ? { phase: num(q.phase, `${at}.phase`), movements }
      : { overlap: num(q.overlap, `${at}.overlap`), movements };
  });
  const detectors = (b.detectors === undefined ? [] : b.detectors) as unknown[];
  if (!Array.isArray(detectors)) throw invalid('map.detectors', 'must be an array');
  return {
    intersectionId: b.intersectionId,
    phases,
    detectors: detectors.map((d, i) => {
      const at = `map.detectors[${i}]`;
      if (typeof d !== 'object' || d === null) throw invalid(at, 'must be an object');
      const q = d as Record<string, unknown>;
      const kind = q.kind;
      if (kind !== 'stopbar' && kind !== 'advance') throw invalid(`${at}.kind`, 'must be stopbar or advance');
      const out: DetectorChannel = {
        channel: num(q.channel, `${at}.channel`),
        phase: num(q.phase, `${at}.phase`),
        kind,
      };
      if (kind === 'advance') {
        if (typeof q.distanceM !== 'number' || !(q.distanceM > 0)) throw invalid(`${at}.distanceM`, 'must be > 0');
        if (typeof q.speedKph !== 'number' || !(q.speedKph > 0)) throw invalid(`${at}.speedKph`, 'must be > 0');
        out.distanceM = q.distanceM;
        out.speedKph = q.speedKph;
      }
      return out;
    }),
  };
}

/** One interval of a phase's display: `[startS, endS)` unix seconds. */
export interface PhaseInterval {
  startS: number;
  endS: number;
}

/** The displays of one phase (or overlap) over a log. */
export interface PhaseTimeline {
  greens: PhaseInterval[];
  /** yellow change intervals */
  yellows: PhaseInterval[];
}

/**
 * Green and yellow intervals of `phase` (or of overlap `overlap` when `isOverlap`) from a log in
 * time order: green from Begin Green to Begin Yellow, yellow from Begin Yellow to End Yellow (or
 * Begin Red Clearance, or the next Begin Green). A green still showing at the end of the log ends
 * there.
 */
export function phaseTimeline(events: readonly SignalEvent[], phase: number, isOverlap = false): PhaseTimeline {
  const green = isOverlap ? SignalEventCode.overlapBeginGreen : SignalEventCode.phaseBeginGreen;
  const yellow = isOverlap ? SignalEventCode.overlapBeginYellow : SignalEventCode.phaseBeginYellow;
  const red = isOverlap ? SignalEventCode.overlapBeginRedClearance : SignalEventCode.phaseBeginRedClearance;
  const endYellow = isOverlap ? -1 : SignalEventCode.phaseEndYellow;
  const greens: PhaseInterval[] = [];
  const yellows: PhaseInterval[] = [];
  let gStart: number | undefined;
  let yStart: number | undefined;
  for (const e of events) {
    if (e.param !== phase) continue;
    if (e.code === green) {
      if (yStart !== undefined) yellows.push({ startS: yStart, endS: e.tS });
      yStart = undefined;
      if (gStart === undefined) gStart = e.tS;
    } else if (e.code === yellow) {
      if (gStart !== undefined) greens.push({ startS: gStart, endS: e.tS });
      gStart = undefined;
      if (yStart === undefined) yStart = e.tS;
    } else if (e.code === endYellow || e.code === red) {
      if (yStart !== undefined) yellows.push({ startS: yStart, endS: e.tS });
      yStart = undefined;
    }
  }
  const lastS = events.length > 0 ? events[events.length - 1].tS : 0;
  if (gStart !== undefined && lastS > gStart) greens.push({ startS: gStart, endS: lastS });
  return { greens, yellows };
}

/** Index of the interval holding `tS` (binary search over sorted, disjoint intervals), or -1. */
export function intervalAt(intervals: readonly PhaseInterval[], tS: number): number {
  let lo = 0;
  let hi = intervals.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (intervals[mid].endS <= tS) lo = mid + 1;
    else if (intervals[mid].startS > tS) hi = mid - 1;
    else return mid;
  }
  return -1;
}
