/**
 * On-street parking tags of a way, per side, in both tagging schemes:
 * the old `parking:lane:<side>=parallel|diagonal|perpendicular|no_parking|…` with
 * `parking:condition:<side>=free|ticket|…`, and the 2022 scheme `parking:<side>=lane|street_side|no|…`
 * with `parking:<side>:orientation`, `:restriction`, `:fee`, `:maxstay`. `both` applies to both
 * sides; a side-specific key wins over `both`.
 */
import type { Tags } from './types.js';

/** Parking on one side of a way, relative to the way's direction. */
export interface CurbSideTags {
  /** parallel | diagonal | perpendicular | no_parking | no_stopping | fire_lane | … */
  kind: string;
  /** free | ticket | disc | residents | customers | private | no_parking | loading_only | … ('' when untagged) */
  condition: string;
  /** e.g. "2 hours" ('' when untagged) */
  maxStay: string;
  /** tagged capacity, or null */
  capacity: number | null;
  /** the raw parking:* tags that apply to this side */
  tags: Tags;
}

const SIDE_KEY = /^parking:(?:lane:|condition:)?(both|left|right)(?::|$)/;

function pick(tags: Tags, side: 'left' | 'right', pattern: (s: string) => string): string | undefined {
  return tags[pattern(side)] ?? tags[pattern('both')];
}

function capacityOf(v: string | undefined): number | null {
  if (v === undefined) return null;
  const n = parseInt(v, 10);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** Kinds that mean "no car may park here". */
export const NO_PARKING_KINDS: ReadonlySet<string> = new Set([
  'no_parking',
  'no_stopping',
  'fire_lane',
  'no',
  'no_standing',
]);

function sideTags(tags: Tags, side: 'left' | 'right'): CurbSideTags | null {
  const raw: Tags = {};
  let any = false;
  for (const k in tags) {
    const m = SIDE_KEY.exec(k);
    if (m && (m[1] === side || m[1] === 'both')) {
      raw[k] = tags[k];
      any = true;
    }
  }
  if (!any) return null;
  // A way-wide price applies to every curb that has parking tags (the parking service reads it
  // after the side-specific keys).
  for (const k of ['charge', 'charge:conditional']) if (tags[k] !== undefined) raw[k] = tags[k];

  // Old scheme (parking:lane:*) first, then the 2022 scheme (parking:<side>*).
  const lane = pick(tags, side, (s) => `parking:lane:${s}`);
  if (lane !== undefined) {
    if (lane === 'separate') return null;
    const kind = lane === 'marked' ? 'parallel' : lane === 'no' ? 'no_parking' : lane;
    return {
      kind,
      condition: pick(tags, side, (s) => `parking:condition:${s}`) ?? '',
      maxStay: pick(tags, side, (s) => `parking:condition:${s}:maxstay`) ?? '',
      capacity: capacityOf(pick(tags, side, (s) => `parking:lane:${s}:capacity`)),
      tags: raw,
    };
  }
  const place = pick(tags, side, (s) => `parking:${s}`);
  const restriction = pick(tags, side, (s) => `parking:${s}:restriction`);
  if (place === 'separate') return null;
  if (place === undefined && restriction === undefined) {
    // only old-scheme conditions (parking:condition:*) without a lane: condition-only information
    const condition = pick(tags, side, (s) => `parking:condition:${s}`);
    if (condition === undefined) return null;
    const noPark = condition === 'no_parking' || condition === 'no_stopping';
    return {
      kind: noPark ? condition : 'parallel',
      condition,
      maxStay: pick(tags, side, (s) => `parking:condition:${s}:maxstay`) ?? '',
      capacity: null,
      tags: raw,
    };
  }
  let kind: string;
  if (place === 'no')
    kind = restriction === 'no_stopping' || restriction === 'no_standing' ? restriction : 'no_parking';
  else if (
    place === undefined &&
    (restriction === 'no_parking' || restriction === 'no_stopping' || restriction === 'no_standing')
  )
    kind = restriction;
  else kind = pick(tags, side, (s) => `parking:${s}:orientation`) ?? 'parallel';
  const fee = pick(tags, side, (s) => `parking:${s}:fee`);
  const access = pick(tags, side, (s) => `parking:${s}:access`);
  let condition = '';
  if (restriction !== undefined && restriction !== 'none') condition = restriction;
  else if (access === 'private' || access === 'no') condition = 'private';
  else if (access === 'permit' || access === 'residents') condition = 'residents';
  else if (access === 'customers') condition = 'customers';
  if (!condition && fee === 'yes') condition = 'ticket';
  if (!condition && fee === 'no') condition = 'free';
  return {
    kind,
    condition,
    maxStay: pick(tags, side, (s) => `parking:${s}:maxstay`) ?? '',
    capacity: capacityOf(pick(tags, side, (s) => `parking:${s}:capacity`)),
    tags: raw,
  };
}

/** Curb parking of a way per side (relative to the way's node order); null sides are untagged. */
export function interpretCurb(tags: Tags): { left: CurbSideTags | null; right: CurbSideTags | null } {
  return { left: sideTags(tags, 'left'), right: sideTags(tags, 'right') };
}
