/**
 * The parking inventory's OSM-derived part, shared by the serving threads of a process: the main
 * thread reads the region's lots, blocks and the blocks' cross-street names once and writes them
 * into shared memory (`shareParkingBase`) before the threads start; each thread reads the records
 * a request needs from there and merges the uploads over them itself (`SharedInventory`).
 */
import type { Config } from '../../config/schema.js';
import { loadRegion } from '../../network/bundle.js';
import { shareParkingBase, type SharedParkingBase } from '../../parking/index.js';

/** The shared inventory base of the region in `regionDir`, or undefined when `config` serves no parking. */
export function prepareSharedParking(
  config: Config,
  regionDir: string,
  graphBytes: Uint8Array,
): SharedParkingBase | undefined {
  if (!config.server.services.includes('parking')) return undefined;
  // the region's parts are decoded here and let go once written to shared memory
  return shareParkingBase(loadRegion(regionDir, { graphBytes }));
}
