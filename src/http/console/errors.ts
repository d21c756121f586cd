/** Error catalog of the map endpoints (`/tiles/…`): body `{ "error": { code, statusId, userMessage } }`. */
import type { FastifyReply } from 'fastify';

/** HTTP status of each tiles error code. */
export const TILES_ERROR_STATUS = {
  /** z/x/y are not integers with 0 ≤ x, y < 2^z, z ≤ 24 */
  TILES_BAD_COORDINATES: 400,
  /** live tiles without a token */
  TILES_AUTH_MISSING: 401,
  TILES_AUTH_INVALID: 401,
  TILES_AUTH_EXPIRED: 401,
} as const;

export type TilesErrorCode = keyof typeof TILES_ERROR_STATUS;

/** Sends a tiles error in the platform's `{ error: { … } }` shape. */
export function sendTilesError(reply: FastifyReply, code: TilesErrorCode, message: string): FastifyReply {
  const status = TILES_ERROR_STATUS[code];
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error: { code, statusId: status, userMessage: message } });
}
