/**
 * Queries that exercise every lookup of an inventory (`InventoryView`), for comparing two ways of
 * building one: records by id and alias, lots and blocks in boxes, circle queries through
 * `selectLots` / `selectBlocks`, and the curb segment nearest to points.
 */
import type { InventoryView } from '../../src/parking/index.js';
import { parseInventoryQuery, selectBlocks, selectLots } from '../../src/parking/index.js';

/** One query of an inventory. */
export type InventoryProbe =
  | { kind: 'lot'; id: number }
  | { kind: 'alias'; key: string }
  | { kind: 'block'; id: number }
  | { kind: 'box'; box: [number, number, number, number] }
  | { kind: 'circle'; lat: number; lon: number; radiusM: number }
  | { kind: 'segment'; lat: number; lon: number };

const NOW_S = Date.UTC(2026, 10, 23, 15, 0) / 1000;

/** Probes over the box [minLat, minLon, maxLat, maxLon]: a grid of boxes, circles and points. */
export function gridProbes(extent: [number, number, number, number], cells: number): InventoryProbe[] {
  const [minLat, minLon, maxLat, maxLon] = extent;
  const dLat = (maxLat - minLat) / cells,
    dLon = (maxLon - minLon) / cells;
  const out: InventoryProbe[] = [];
  for (let i = 0; i < cells; i++)
    for (let j = 0; j < cells; j++) {
      const lat = minLat + (i + 0.5) * dLat,
        lon = minLon + (j + 0.5) * dLon;
      out.push({ kind: 'box', box: [lat - dLat / 2, lon - dLon / 2, lat + dLat / 2, lon + dLon / 2] });
      out.push({ kind: 'circle', lat, lon, radiusM: 400 });
      out.push({ kind: 'segment', lat, lon });
    }
  return out;
}

/** The answer of each probe, by ids and values only (comparable across threads). */
export function answerProbes(inv: InventoryView, probes: readonly InventoryProbe[]): unknown[] {
  return probes.map((p) => {
    if (p.kind === 'lot') return inv.lotById.get(p.id) ?? null;
    if (p.kind === 'alias') return inv.lotByAlias.get(p.key)?.id ?? null;
    if (p.kind === 'block') return inv.blockById.get(p.id) ?? null;
    if (p.kind === 'box')
      return {
        lots: inv
          .lotsInBox(...p.box)
          .map((l) => l.id)
          .sort((a, b) => a - b),
        blocks: inv
          .blocksInBox(...p.box)
          .map((b) => b.blockID)
          .sort((a, b) => a - b),
      };
    if (p.kind === 'circle') {
      const params = { point: `${p.lat}|${p.lon}`, radius: String(p.radiusM), sort: 'distance', limit: '1000' };
      const lots = selectLots(inv, parseInventoryQuery('lots', params, NOW_S));
      const blocks = selectBlocks(inv, parseInventoryQuery('blocks', params, NOW_S));
      return {
        lots: lots.hits.map((h) => [h.rec.id, h.distanceM]),
        blocks: blocks.hits.map((h) => [h.rec.blockID, h.distanceM]),
      };
    }
    const hit = inv.segmentAt(p.lat, p.lon, 50);
    return hit ? [hit.block.blockID, hit.segment.segmentID, hit.distanceM] : null;
  });
}
