/**
 * A worker thread for `inventory-shared.test.ts`: reads the shared inventory base it is given with
 * its workerData (the same bytes as the test's thread, not a copy), merges the given uploads over
 * it and answers the test's queries, posting back each answer as JSON.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ParkingBaseReader, SharedInventory, type SharedParkingBase } from '../../src/parking/index.js';
import { answerProbes, type InventoryProbe } from './inventory-probes.js';
import type { BlockUpload } from '../../src/parking/inventory/block-upload.js';
import type { LotUpload } from '../../src/parking/inventory/lot-upload.js';

const data = workerData as {
  base: SharedParkingBase;
  uploads: { lots: LotUpload[]; blocks: BlockUpload[] };
  probes: InventoryProbe[];
};
const inv = new SharedInventory(new ParkingBaseReader(data.base, 'USD'), data.uploads);
parentPort!.postMessage({
  shared: data.base.blocks.coords.buffer instanceof SharedArrayBuffer,
  answers: JSON.stringify(answerProbes(inv, data.probes)),
});
