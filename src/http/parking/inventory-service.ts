/**
 * One parking inventory service per application context, shared by the inventory plugin (lots and
 * blocks queries, uploads) and the open-spot routes (park events feed segment occupancy), so the
 * in-memory inventory is built once.
 */
import type { AppContext } from '../../app/context.js';
import { InventoryService } from '../../parking/index.js';

const services = new WeakMap<AppContext, InventoryService>();

/** The inventory service of `ctx` (created on first use). */
export function inventoryServiceOf(ctx: AppContext): InventoryService {
  let s = services.get(ctx);
  if (!s) {
    s = new InventoryService(ctx.db, ctx.region);
    services.set(ctx, s);
  }
  return s;
}
