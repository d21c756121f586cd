/**
 * The documented error shape of each API, as checks on an HTTP response: which API owns a path,
 * and whether an error response is in that API's shape (docs/errors.md and each service's docs).
 */

/** An injected response (what `app.inject` returns, reduced to what the checks read). */
export interface Res {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** The APIs, each with its own error body. */
export type Api =
  | 'platform'
  | 'auth'
  | 'routing'
  | 'incidents'
  | 'inventory'
  | 'reservations'
  | 'uss'
  | 'analytics'
  | 'probes'
  | 'admin'
  | 'tiles';

const OWNERS: Array<[RegExp, Api]> = [
  [/^\/v1\/admin\/(apps|signing-keys|probes|analytics)(\/|$)/, 'admin'],
  [/^\/v1\/admin\/parking\/load$/, 'admin'],
  [/^\/traffic\//i, 'routing'],
  [/^\/v1\/(incidents|speeds)(\/|$)/, 'incidents'],
  [/^\/(lots|blocks)(\/|$)/, 'inventory'],
  [/^\/v1\/admin\/parking\/(lots|blocks|occupancy)(\/|$)/, 'inventory'],
  [/^\/USS(\/|$)/, 'uss'],
  [/^\/(product|reservation|user)(\/|$)/, 'reservations'],
  [/^\/v1\/admin\/parking\//, 'reservations'],
  [/^\/v1\/(metrics|metadata|namespace|signals)\//, 'analytics'],
  [/^\/v1\/probes(\/|$)/, 'probes'],
  [/^\/v1\/apptoken$/i, 'auth'],
  [/^\/tiles\//, 'tiles'],
];

/** The API owning `path` (an OpenAPI path or a request path). */
export function apiOf(path: string): Api {
  return OWNERS.find(([re]) => re.test(path.split('?')[0]))?.[1] ?? 'platform';
}

function json(res: Res): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(res.body) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Why `res` (an error, status ≥ 400) is not in `api`'s error shape, or undefined when it is.
 * Also refuses framework codes (`FST_…`) and stack traces anywhere in the body.
 */
export function shapeProblem(api: Api, res: Res): string | undefined {
  if (/FST_[A-Z_]+/.test(res.body)) return `framework error code in body: ${res.body.slice(0, 200)}`;
  if (/\n\s+at .+:\d+:\d+/.test(res.body)) return 'stack trace in body';
  const ct = String(res.headers['content-type'] ?? '');
  // a path no API serves (e.g. an unknown .ashx-less handler): the platform's 404
  if (res.statusCode === 404 && /^\{"error":\{"statusId":404,"userMessage":"No such endpoint: /.test(res.body))
    return undefined;
  if (api === 'auth' && /xml/.test(ct)) {
    return /<AppTokenResponse><Error><StatusId>\d+<\/StatusId><UserMessage>[^<]+<\/UserMessage><\/Error><\/AppTokenResponse>/.test(
      res.body,
    )
      ? undefined
      : `AppToken XML error: ${res.body.slice(0, 200)}`;
  }
  if (api === 'routing') {
    if (/xml/.test(ct))
      return /<\w+[^>]* statusId="[1-9]\d*"/.test(res.body) && /statusText="[^"]+"/.test(res.body)
        ? undefined
        : `routing XML error without statusId/statusText: ${res.body.slice(0, 200)}`;
    const b = json(res);
    return b && typeof b.statusId === 'number' && b.statusId > 0 && isStr(b.statusText) && isStr(b.docType)
      ? undefined
      : `routing JSON error not an envelope: ${res.body.slice(0, 200)}`;
  }
  if (api === 'reservations' && /xml/.test(ct)) {
    return /<Error>[\s\S]*<ErrorCode>-?\d+<\/ErrorCode>[\s\S]*<ErrorDescription>/.test(res.body)
      ? undefined
      : `reservations XML error: ${res.body.slice(0, 200)}`;
  }
  const b = json(res);
  if (!b) return `not a JSON object (${ct}): ${res.body.slice(0, 200)}`;
  const e = b.error;
  switch (api) {
    case 'platform':
    case 'auth':
      return isObj(e) && typeof e.statusId === 'number' && isStr(e.userMessage) && Object.keys(b).length === 1
        ? undefined
        : `not { error: { statusId, userMessage } }: ${res.body.slice(0, 200)}`;
    case 'incidents':
      return isObj(e) && isStr(e.code) && isStr(e.message)
        ? undefined
        : `not { error: { code, message } }: ${res.body.slice(0, 200)}`;
    case 'tiles':
      // the platform's shape, with a TILES_ code where the tile routes raise their own errors
      return isObj(e) &&
        e.statusId === res.statusCode &&
        isStr(e.userMessage) &&
        (e.code === undefined || (isStr(e.code) && e.code.startsWith('TILES_')))
        ? undefined
        : `not { error: { code?, statusId, userMessage } }: ${res.body.slice(0, 200)}`;
    case 'admin':
      return isObj(e) &&
        isStr(e.code) &&
        e.code.startsWith('ADMIN_') &&
        e.statusId === res.statusCode &&
        isStr(e.userMessage)
        ? undefined
        : `not { error: { code: ADMIN_…, statusId, userMessage } }: ${res.body.slice(0, 200)}`;
    case 'probes':
      return isObj(e) &&
        isStr(e.code) &&
        e.code.startsWith('PROBES_') &&
        e.statusId === res.statusCode &&
        isStr(e.userMessage)
        ? undefined
        : `not { error: { code, statusId, userMessage } }: ${res.body.slice(0, 200)}`;
    case 'inventory':
      return b.status === res.statusCode &&
        isStr(b.code) &&
        (b.code as string).startsWith('PARKING_') &&
        isStr(b.message) &&
        isStr(b.copyright) &&
        isStr(b.responseId)
        ? undefined
        : `not the parking envelope error: ${res.body.slice(0, 200)}`;
    case 'reservations':
      return typeof b.ErrorCode === 'number' && isStr(b.ErrorDescription) && isStr(b.code)
        ? undefined
        : `not { ErrorCode, ErrorDescription, code }: ${res.body.slice(0, 200)}`;
    case 'uss':
      return b.status === '0' && isStr(b.message) && isStr(b.code) && isStr(b.responseId)
        ? undefined
        : `not the open-spot error envelope: ${res.body.slice(0, 200)}`;
    case 'analytics':
      return b.status === res.statusCode && isStr(b.timestamp) && isStr(b.error) && isStr(b.message) && isStr(b.path)
        ? undefined
        : `not { timestamp, status, error, message, path }: ${res.body.slice(0, 200)}`;
    default:
      return `unknown api ${api as string}`;
  }
}
