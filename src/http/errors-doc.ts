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

const INTRODUCTION = [
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
];

/** One API's section: its title, what its error body is, and a table of its codes. */
function section(title: string, body: string, columns: string[], rows: string[][]): string[] {
  return [
    '',
    `## ${title}`,
    '',
    body,
    '',
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

const ERROR_BODY = 'Body `{ "error": { code, statusId, userMessage } }`.';

/** Rows `code | HTTP` of a catalog of statuses. */
const statusRows = (statuses: Record<string, number>): string[][] =>
  Object.entries(statuses).map(([code, http]) => [code, String(http)]);

/** The markdown page listing every error code of every API. */
export function renderErrorsDoc(): string {
  return [
    ...INTRODUCTION,
    ...section(
      'Accounts (`/v1/AppToken`)',
      'Body `{ "error": { "statusId", "userMessage" } }`.',
      ['statusId', 'HTTP', 'meaning'],
      [
        ['41', '400', 'a parameter (`appId`, `hashToken`) is missing'],
        [
          '26',
          '403',
          'User Authentication Failed: unknown appId or wrong hashToken (one message), or a disabled application (named only with the right hashToken)',
        ],
      ],
    ),
    ...section(
      'Routing (`/traffic/*.ashx`)',
      'The routing envelope with `statusId` and `statusText` (text ending in "for", "in" or ":" is followed by the parameter name), in XML or JSON.',
      ['name', 'statusId', 'statusText', 'HTTP'],
      Object.entries(RoutingStatus).map(([name, s]) => [name, String(s.statusId), s.text, String(s.http)]),
    ),
    ...section(
      'Parking inventory (`/lots`, `/blocks`, `/blocks/v3`, parking admin)',
      'Body: the parking envelope with `status`, `code`, `message`, `parameter`.',
      ['code', 'kind', 'HTTP'],
      Object.entries(PARKING_ERRORS).map(([code, kind]) => [code, kind, String(PARKING_STATUS_OF_KIND[kind])]),
    ),
    ...section(
      'Parking products, reservations, users, open spots (`/product/`, `/reservation/`, `/user/`, `/USS`)',
      'Body: `ErrorCode` / `ErrorDescription` (users) or the parking error body; see docs/reservations.md.',
      ['code', 'kind', 'HTTP'],
      Object.entries(RESERVATIONS_ERRORS).map(([code, kind]) => [code, kind, String(RESERVATION_STATUS_OF_KIND[kind])]),
    ),
    ...section(
      'Intersection analytics (`/v1/metrics/…`, `/v1/metadata/…`, `/v1/namespace/…`)',
      'Body `{ timestamp, status, error, message, code, path }`; missing, invalid or expired tokens give 401.',
      ['code', 'kind', 'HTTP'],
      Object.entries(ANALYTICS_ERRORS).map(([code, v]) => [code, v.kind, String(ANALYTICS_STATUS_OF_KIND[v.kind])]),
    ),
    ...section('Probe ingestion (`POST /v1/probes`)', ERROR_BODY, ['code', 'HTTP'], statusRows(PROBES_ERROR_STATUS)),
    ...section(
      'Operator admin API (`/v1/admin/apps…`, `/v1/admin/signing-keys`, `/v1/admin/parking/load`, `/v1/admin/probes/process`, `/v1/admin/analytics/refresh`)',
      ERROR_BODY,
      ['code', 'HTTP'],
      statusRows(ADMIN_ERROR_STATUS),
    ),
    ...section(
      'Map tiles (`/tiles/…`)',
      `${ERROR_BODY} Basemap tiles are public; live tiles need an app token.`,
      ['code', 'HTTP'],
      statusRows(TILES_ERROR_STATUS),
    ),
    '',
  ].join('\n');
}
