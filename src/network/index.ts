/** The road network: graph contract, import pipeline, bundle I/O, snapping (import stage 2). */
export * from './graph.js';
export * from './region.js';
export { buildNetwork, markIntersections, distinctNeighbourCount } from './build-network.js';
export type { BuiltNetwork, BuildNetworkOptions } from './build-network.js';
export { stronglyConnectedComponents, markLargestScc } from './scc.js';
export { buildIntersections, turnTypeOf, THROUGH_MAX_DEG, UTURN_MIN_DEG } from './intersections.js';
export { buildBlocks, estimateSpaces, stableId, SPACING_M } from './blocks.js';
export type { BlockInput } from './blocks.js';
export { buildLots } from './lots.js';
export { buildWater, isWaterArea, isWaterLine } from './water.js';
export type { RegionWater, WaterArea, WaterLine, WaterRing } from './water.js';
export { locate, locateCandidates, locatorOf, shareLocator } from './locate.js';
export { SegmentIndex } from './segment-index.js';
export type { Candidate, Snap, LocateOptions, LocatorParts } from './segment-index.js';
export { EdgeOffsets } from './edge-offsets.js';
export {
  encodeGraph,
  decodeGraph,
  writeRegion,
  loadRegion,
  readGraphShared,
  regionExists,
  regionIsCurrent,
  GRAPH_FIELDS,
  GRAPH_MAGIC,
  GRAPH_FORMAT_VERSION,
  REGION_FORMAT_VERSION,
} from './bundle.js';
export { importRegion, buildRegion, summarize } from './import-region.js';
export type { ImportStage, ImportProgress, ImportSummary, BuildRegionOptions } from './import-region.js';
