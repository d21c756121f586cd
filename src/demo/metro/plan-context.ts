/**
 * What every stage of the metro generator shares: the store being filled, the seeded random
 * source, the plan's size, and the barriers (river and motorway corridors) that local streets may
 * neither enter nor cross.
 */
import type { Tags } from '../../osm/index.js';
import type { Prng } from '../prng.js';
import type { Barrier, Xy } from './geometry.js';
import type { PlanStore } from './plan-store.js';

/** Side of a cell of the arterial lattice, metres (arterials are about a kilometre apart). */
export const CELL_M = 1000;
/** Half width of a motorway corridor: no local street or arterial node inside it, metres. */
export const MOTORWAY_CORRIDOR_M = 45;
/** Half width of the river corridor, metres. */
export const RIVER_CORRIDOR_M = 60;

/** Shared state of one generation. */
export interface PlanContext {
  store: PlanStore;
  rng: Prng;
  /** cells of the arterial lattice per side of the (square) plan */
  cells: number;
  river: Barrier;
  /** motorway centre lines with their corridors */
  motorways: Barrier[];
}

/** True when p lies in the river's or a motorway's corridor. */
export function isBlocked(ctx: PlanContext, p: Xy): boolean {
  if (ctx.river.covers(p)) return true;
  for (const m of ctx.motorways) if (m.covers(p)) return true;
  return false;
}

/** True when segment a–b crosses the river or a motorway. */
export function crossesBarrier(ctx: PlanContext, a: Xy, b: Xy): boolean {
  if (ctx.river.crossing(a, b)) return true;
  for (const m of ctx.motorways) if (m.crossing(a, b)) return true;
  return false;
}

/** One entry of a street: a node index (-1 = left out, the street is cut there) or a shape point. */
export type StreetPoint = number | Xy;

/**
 * Adds a street as ways over its kept stretches: a stretch ends at a left-out node (-1), a segment
 * crossing a barrier, or a segment dropped with probability `dropP` (a missing link). Shape points
 * become nodes of the way they are on. A one-way street that is cut becomes two-way (a one-way
 * dead end could not be left). Returns the ids of the ways added.
 */
export function addStreet(ctx: PlanContext, points: readonly StreetPoint[], tags: Tags, dropP = 0): number[] {
  const { store, rng } = ctx;
  const runs: number[][] = [];
  let run: number[] = [];
  let pendingShape: Xy[] = [];
  let last: Xy | null = null;
  let cut = false;
  const close = (): void => {
    if (run.length >= 2) runs.push(run);
    run = [];
  };
  for (const pt of points) {
    if (typeof pt !== 'number') {
      pendingShape.push(pt);
      continue;
    }
    if (pt < 0) {
      cut = true;
      close();
      pendingShape = [];
      last = null;
      continue;
    }
    const here = store.position(pt);
    if (last !== null) {
      const chain = [last, ...pendingShape, here];
      let ok = !(dropP > 0 && rng.chance(dropP));
      for (let k = 0; ok && k + 1 < chain.length; k++) if (crossesBarrier(ctx, chain[k], chain[k + 1])) ok = false;
      if (ok) {
        for (const s of pendingShape) run.push(store.addNode(s));
      } else {
        cut = true;
        close();
      }
    }
    run.push(pt);
    pendingShape = [];
    last = here;
  }
  close();
  let wayTags = tags;
  if (cut && tags.oneway === 'yes') {
    const { oneway: _oneway, ...twoWay } = tags;
    wayTags = twoWay;
  }
  return runs.map((r) => store.addWay(r, wayTags));
}
