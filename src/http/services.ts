/**
 * The services the HTTP plugins share, built once per app by `buildApp` (the HTTP edge's
 * composition root) from the AppContext and decorated on the root instance as `app.services`:
 * every plugin, and whoever holds the app (a serving thread flushing its routes), reads the same
 * instances. A service whose API is not served is null.
 */
import type { AppContext } from '../app/context.js';
import { RoutingService, type RoutingServiceConfig } from '../routing/index.js';
import { InventoryService } from '../parking/index.js';
import { MapTiles } from '../tiles/index.js';

/** The shared services of one app. */
export interface AppServices {
  /** routing (landmarks and the other preprocessing run when it is built), or null */
  routing: RoutingService | null;
  /** the parking inventory (lots and blocks queries, uploads, park events), or null */
  parkingInventory: InventoryService | null;
  /** basemap and live-traffic tiles of the region */
  tiles: MapTiles;
}

/** Builds the services of the APIs `ctx.config.server.services` serves. */
export function buildServices(ctx: AppContext): AppServices {
  const served = new Set(ctx.config.server.services);
  return {
    routing: served.has('routing') ? buildRoutingService(ctx) : null,
    parkingInventory: served.has('parking')
      ? new InventoryService(ctx.db, ctx.region, { shared: ctx.parkingBase })
      : null,
    tiles: new MapTiles(ctx.region, ctx.speeds),
  };
}

/** The routing service of a context. Config slice: `ctx.config.routing` (every key optional). */
export function buildRoutingService(ctx: AppContext): RoutingService {
  const cfg: Partial<RoutingServiceConfig> = ctx.config.routing ?? {};
  const meta = ctx.region.meta;
  return new RoutingService(
    ctx.region.graph,
    ctx.speeds,
    meta.timeZone || 'UTC',
    meta.mapVersion || 'unknown',
    ctx.db,
    ctx.now,
    cfg,
  );
}

/** The service `name` of `services`, or an Error naming the API that is not served. */
export function servedService<K extends keyof AppServices>(
  services: AppServices,
  name: K,
): NonNullable<AppServices[K]> {
  const s = services[name];
  if (s === null) throw new Error(`the ${name} service is not built: its API is not in server.services`);
  return s as NonNullable<AppServices[K]>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the services every plugin shares (`http/services.ts`) */
    services: AppServices;
  }
}
