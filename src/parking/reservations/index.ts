/**
 * Products, reservations, payments, users and open spots of the parking service. `http/` imports
 * only this file.
 */
export * from './errors.js';
export { migrations } from './migrations.js';
export * from './products/product.js';
export * from './products/product-store.js';
export * from './products/product-query.js';
export * from './products/pricing.js';
export * from './products/legacy-chk.js';
export { parseEntryIso, parseEntryLocal, isoUtc } from './products/clock.js';
export * from './payments/processor.js';
export * from './payments/test-processor.js';
export * from './reservations/state-machine.js';
export * from './reservations/reservation-model.js';
export * from './reservations/create-reservation.js';
export * from './reservations/reservation-service.js';
export * from './reservations/held-spaces.js';
export * from './users/user-service.js';
export * from './open-spots/park-events.js';
export * from './open-spots/open-spots.js';
export { loadParkingFile } from './load-file.js';
