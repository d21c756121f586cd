/**
 * What a request leaves in the log: method, request id, and the URL's path with only harmless
 * query parameters shown. Every other parameter value is written as `***` — an allowlist, so a
 * parameter nobody thought of (`?pwd=`, `?cardNumber=`, a client's own API key) never reaches the
 * log. Headers and bodies are never logged.
 */
import type { FastifyServerOptions } from 'fastify';

/**
 * Query parameters (lower-cased) whose values are logged: coordinates, times, paging, formats and
 * ids that identify no person and grant nothing. Tokens, keys, hashes, passwords, card data,
 * free text (WP_n descriptions, names) and anything unknown are not on it.
 */
const LOGGED_PARAMS = new Set([
  // routing
  'action',
  'format',
  'wp_heading',
  'departuretime',
  'arrivaltime',
  'maxalternates',
  'usetraffic',
  'routetype',
  'units',
  'routeoutputfields',
  'incidentoutputfields',
  'geometrytolerance',
  'isambiguousorigin',
  'criteria',
  'speedbucketid',
  'routeid',
  'collapsemaneuvers',
  'traveltimecount',
  'traveltimeinterval',
  // parking inventory, products, open spots
  'id',
  'alias',
  'box',
  'point',
  'polygon',
  'polyline',
  'geoid',
  'radius',
  'entry_time',
  'duration',
  'limit',
  'offset',
  'outputfields',
  'restrictions',
  'locale',
  'sort',
  'operator',
  'f_id',
  'lot',
  'entry_dt',
  'entry',
  'type',
  'clat',
  'clon',
  'dlat',
  'dlon',
  'bearing',
  'velocity',
  // analytics
  'startdate',
  'enddate',
  'intersectionoutputmode',
  'namespaces',
  'traveltimetype',
  // incidents admin; the application id of GET /v1/AppToken (its key and hash stay hidden)
  'all',
  'appid',
]);
/** Waypoints `WP_1` … `WP_10` (coordinates); their descriptions are free text and stay hidden. */
const LOGGED_PATTERN = /^wp_\d{1,2}$/;
/** Parameter names shown as they are; any other name (odd characters, very long) is itself hidden. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_.\-[\]]{0,63}$/;

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/**
 * The URL as logged: path, then each query parameter as `name=value` when its name is on the
 * allowlist, `name=***` otherwise (and `***=***` when the name itself looks like data).
 * @example redactUrl('/user/?email=a@b.c&pwd=x') // '/user/?email=***&pwd=***'
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1);
  if (query === '') return url.slice(0, q);
  const params = query.split('&').map((kv) => {
    const i = kv.indexOf('=');
    const rawName = i < 0 ? kv : kv.slice(0, i);
    const name = decode(rawName);
    if (!PLAIN_NAME.test(name)) return '***=***';
    const lower = name.toLowerCase();
    if (LOGGED_PARAMS.has(lower) || LOGGED_PATTERN.test(lower)) return kv;
    return `${name}=***`;
  });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** Pino options of the app's logger: the request as `{ method, url (redacted), id }`, nothing else of it. */
export function loggerOptions(
  level: string,
  stream?: { write(line: string): void },
): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    ...(stream ? { stream } : {}),
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        id: req.id,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
}
