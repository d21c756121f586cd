/**
 * Responses of every operation in the OpenAPI document: the success status the handler sends (a
 * route's `config.successStatus`, 200 when absent) and every error status the API owning the path
 * can answer, taken from the same catalogs the error handlers use, each with that API's error shape.
 */
import { ANALYTICS_ERRORS } from '../analytics/errors.js';
import { PARKING_ERRORS } from '../parking/errors.js';
import { RESERVATIONS_ERRORS } from '../parking/reservations/errors.js';
import { RoutingStatus } from '../routing/errors.js';
import { ADMIN_ERROR_STATUS } from './admin/errors.js';
import { STATUS_OF_KIND as ANALYTICS_STATUS_OF_KIND } from './analytics/errors.js';
import { TILES_ERROR_STATUS } from './console/errors.js';
import { PARKING_STATUS_OF_KIND } from './parking/inventory-errors.js';
import { STATUS_OF_KIND as RESERVATION_STATUS_OF_KIND } from './parking/reservations-errors.js';
import { PROBES_ERROR_STATUS } from './probes/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** HTTP status of the route's success answer, for the OpenAPI document (default 200) */
    successStatus?: number;
  }
}

/** The error statuses and body shape of one API family. */
interface ErrorFamily {
  statuses: number[];
  shape: string;
}

const sorted = (xs: Iterable<number>) => [...new Set(xs)].sort((a, b) => a - b);

/** Error families by path prefix, most specific first. */
function families(): Array<[RegExp, ErrorFamily]> {
  const routing = sorted(
    Object.values(RoutingStatus)
      .map((s) => s.http)
      .filter((h) => h >= 400),
  );
  const parking = sorted([
    ...Object.values(PARKING_ERRORS).map((k) => PARKING_STATUS_OF_KIND[k]),
    ...Object.values(RESERVATIONS_ERRORS).map((k) => RESERVATION_STATUS_OF_KIND[k]),
    500,
  ]);
  return [
    [
      /^\/traffic\//,
      {
        statuses: routing,
        shape: 'the routing envelope with statusId, statusText and statusDetail (XML or JSON, as Format asks)',
      },
    ],
    [
      /^\/(lots|blocks)|^\/v1\/admin\/parking\/(lots|blocks|occupancy)/,
      {
        statuses: sorted([...Object.values(PARKING_ERRORS).map((k) => PARKING_STATUS_OF_KIND[k]), 500]),
        shape: 'the parking envelope with status, code, message and parameter',
      },
    ],
    [
      /^\/(product|reservation|user|USS)\b|^\/v1\/admin\/parking\//,
      {
        statuses: parking,
        shape: '{ ErrorCode, ErrorDescription, code, parameter? } (open spots: the open-spot envelope)',
      },
    ],
    [
      /^\/v1\/(metrics|metadata|namespace)\b/,
      {
        statuses: sorted([...Object.values(ANALYTICS_ERRORS).map((e) => ANALYTICS_STATUS_OF_KIND[e.kind]), 401, 500]),
        shape: '{ timestamp, status, error, message, code, path }',
      },
    ],
    [
      /^\/v1\/probes\b/,
      { statuses: sorted(Object.values(PROBES_ERROR_STATUS)), shape: '{ error: { code, statusId, userMessage } }' },
    ],
    [
      /^\/v1\/admin\b/,
      { statuses: sorted(Object.values(ADMIN_ERROR_STATUS)), shape: '{ error: { code, statusId, userMessage } }' },
    ],
    [/^\/v1\/(incidents|speeds)\b/, { statuses: [400, 401, 403, 404, 500], shape: '{ error: { code, message } }' }],
    [
      /^\/tiles\//,
      { statuses: sorted(Object.values(TILES_ERROR_STATUS)), shape: '{ error: { code, statusId, userMessage } }' },
    ],
    [/^\/v1\/AppToken\b/, { statuses: [400, 403], shape: '{ error: { statusId, userMessage } } (XML on request)' }],
  ];
}

let FAMILIES: Array<[RegExp, ErrorFamily]> | undefined;

/** The error family of `url`, or undefined for paths without one (health, metrics, console). */
export function errorFamilyOf(url: string): ErrorFamily | undefined {
  FAMILIES ??= families();
  return FAMILIES.find(([re]) => re.test(url))?.[1];
}

interface TransformInput {
  schema?: Record<string, unknown>;
  url: string;
  route: { config?: { successStatus?: number } };
}

/**
 * `@fastify/swagger` transform: adds the success status and the family's error statuses to the
 * route's documented responses (statuses a route documents itself are kept).
 */
export function documentResponses({ schema, url, route }: TransformInput): {
  schema?: Record<string, unknown>;
  url: string;
} {
  if (schema?.hide) return { schema, url };
  const response: Record<string, unknown> = { ...((schema?.response as Record<string, unknown>) ?? {}) };
  if (!Object.keys(response).some((s) => s.startsWith('2'))) {
    const success = route.config?.successStatus ?? 200;
    response[String(success)] = { description: success === 201 ? 'Created: the answer' : 'OK' };
  }
  const family = errorFamilyOf(url);
  for (const status of family?.statuses ?? []) {
    if (response[String(status)] === undefined)
      response[String(status)] = { description: `error: ${family?.shape}`, type: 'object' };
  }
  return { schema: { ...(schema ?? {}), response }, url };
}
