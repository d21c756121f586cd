/**
 * Public surface of the parking inventory side (lots, blocks, rate engine, occupancy) for `http/`,
 * `cli/` and `bench/`. Products, reservations, users and open spots live in `./reservations/`.
 */
export { ParkingError, PARKING_ERRORS, type ParkingErrorCode, type ParkingErrorKind } from './errors.js';
export { migrations } from './migrations.js';
export { InventoryService, type InventoryServiceOptions } from './inventory/service.js';
export { Inventory, buildInventory, type InventoryView } from './inventory/inventory.js';
export { shareParkingBase, ParkingBaseReader, type SharedParkingBase } from './inventory/shared-base.js';
export { SharedInventory } from './inventory/shared-inventory.js';
export {
  parseInventoryQuery,
  inventoryParameters,
  type InventoryQuery,
  type InventoryOperation,
} from './inventory/params.js';
export type { LocationQuery } from './inventory/location-params.js';
export {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_RADIUS_M,
  DEFAULT_RADIUS_M,
  CORRIDOR_HALF_WIDTH_M,
} from './inventory/inventory-limits.js';
export { selectLots, selectBlocks, type Hit, type Page } from './inventory/select.js';
export {
  storeUploads,
  readUploads,
  deleteLotUpload,
  inventoryVersion,
  parseUploadDocument,
  type UploadResult,
} from './inventory/store.js';
export { validateLotUpload, idFromAlias, type LotUpload } from './inventory/lot-upload.js';
export { validateBlockUpload, type BlockUpload } from './inventory/block-upload.js';
export { geodesicDistanceM } from '../geo/index.js';
export type { LotRecord, BlockRecord, SegmentRecord } from './inventory/types.js';
export { calculateRates, isOpenAt, type CalculatedRate } from './rates/calculated-rates.js';
export { quoteStay, type StayQuote, type QuoteOptions } from './rates/quote.js';
export {
  parseRateRules,
  buildFrames,
  type StructuredRateInput,
  type RateRule,
  type RateFrame,
} from './rates/rate-rule.js';
export { renderRateCard } from './rates/rate-card.js';
export { holidayCalendar, usFederalHolidays } from './rates/holidays.js';
export {
  estimateOccupancy,
  expectedPct,
  freeSpaceProbability,
  bucketOf,
  type OccupancyEstimate,
  type OccupancyObservation,
} from './occupancy/model.js';
export { recordOccupancyObservations, readObservations, type ObservationInput } from './occupancy/store.js';

/** Lot id the importer gives an OSM element (node id; way id ×10+1; relation id ×10+2). */
export function osmLotId(osmType: 'node' | 'way' | 'relation', osmId: number): number {
  return osmType === 'node' ? osmId : osmType === 'way' ? osmId * 10 + 1 : osmId * 10 + 2;
}
