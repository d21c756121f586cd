/**
 * The legacy hashed request of product queries: `pub_id` + `chk` (+ optional `pt`).
 *
 * Definition (docs/reservations.md): take every query parameter except `pub_id`, `chk`,
 * `callback` and `_`; sort them by lower-cased name; join their values (as sent, URL-decoded) with
 * `|`; append `|` and the publisher's private key; `chk` is the lower-case hex MD5 of that UTF-8
 * string. `pt`, when sent, is the request time in unix seconds and takes part in the hash; it must
 * be within PT_WINDOW_S of the server clock (replay protection).
 *
 *   GET /product/?f_id=12&entry_dt=2026-11-23T09:00&duration=60|120&pt=1795424400&pub_id=acme&chk=…
 *   chk = md5("60|120|2026-11-23T09:00|12|1795424400|<private key>")
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../../store/db.js';
import { ReservationsError, invalidParam } from '../errors.js';

/** Largest accepted distance between `pt` and the server clock, seconds. */
export const PT_WINDOW_S = 900;

/** Parameters that never take part in the hash. */
const EXCLUDED = new Set(['pub_id', 'chk', 'callback', '_']);

/** The string that is hashed (exposed for documentation and tests). */
export function chkInput(params: Record<string, string>, privateKey: string): string {
  const names = Object.keys(params)
    .filter((n) => !EXCLUDED.has(n.toLowerCase()))
    .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0));
  return [...names.map((n) => params[n]), privateKey].join('|');
}

/**
 * Computes `chk` for a request's query parameters and a publisher's private key.
 * @example computeChk({ f_id: '12', duration: '60' }, 'secret') // md5("60|12|secret")
 */
export function computeChk(params: Record<string, string>, privateKey: string): string {
  return createHash('md5').update(chkInput(params, privateKey), 'utf8').digest('hex');
}

/**
 * Verifies a hashed request: known `pub_id`, matching `chk` (compared in constant time), `pt`
 * within the window. Throws PARKING_CHK_INVALID (401) or PARKING_PARAM_INVALID.
 */
export async function verifyChk(q: Queryable, params: Record<string, string>, nowMs: number): Promise<string> {
  const pubId = params.pub_id;
  const chk = params.chk;
  if (!chk)
    throw new ReservationsError('PARKING_CHK_INVALID', 'pub_id needs chk (hashed request)', { parameter: 'chk' });
  if (!/^[0-9a-fA-F]{32}$/.test(chk)) throw invalidParam('chk', 'must be a 32-character hex MD5 digest');
  if (params.pt !== undefined) {
    const pt = Number(params.pt);
    if (!Number.isInteger(pt)) throw invalidParam('pt', 'must be unix seconds');
    if (Math.abs(pt - nowMs / 1000) > PT_WINDOW_S)
      throw new ReservationsError(
        'PARKING_CHK_INVALID',
        `pt is more than ${PT_WINDOW_S} s away from the server clock`,
        { parameter: 'pt' },
      );
  }
  const res = await q.query<{ private_key: string }>('SELECT private_key FROM pk_publisher WHERE pub_id = $1', [pubId]);
  const expected = Buffer.from(
    res.rows.length > 0 ? computeChk(params, res.rows[0].private_key) : '0'.repeat(32),
    'utf8',
  );
  const given = Buffer.from(chk.toLowerCase(), 'utf8');
  if (!timingSafeEqual(expected, given) || res.rows.length === 0)
    throw new ReservationsError('PARKING_CHK_INVALID', 'pub_id or chk is not valid', { parameter: 'chk' });
  return pubId;
}

/** A publisher of the legacy hashed request. */
export interface Publisher {
  pub_id: string;
  name?: string;
  private_key: string;
}

/** Inserts or replaces publishers (admin API and `parking load` files with a `publishers` array). */
export async function upsertPublishers(q: Queryable, publishers: unknown[]): Promise<number> {
  if (!Array.isArray(publishers)) throw invalidParam('publishers', 'must be an array');
  const valid = publishers.map((raw, i) => {
    const p = raw as Partial<Publisher>;
    if (typeof p?.pub_id !== 'string' || !/^[\w.-]{1,64}$/.test(p.pub_id))
      throw invalidParam(`publishers[${i}].pub_id`, 'must be 1–64 letters, digits, _ . -');
    if (typeof p.private_key !== 'string' || p.private_key.length < 8)
      throw invalidParam(`publishers[${i}].private_key`, 'must be at least 8 characters');
    return { pub_id: p.pub_id, name: typeof p.name === 'string' ? p.name : '', private_key: p.private_key };
  });
  for (const p of valid) {
    await q.query(
      `INSERT INTO pk_publisher (pub_id, name, private_key) VALUES ($1, $2, $3)
       ON CONFLICT (pub_id) DO UPDATE SET name = EXCLUDED.name, private_key = EXCLUDED.private_key`,
      [p.pub_id, p.name, p.private_key],
    );
  }
  return valid.length;
}
