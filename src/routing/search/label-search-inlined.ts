/**
 * Routing's hot loop: `LabelSearch` with the kernel's relaxation (`EdgeSearch.relaxFrom`) and its
 * hooks (`leave`, `enter`, `keep`) written out as one monomorphic loop over the layout's arrays.
 * It is a specialised copy of the model, not a different search: `test/routing/kernel-model.test.ts`
 * runs both on every source/target pair of a fixture and on Baltimore samples and requires the
 * same answers and the same labels settled.
 */
import { costFactor } from './search-types.js';
import { LabelSearch } from './label-search.js';
import { TARGET } from './layout.js';

/** `LabelSearch` relaxing through its inlined loop. */
export class InlinedLabelSearch extends LabelSearch {
  /**
   * Relaxes every allowed turn out of settled label e: the kernel's `relaxFrom` with this class's
   * `leave`, `enter` and `keep` inlined (the hot loop: no allocation, no call per turn but the
   * travel time's).
   */
  protected override relax(e: number): void {
    const L = this.layout;
    const { cost, time, gen, outSeen, pushedKey } = this;
    const noReopen = this.noReopen;
    const { edgeTarget, firstOut, turnDelay, turnCode, edgeFlags, minTT } = L;
    const o = this.o!;
    const shortest = o.shortest;
    const exclude = this.exclude;
    const simple = this.simple;
    const curGen = this.generation;
    const ce = cost[e];
    const te = time[e];
    const v = edgeTarget[e];
    const f0 = firstOut[v];
    const tBase = L.turnOff[e] - f0;
    for (let f = f0, end = firstOut[v + 1]; f < end; f++) {
      const tc = turnDelay[turnCode[tBase + f]];
      if (tc < 0) continue; // turn restriction
      const fl = edgeFlags[f];
      if ((fl & exclude) !== 0) continue;
      const fac = simple ? 1 : costFactor(fl, L.extEdge[f], o);
      // cheap prune: even at its fastest, this way into f is no better than f's label
      if (!shortest && gen[f] === curGen && (fl & TARGET) === 0 && ce + tc + minTT[f] * fac >= cost[f]) continue;
      const tEnter = te + tc;
      const tt = this.costs.travelTimeS(f, tEnter);
      if (tt === Infinity) continue;
      const stepTurn = shortest ? this.uturnM(e, f) : tc;
      const base = shortest ? this.g.edgeLengthM[L.extEdge[f]] : tt;
      const cTurn = ce + stepTurn;
      if ((fl & TARGET) !== 0) this.reachTarget(e, f, cTurn, base, fac, tEnter, tt);
      const nc = cTurn + base * fac;
      if (gen[f] !== curGen || (nc < cost[f] && !(noReopen && pushedKey[f] === -1))) {
        outSeen[v] = curGen;
        gen[f] = curGen;
        cost[f] = nc;
        time[f] = tEnter + tt;
        this.parent[f] = e;
        if (!shortest && (fl & TARGET) === 0 && outSeen[edgeTarget[f]] === curGen && this.dropDeadEnd(f, nc)) {
          this.lastDeadEnds++;
          pushedKey[f] = -1; // an older queue entry of f is stale now
          continue;
        }
        this.push(f, nc);
      }
    }
  }
}
