/**
 * Turn restriction relations (`type=restriction`, https://wiki.openstreetmap.org/wiki/Relation:restriction).
 */
import type { OsmRelation } from './types.js';

/** A turn restriction relation applying to cars. */
export interface TurnRestrictionTags {
  relationId: number;
  kind: 'no' | 'only';
  /** e.g. no_left_turn, only_straight_on */
  restriction: string;
  fromWays: number[];
  /** via node id, or null for via-way restrictions */
  viaNode: number | null;
  viaWays: number[];
  toWays: number[];
}

const CAR_KEYS = ['restriction:motorcar', 'restriction:motor_vehicle', 'restriction:vehicle', 'restriction'];

/** Parses a restriction relation; null when it is not one, does not apply to cars, or is malformed. */
export function parseRestriction(rel: OsmRelation): TurnRestrictionTags | null {
  const t = rel.tags;
  if (t.type !== 'restriction' && !(t.type ?? '').startsWith('restriction:')) return null;
  let value: string | undefined;
  for (const k of CAR_KEYS)
    if (t[k] !== undefined) {
      value = t[k];
      break;
    }
  if (value === undefined) return null;
  // `except` lists vehicles the restriction does not apply to
  if (
    (t.except ?? '')
      .split(';')
      .map((s) => s.trim())
      .some((s) => s === 'motorcar' || s === 'motor_vehicle')
  )
    return null;
  // conditional-only restrictions (by time) are not represented in the static graph
  const kind = value.startsWith('no_') ? 'no' : value.startsWith('only_') ? 'only' : null;
  if (!kind) return null;
  const fromWays: number[] = [];
  const toWays: number[] = [];
  const viaWays: number[] = [];
  let viaNode: number | null = null;
  for (const m of rel.members) {
    if (m.role === 'from' && m.type === 'way') fromWays.push(m.ref);
    else if (m.role === 'to' && m.type === 'way') toWays.push(m.ref);
    else if (m.role === 'via' && m.type === 'node') viaNode = m.ref;
    else if (m.role === 'via' && m.type === 'way') viaWays.push(m.ref);
  }
  if (fromWays.length === 0 || toWays.length === 0) return null;
  if (viaNode === null && viaWays.length === 0) return null;
  return { relationId: rel.id, kind, restriction: value, fromWays, viaNode, viaWays, toWays };
}
