/**
 * Turn restrictions of an extract mapped to the graph's edge pairs (via-node restrictions only;
 * via-way restrictions and relations with unknown members are counted as skipped).
 */
import { bearingDeg, turnAngleDeg } from '../geo/index.js';
import { parseRestriction } from '../osm/index.js';
import type { OsmExtract } from '../osm/index.js';
import { RestrictionKind } from './graph.js';
import type { EdgeInput, NodeInput, RestrictionInput } from './graph.js';
import { turnTypeOf } from './intersections.js';
import type { TurnType } from './region.js';

/**
 * Maps restriction relations (via node) to edge pairs of the edge inputs. A from/to way passing
 * through the via node yields several pairs; only those whose geometry makes the named turn are
 * kept when any does.
 */
export function mapRestrictions(
  relations: OsmExtract['restrictions'],
  nodeInputs: readonly NodeInput[],
  edges: readonly EdgeInput[],
  edgesOfWay: ReadonlyMap<number, number[]>,
  nodeIdOf: ReadonlyMap<number, number>,
): { restrictions: RestrictionInput[]; mapped: number; skipped: number } {
  const restrictions: RestrictionInput[] = [];
  let mapped = 0,
    skipped = 0;
  const rels = relations.slice().sort((a, b) => a.id - b.id);
  for (const rel of rels) {
    const r = parseRestriction(rel);
    if (!r) continue;
    const via = r.viaNode === null ? undefined : nodeIdOf.get(r.viaNode);
    if (via === undefined) {
      skipped++;
      continue;
    }
    const before = restrictions.length;
    const pairs: Array<[number, number]> = [];
    for (const fw of r.fromWays) {
      for (const fe of edgesOfWay.get(fw) ?? []) {
        if (edges[fe].target !== via) continue;
        for (const tw of r.toWays) {
          for (const te of edgesOfWay.get(tw) ?? []) if (edges[te].source === via) pairs.push([fe, te]);
        }
      }
    }
    // A from/to way passing through the via node yields several edge pairs; keep those whose
    // geometry matches the restriction's turn (e.g. the pair that really is a left turn).
    const want = expectedTurn(r.restriction);
    let chosen = pairs;
    if (want && pairs.length > 1) {
      const matching = pairs.filter(
        ([fe, te]) =>
          turnTypeOf(
            turnAngleDeg(arrivalBearing(nodeInputs, edges[fe]), departureBearing(nodeInputs, edges[te])),
            edges[fe].twin === te,
          ) === want,
      );
      if (matching.length > 0) chosen = matching;
    }
    for (const [fe, te] of chosen)
      restrictions.push({
        fromEdge: fe,
        via,
        toEdge: te,
        kind: r.kind === 'no' ? RestrictionKind.no : RestrictionKind.only,
      });
    if (restrictions.length > before) mapped++;
    else skipped++;
  }

  return { restrictions, mapped, skipped };
}

/** Turn type named by a restriction value (no_left_turn → left), or undefined (no_entry, no_exit…). */
function expectedTurn(restriction: string): TurnType | undefined {
  if (restriction.endsWith('left_turn')) return 'left';
  if (restriction.endsWith('right_turn')) return 'right';
  if (restriction.endsWith('straight_on')) return 'through';
  if (restriction.endsWith('u_turn')) return 'uturn';
  return undefined;
}

/** Bearing of an input edge arriving at its target, degrees. */
function arrivalBearing(nodes: readonly NodeInput[], e: EdgeInput): number {
  const t = nodes[e.target];
  const prev = e.shape && e.shape.length > 0 ? e.shape[e.shape.length - 1] : [nodes[e.source].lat, nodes[e.source].lon];
  return bearingDeg(prev[0], prev[1], t.lat, t.lon);
}

/** Bearing of an input edge leaving its source, degrees. */
function departureBearing(nodes: readonly NodeInput[], e: EdgeInput): number {
  const s = nodes[e.source];
  const next = e.shape && e.shape.length > 0 ? e.shape[0] : [nodes[e.target].lat, nodes[e.target].lon];
  return bearingDeg(s.lat, s.lon, next[0], next[1]);
}
