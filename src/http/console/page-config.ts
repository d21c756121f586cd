/**
 * `GET /console/config.json`: what the page needs before it can ask any API — the served region
 * (name, map version, bounds, time zone), the server's clock, and, when serving the demo to a
 * browser on this machine, the demo application's credentials to prefill the sign-in form.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { OSM_ATTRIBUTION } from './tiles-routes.js';

/** The body of `/console/config.json`. */
export interface ConsolePageConfig {
  region: {
    name: string;
    mapVersion: string;
    bounds: [number, number, number, number];
    timeZone: string;
    country: string;
  };
  /** the server's clock, ISO 8601 UTC (the page's default departure and entry times follow it) */
  now: string;
  services: string[];
  attribution: string;
  /** demo app credentials: only for the demo region, only to loopback clients */
  demoApp?: { appId: string; appKey: string };
}

/** True for requests from this machine (127.0.0.0/8, ::1, IPv4-mapped loopback). */
export function isLoopback(ip: string): boolean {
  return ip === '::1' || /^(::ffff:)?127\./.test(ip);
}

/**
 * The demo app's credentials as `serve` keeps them (`<dataDir>/demo-app.json`, see
 * `app/demo-app.ts`), or undefined when absent or unreadable.
 */
function readDemoApp(dataDir: string): { appId: string; appKey: string } | undefined {
  const file = join(dataDir, 'demo-app.json');
  if (!existsSync(file)) return undefined;
  try {
    const p = JSON.parse(readFileSync(file, 'utf8')) as { appId?: unknown; appKey?: unknown };
    return typeof p.appId === 'string' && typeof p.appKey === 'string'
      ? { appId: p.appId, appKey: p.appKey }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the page config for one request. */
export function pageConfig(ctx: AppContext, req: FastifyRequest): ConsolePageConfig {
  const m = ctx.region.meta;
  const out: ConsolePageConfig = {
    region: {
      name: m.name,
      mapVersion: m.mapVersion,
      bounds: m.bounds,
      timeZone: m.timeZone || 'UTC',
      country: m.country,
    },
    now: new Date(ctx.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    services: [...ctx.config.server.services],
    attribution: OSM_ATTRIBUTION,
  };
  if (m.name === 'demo' && isLoopback(req.ip)) {
    const demo = readDemoApp(ctx.config.store.dataDir);
    if (demo) out.demoApp = demo;
  }
  return out;
}
