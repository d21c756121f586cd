/**
 * `GET /tiles/{z}/{x}/{y}.pbf` (basemap, public map data like the OSM extract it comes from),
 * `GET /tiles/live/{z}/{x}/{y}.pbf` (live traffic from probes: app token required, as
 * `Authorization: Bearer` or `access_token`) and `GET /tiles/tiles.json` (TileJSON 3.0).
 * Tiles are gzip-encoded when the client accepts it; an empty tile is 204.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError } from '../../auth/auth-service.js';
import { TILE_MAX_ZOOM, validTileCoords, type EncodedTile } from '../../tiles/index.js';
import { bearerToken, queryParam } from '../tokens.js';
import { sendTilesError } from './errors.js';

/** Attribution every map of the region must show (ODbL). */
export const OSM_ATTRIBUTION = '© OpenStreetMap contributors';

type TileParams = { z: string; x: string; y: string };

function parseCoords(p: TileParams): [number, number, number] | null {
  if (!/^\d{1,2}$/.test(p.z) || !/^\d{1,8}$/.test(p.x) || !/^\d{1,8}\.pbf$/.test(p.y)) return null;
  const z = Number(p.z),
    x = Number(p.x),
    y = Number(p.y.slice(0, -4));
  return validTileCoords(z, x, y) ? [z, x, y] : null;
}

function sendTile(
  req: FastifyRequest,
  reply: FastifyReply,
  tile: EncodedTile | null,
  cacheControl: string,
): FastifyReply {
  reply.header('cache-control', cacheControl).header('vary', 'accept-encoding');
  if (!tile) return reply.code(204).send();
  reply.type('application/vnd.mapbox-vector-tile');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')))
    return reply.header('content-encoding', 'gzip').send(tile.gzip);
  return reply.send(Buffer.from(tile.pbf.buffer, tile.pbf.byteOffset, tile.pbf.byteLength));
}

const TILE_SCHEMA = {
  params: {
    type: 'object',
    properties: {
      z: { type: 'string' },
      x: { type: 'string' },
      y: { type: 'string', description: 'tile row followed by .pbf' },
    },
  },
};

/** Registers the tile routes. */
export function registerTileRoutes(app: FastifyInstance, ctx: AppContext): void {
  const tiles = app.services.tiles;
  const etag = `"${ctx.region.meta.mapVersion}"`;

  app.get<{ Params: TileParams }>(
    '/tiles/:z/:x/:y',
    {
      schema: {
        tags: ['map'],
        summary: 'Basemap vector tile (MVT) of the served region: roads, ferries, water, lots',
        ...TILE_SCHEMA,
      },
    },
    async (req, reply) => {
      const c = parseCoords(req.params);
      if (!c)
        return sendTilesError(
          reply,
          'TILES_BAD_COORDINATES',
          'tile coordinates must be /tiles/{z}/{x}/{y}.pbf with integers 0 ≤ x, y < 2^z and z ≤ 24',
        );
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      reply.header('etag', etag);
      return sendTile(req, reply, tiles.basemapTile(c[0], c[1], c[2]), 'public, max-age=3600');
    },
  );

  app.get<{ Params: TileParams }>(
    '/tiles/live/:z/:x/:y',
    {
      schema: {
        tags: ['map'],
        summary: 'Live-traffic vector tile: edges with fresh probe speeds (app token required)',
        security: [{ bearer: [] }],
        ...TILE_SCHEMA,
      },
    },
    async (req, reply) => {
      if (await refusedWithoutToken(req, reply, ctx)) return reply;
      const c = parseCoords(req.params);
      if (!c)
        return sendTilesError(
          reply,
          'TILES_BAD_COORDINATES',
          'tile coordinates must be /tiles/live/{z}/{x}/{y}.pbf with integers 0 ≤ x, y < 2^z and z ≤ 24',
        );
      return sendTile(req, reply, tiles.liveTile(c[0], c[1], c[2], ctx.now() / 1000), 'private, no-store');
    },
  );

  app.get(
    '/tiles/tiles.json',
    { schema: { tags: ['map'], summary: 'TileJSON 3.0 of the basemap tiles' } },
    async (req) => tileJson(ctx, `${req.protocol}://${req.headers.host ?? 'localhost'}`),
  );
}

/**
 * Answers a live-tile request without a valid app token (Bearer or `access_token`) with its error
 * and says true; false when the token is valid. (A boolean, not the reply: an awaited reply is a
 * thenable that resolves when sent, not to the reply.)
 */
async function refusedWithoutToken(req: FastifyRequest, reply: FastifyReply, ctx: AppContext): Promise<boolean> {
  const token = bearerToken(req) ?? queryParam(req, 'access_token');
  if (!token) {
    sendTilesError(
      reply,
      'TILES_AUTH_MISSING',
      'live tiles need an app token: send Authorization: Bearer <token> or access_token',
    );
    return true;
  }
  try {
    await ctx.auth.verifyAppToken(token);
    return false;
  } catch (err) {
    if (err instanceof AuthError && err.code === 'AUTH_TOKEN_EXPIRED') {
      sendTilesError(reply, 'TILES_AUTH_EXPIRED', 'the app token has expired; request a new one from /v1/AppToken');
      return true;
    }
    if (err instanceof AuthError) {
      sendTilesError(reply, 'TILES_AUTH_INVALID', 'invalid app token');
      return true;
    }
    throw err;
  }
}

/** The layers of the basemap tiles and their fields (TileJSON `vector_layers`). */
const VECTOR_LAYERS = [
  { id: 'water', fields: { name: 'String' } },
  { id: 'waterways', fields: { name: 'String', kind: 'String' } },
  {
    id: 'roads',
    fields: {
      class: 'String',
      name: 'String',
      ref: 'String',
      oneway: 'Number',
      structure: 'String',
      toll: 'Number',
      link: 'Number',
    },
  },
  { id: 'ferries', fields: { class: 'String', name: 'String' } },
  { id: 'lots', fields: { id: 'Number', name: 'String', capacity: 'Number', parking: 'String' } },
  { id: 'lot_labels', fields: { id: 'Number', name: 'String', capacity: 'Number', parking: 'String' } },
];

/** TileJSON 3.0 of the served region's basemap tiles, their URLs under `origin`. */
function tileJson(ctx: AppContext, origin: string): Record<string, unknown> {
  const [minLat, minLon, maxLat, maxLon] = ctx.region.meta.bounds;
  return {
    tilejson: '3.0.0',
    name: ctx.region.meta.name,
    version: ctx.region.meta.mapVersion,
    attribution: OSM_ATTRIBUTION,
    scheme: 'xyz',
    tiles: [`${origin}/tiles/{z}/{x}/{y}.pbf`],
    minzoom: 0,
    maxzoom: TILE_MAX_ZOOM,
    bounds: [minLon, minLat, maxLon, maxLat],
    center: [(minLon + maxLon) / 2, (minLat + maxLat) / 2, 14],
    vector_layers: VECTOR_LAYERS,
  };
}
