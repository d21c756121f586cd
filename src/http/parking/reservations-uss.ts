/**
 * Open spots: `GET /USS` (open spots ahead of a vehicle) and `POST /USS` (park events).
 * POST also feeds the events into curb-segment occupancy (`/blocks` probability).
 * Both need an app token (`accesstoken` query or `Authorization: Bearer`). Errors in the
 * open-spot envelope: 400 bad request, 401 invalid or expired token, 404 no open spot.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.js';
import {
  findOpenSpots,
  invalidParam,
  isoUtc,
  missingParam,
  parseParkEvent,
  ReservationsError,
  storeParkEvents,
} from '../../parking/reservations/index.js';
import { envelope } from '../envelope.js';
import { servedService } from '../services.js';
import { appCaller, fieldsOf, rejectUnknown, stringField } from './reservations-support.js';
import { documentedStrings } from '../openapi.js';

/** Version reported by the open-spot envelope (reference: 5.2). */
export const USS_VERSION = '5.2';

const GET_PARAMS = ['Type', 'accesstoken', 'Clat', 'Clon', 'Dlat', 'Dlon', 'Bearing', 'Velocity'] as const;

/**
 * Parses a coordinate of `GET /USS`: an integer is degrees × 10⁷ (`574322149` → 57.4322149), a
 * value with a decimal point is degrees.
 */
export function parseUssCoordinate(text: string | undefined, name: string, limit: number): number | undefined {
  if (text === undefined) return undefined;
  let deg: number;
  if (/^-?\d+$/.test(text)) deg = Number(text) / 1e7;
  else if (/^-?\d+\.\d+$/.test(text)) deg = Number(text);
  else throw invalidParam(name, 'must be an integer (degrees × 10⁷) or decimal degrees');
  if (Math.abs(deg) > limit) throw invalidParam(name, `must be within ±${limit} degrees`);
  return deg;
}

function lookup(fields: Record<string, unknown>, name: string): string | undefined {
  const key = Object.keys(fields).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : stringField(fields, key);
}

/** The vehicle's position, destination, heading and speed of a GET /USS request. */
function readUssPosition(fields: Record<string, unknown>) {
  const type = lookup(fields, 'Type');
  if (type !== undefined && type.toLowerCase() !== 'parkingspots') throw invalidParam('Type', 'must be ParkingSpots');
  const lat = parseUssCoordinate(lookup(fields, 'Clat'), 'Clat', 90);
  const lon = parseUssCoordinate(lookup(fields, 'Clon'), 'Clon', 180);
  if (lat === undefined) throw missingParam('Clat');
  if (lon === undefined) throw missingParam('Clon');
  const destLat = parseUssCoordinate(lookup(fields, 'Dlat'), 'Dlat', 90);
  const destLon = parseUssCoordinate(lookup(fields, 'Dlon'), 'Dlon', 180);
  if ((destLat === undefined) !== (destLon === undefined)) throw missingParam(destLat === undefined ? 'Dlat' : 'Dlon');
  const bearingText = lookup(fields, 'Bearing');
  const bearing = bearingText === undefined ? null : Number(bearingText);
  if (bearing !== null && !(/^\d{1,3}(\.\d+)?$/.test(bearingText as string) && bearing < 360))
    throw invalidParam('Bearing', 'must be degrees 0–359');
  const velocityText = lookup(fields, 'Velocity');
  const velocity = velocityText === undefined ? 0 : Number(velocityText);
  if (velocityText !== undefined && !(/^\d{1,3}(\.\d+)?$/.test(velocityText) && velocity <= 400))
    throw invalidParam('Velocity', 'must be a speed in km/h between 0 and 400');
  return {
    lat,
    lon,
    destLat: destLat ?? lat,
    destLon: destLon ?? lon,
    bearingDeg: bearing,
    velocityKph: velocity,
  };
}

/** Registers the open-spot routes on the reservations plugin. */
export function registerUssRoutes(app: FastifyInstance, ctx: AppContext): void {
  const ussQuery = documentedStrings('GET /USS', GET_PARAMS, {
    Type: 'ParkingSpots',
    accesstoken: 'app token (or Authorization: Bearer)',
    Clat: 'current latitude, degrees × 10^7 (or decimal degrees)',
    Clon: 'current longitude, degrees × 10^7 (or decimal degrees)',
    Dlat: 'destination latitude, degrees × 10^7',
    Dlon: 'destination longitude, degrees × 10^7',
    Bearing: 'heading, degrees 0–359',
    Velocity: 'speed, km/h',
  });
  const APP = [{ bearer: [] as string[] }];
  app.get(
    '/USS',
    {
      config: { family: 'uss' },
      schema: {
        tags: ['parking'],
        summary: 'Open parking spots ahead of a vehicle',
        querystring: ussQuery,
        security: APP,
      },
    },
    async (req, reply) => {
      const fields = fieldsOf(req);
      rejectUnknown(fields, GET_PARAMS);
      await appCaller(ctx, req, true);
      const spots = await findOpenSpots(ctx.db, ctx.region.blocks, { ...readUssPosition(fields), nowMs: ctx.now() });
      if (spots.length === 0)
        throw new ReservationsError('PARKING_OPEN_SPOT_NOT_FOUND', 'no open parking spot near this position right now');
      return reply.send({
        ...envelope(ctx.now()),
        versionNumber: USS_VERSION,
        status: '1',
        result: {
          OpenParkingSpot: spots.map((s) => ({
            Location: { longitude: s.lon.toFixed(5), latitude: s.lat.toFixed(5) },
            OpenAt: isoUtc(s.openedMs),
          })),
        },
      });
    },
  );

  app.post(
    '/USS',
    {
      config: { family: 'uss' },
      schema: {
        tags: ['parking'],
        summary: 'Send park events (ParkEvent in the form field data, or a JSON body)',
        querystring: documentedStrings('POST /USS', ['accesstoken'], {
          accesstoken: 'app token (or Authorization: Bearer)',
        }),
        security: APP,
      },
    },
    async (req, reply) => {
      await appCaller(ctx, req, true);
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body)) throw invalidParam('data', 'must be a ParkEvent');
      const parsed = parseParkEvent(body);
      // the events are stored and turned into curb-segment occupancy observations in one transaction
      const points = parsed.rows.map((r) => ({
        lat: r.lat,
        lon: r.lon,
        parkedOut: r.parkedOut,
        observedAtS: Math.floor(r.observedMs / 1000),
      }));
      await servedService(app.services, 'parkingInventory').recordParkEvents(points, (tx) =>
        storeParkEvents(tx, parsed.rows, ctx.now()),
      );
      return reply.send(parsed.event);
    },
  );
}
