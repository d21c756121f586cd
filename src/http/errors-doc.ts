/**
 * Renders `docs/errors.md` from the error catalogs of every API, with the HTTP status each API's
 * error handler gives every code. A test keeps the committed page equal to this output
 * (`REGEN=1 npx vitest run test/platform/errors-doc.test.ts` rewrites it).
 */
import { RoutingStatus } from '../routing/errors.js';
import { PARKING_ERRORS } from '../parking/errors.js';
import { RESERVATIONS_ERRORS } from '../parking/reservations/errors.js';
import { ANALYTICS_ERRORS } from '../analytics/errors.js';
import { PARKING_STATUS_OF_KIND } from './parking/inventory-errors.js';
import { STATUS_OF_KIND as RESERVATION_STATUS_OF_KIND } from './parking/reservations-errors.js';
import { STATUS_OF_KIND as ANALYTICS_STATUS_OF_KIND } from './analytics/errors.js';
import { PROBES_ERROR_STATUS } from './probes/errors.js';
import { ADMIN_ERROR_STATUS } from './admin/errors.js';
import { TILES_ERROR_STATUS } from './console/errors.js';

/** The markdown page listing every error code of every API. */
export function renderErrorsDoc(): string {
  const out: string[] = [
    '# Errors',
    '',
    "Every API answers failures in its own shape (see each service's docs); this page lists every code",
    'each can raise and its HTTP status. Generated from the catalogs in the code (`src/http/errors-doc.ts`);',
    'a test fails when this page and the code disagree.',
    '',
    'Problems found before a handler runs are answered in the shape of the API that owns the path, with',
    "a message naming what is wrong and never the framework's own codes: unparsable JSON, an unsupported",
    '`Content-Type`, a body over the size limit, a path that does not decode, a path segment over',
    '100 characters, a NUL character anywhere. Routing answers them as 1009, parking as',
    '`PARKING_PARAM_INVALID`, probes as `PROBES_BAD_REQUEST`, analytics without a `code`. An empty body',
    'with `Content-Type: application/json` is no body. A path no API serves answers 404',
    '`{ "error": { "statusId": 404, "userMessage" } }`.',
    '',
    '## Accounts (`/v1/AppToken`)',
    '',
    'Body `{ "error": { "statusId", "userMessage" } }`.',
    '',
    '| statusId | HTTP | meaning |',
    '|---|---|---|',
    '| 41 | 400 | a parameter (`appId`, `hashToken`) is missing |',
    '| 26 | 403 | User Authentication Failed: unknown appId or wrong hashToken (one message), or a disabled application (named only with the right hashToken) |',
    '',
    '## Routing (`/traffic/*.ashx`)',
    '',
    'The routing envelope with `statusId` and `statusText` (text ending in "for", "in" or ":" is followed by the parameter name), in XML or JSON.',
    '',
    '| name | statusId | statusText | HTTP |',
    '|---|---|---|---|',
  ];
  for (const [name, s] of Object.entries(RoutingStatus))
    out.push(`| ${name} | ${s.statusId} | ${s.text} | ${s.http} |`);
  out.push(
    '',
    '## Parking inventory (`/lots`, `/blocks`, `/blocks/v3`, parking admin)',
    '',
    'Body: the parking envelope with `status`, `code`, `message`, `parameter`.',
    '',
    '| code | kind | HTTP |',
    '|---|---|---|',
  );
  for (const [code, kind] of Object.entries(PARKING_ERRORS))
    out.push(`| ${code} | ${kind} | ${PARKING_STATUS_OF_KIND[kind]} |`);
  out.push(
    '',
    '## Parking products, reservations, users, open spots (`/product/`, `/reservation/`, `/user/`, `/USS`)',
    '',
    'Body: `ErrorCode` / `ErrorDescription` (users) or the parking error body; see docs/reservations.md.',
    '',
    '| code | kind | HTTP |',
    '|---|---|---|',
  );
  for (const [code, kind] of Object.entries(RESERVATIONS_ERRORS))
    out.push(`| ${code} | ${kind} | ${RESERVATION_STATUS_OF_KIND[kind]} |`);
  out.push(
    '',
    '## Intersection analytics (`/v1/metrics/…`, `/v1/metadata/…`, `/v1/namespace/…`)',
    '',
    'Body `{ timestamp, status, error, message, code, path }`; missing, invalid or expired tokens give 401.',
    '',
    '| code | kind | HTTP |',
    '|---|---|---|',
  );
  for (const [code, v] of Object.entries(ANALYTICS_ERRORS))
    out.push(`| ${code} | ${v.kind} | ${ANALYTICS_STATUS_OF_KIND[v.kind]} |`);
  out.push(
    '',
    '## Probe ingestion (`POST /v1/probes`)',
    '',
    'Body `{ "error": { code, statusId, userMessage } }`.',
    '',
    '| code | HTTP |',
    '|---|---|',
  );
  for (const [code, http] of Object.entries(PROBES_ERROR_STATUS)) out.push(`| ${code} | ${http} |`);
  out.push(
    '',
    '## Operator admin API (`/v1/admin/apps…`, `/v1/admin/signing-keys`, `/v1/admin/parking/load`, `/v1/admin/probes/process`, `/v1/admin/analytics/refresh`)',
    '',
    'Body `{ "error": { code, statusId, userMessage } }`.',
    '',
    '| code | HTTP |',
    '|---|---|',
  );
  for (const [code, http] of Object.entries(ADMIN_ERROR_STATUS)) out.push(`| ${code} | ${http} |`);
  out.push(
    '',
    '## Map tiles (`/tiles/…`)',
    '',
    'Body `{ "error": { code, statusId, userMessage } }`. Basemap tiles are public; live tiles need an app token.',
    '',
    '| code | HTTP |',
    '|---|---|',
  );
  for (const [code, http] of Object.entries(TILES_ERROR_STATUS)) out.push(`| ${code} | ${http} |`);
  out.push('');
  return out.join('\n');
}
