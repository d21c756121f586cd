/**
 * The map console and the map tiles:
 * - `GET /` and `GET /console`: the single-page console (built into `dist/console` by
 *   `npm run build`; its scripts, styles, MapLibre and fonts under `/console/…`, pre-compressed);
 * - `GET /console/config.json`: region, server clock, demo credentials for local browsers;
 * - `/tiles/…`: basemap and live-traffic vector tiles (see tiles-routes.ts).
 * The console is a client like any other: it signs in with `/v1/AppToken` and calls the public APIs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { AppContext } from '../../app/context.js';
import { consoleAssetsDir } from './assets.js';
import { pageConfig } from './page-config.js';
import { registerTileRoutes } from './tiles-routes.js';

const NOT_BUILT = 'The console is not built: run `npm run build` (or `npm install`) in the streetwise directory.';

const consolePlugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  registerTileRoutes(app, ctx);
  app.get('/console/config.json', { schema: { hide: true } }, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    return pageConfig(ctx, req);
  });

  const root = consoleAssetsDir();
  const built = existsSync(join(root, 'index.html'));
  if (built) {
    await app.register(fastifyStatic, {
      root,
      prefix: '/console/',
      index: false,
      preCompressed: true,
      // file names carry no hashes: revalidate (ETag / Last-Modified) instead of caching blindly
      cacheControl: true,
      maxAge: 0,
    });
  }
  const page = async (_req: unknown, reply: import('fastify').FastifyReply) => {
    if (!built) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
    return reply.header('cache-control', 'no-cache').sendFile('index.html', root);
  };
  // browsers ask for it on every page of the server; there is none
  app.get('/favicon.ico', { schema: { hide: true } }, async (_req, reply) =>
    reply.code(204).header('cache-control', 'public, max-age=86400').send(),
  );
  app.get('/', { schema: { hide: true } }, page);
  app.get('/console', { schema: { hide: true } }, page);
};

export default consolePlugin;
