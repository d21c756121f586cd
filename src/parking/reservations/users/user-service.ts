/**
 * Parking users: register, authenticate (email + password, slow KDF, timing-safe), update the
 * profile and the payment method (stored as processor token + last four digits only), and the
 * lots of a user.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../../../store/db.js';
import { ReservationsError, invalidParam, missingParam } from '../errors.js';
import type { PaymentMethod, PaymentProcessor } from '../payments/processor.js';
import { isoUtc } from '../products/clock.js';

/** Password hashing (injected: `hashPassword` / `verifyPassword` of `auth/password.ts`). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

/** A user as stored (never with the password hash outside this module's queries). */
export interface User {
  id: string;
  email: string;
  pubId: string;
  source: string;
  token: string;
  firstName: string;
  lastName: string;
  phone: string;
  city: string;
  gender: string | null;
  birthday: string | null;
  licensePlate: string;
  vehicleName: string;
  postalCode: string;
  isStaff: boolean;
  isSuperuser: boolean;
  isActive: boolean;
  emailAllowed: boolean;
  servicePoints: number;
  opboardLogins: number;
  payment: PaymentMethod | null;
  cardExpiryMonth: number | null;
  cardExpiryYear: number | null;
  dateJoinedMs: number;
  lastLoginMs: number | null;
}

/** Shortest password accepted at registration. */
export const MIN_PASSWORD_LENGTH = 8;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const COLUMNS = `id, email, pub_id, source, token, first_name, last_name, phone, city, gender, birthday, license_plate, vehicle_name,
  postal_code, is_staff, is_superuser, is_active, email_allowed, service_points, opboard_logins, payment_processor, payment_token,
  card_last4, card_expiry_month, card_expiry_year, (extract(epoch FROM date_joined) * 1000)::bigint AS joined_ms,
  (extract(epoch FROM last_login) * 1000)::bigint AS login_ms`;

function rowToUser(r: Record<string, unknown>): User {
  return {
    id: String(r.id),
    email: String(r.email),
    pubId: String(r.pub_id),
    source: String(r.source),
    token: String(r.token),
    firstName: String(r.first_name),
    lastName: String(r.last_name),
    phone: String(r.phone),
    city: String(r.city),
    gender: (r.gender as string | null) ?? null,
    birthday: (r.birthday as string | null) ?? null,
    licensePlate: String(r.license_plate),
    vehicleName: String(r.vehicle_name),
    postalCode: String(r.postal_code),
    isStaff: Boolean(r.is_staff),
    isSuperuser: Boolean(r.is_superuser),
    isActive: Boolean(r.is_active),
    emailAllowed: Boolean(r.email_allowed),
    servicePoints: Number(r.service_points),
    opboardLogins: Number(r.opboard_logins),
    payment: r.payment_token
      ? { processor: String(r.payment_processor), token: String(r.payment_token), last4: String(r.card_last4 ?? '') }
      : null,
    cardExpiryMonth: r.card_expiry_month === null ? null : Number(r.card_expiry_month),
    cardExpiryYear: r.card_expiry_year === null ? null : Number(r.card_expiry_year),
    dateJoinedMs: Number(r.joined_ms),
    lastLoginMs: r.login_ms === null ? null : Number(r.login_ms),
  };
}

/** Form fields as strings (form bodies) or JSON values; absent = undefined. */
export type Fields = Record<string, unknown>;

function text(fields: Fields, name: string, maxLength = 200): string | undefined {
  const v = fields[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw invalidParam(name, 'must be a string');
  const s = String(v).trim();
  if (s.length > maxLength) throw invalidParam(name, `must be at most ${maxLength} characters`);
  return s;
}

function required(fields: Fields, name: string): string {
  const v = text(fields, name);
  if (v === undefined || v === '') throw missingParam(name);
  return v;
}

/** Profile fields shared by register and update: column → value. */
function profileColumns(fields: Fields): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  const map: Array<[string, string]> = [
    ['phone', 'phone'],
    ['city', 'city'],
    ['first_name', 'first_name'],
    ['last_name', 'last_name'],
    ['str_license_plate', 'license_plate'],
    ['str_vehicle_name', 'vehicle_name'],
    ['str_postal_code1', 'postal_code'],
  ];
  for (const [field, column] of map) {
    const v = text(fields, field);
    if (v !== undefined) out[column] = v;
  }
  const gender = text(fields, 'gender');
  if (gender !== undefined) {
    if (gender !== 'male' && gender !== 'female') throw invalidParam('gender', 'must be male or female');
    out.gender = gender;
  }
  const birthday = text(fields, 'birthday');
  if (birthday !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(birthday) || Number.isNaN(Date.parse(`${birthday}T00:00:00Z`)))
      throw invalidParam('birthday', 'must be a date yyyy-mm-dd');
    out.birthday = birthday;
  }
  return out;
}

/**
 * Registers a user (`POST /user/`): email, password, pub_id and source required.
 * Throws USER_EMAIL_EXISTS (ErrorCode 1004) when the email (case-insensitive) is taken.
 * @example await registerUser(db, hasher, { email: 'a@b.co', password: 'secret123', pub_id: 'demo', source: 'app' }, now)
 */
export async function registerUser(q: Queryable, hasher: PasswordHasher, fields: Fields, nowMs: number): Promise<User> {
  const email = required(fields, 'email');
  if (!EMAIL_RE.test(email)) throw invalidParam('email', 'not an email address');
  const password = fields.password;
  if (typeof password !== 'string' || password === '') throw missingParam('password');
  if (password.length < MIN_PASSWORD_LENGTH)
    throw invalidParam('password', `must have at least ${MIN_PASSWORD_LENGTH} characters`);
  const pubId = required(fields, 'pub_id');
  const source = required(fields, 'source');
  const profile = profileColumns(fields);
  const exists = await q.query('SELECT 1 FROM pk_user WHERE lower(email) = lower($1)', [email]);
  if (exists.rows.length > 0)
    throw new ReservationsError('USER_EMAIL_EXISTS', 'an account with this email already exists', {
      parameter: 'email',
    });
  const id = randomUUID();
  const hash = await hasher.hash(password);
  const cols = ['id', 'email', 'password_hash', 'pub_id', 'source', 'token', 'date_joined', ...Object.keys(profile)];
  const values: unknown[] = [
    id,
    email,
    hash,
    pubId,
    source,
    randomBytes(24).toString('hex'),
    new Date(nowMs),
    ...Object.values(profile),
  ];
  try {
    await q.query(
      `INSERT INTO pk_user (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
      values,
    );
  } catch (e) {
    // two registrations raced past the check: the unique index decides
    if ((e as { code?: string }).code === '23505')
      throw new ReservationsError('USER_EMAIL_EXISTS', 'an account with this email already exists', {
        parameter: 'email',
      });
    throw e;
  }
  return getUser(q, id);
}

/** The user `id`; throws PARKING_USER_NOT_FOUND. */
export async function getUser(q: Queryable, id: string): Promise<User> {
  const res = /^[0-9a-f-]{36}$/i.test(id)
    ? await q.query(`SELECT ${COLUMNS} FROM pk_user WHERE id = $1`, [id])
    : { rows: [] };
  if (res.rows.length === 0)
    throw new ReservationsError('PARKING_USER_NOT_FOUND', `no user ${id}`, { parameter: 'userId' });
  return rowToUser(res.rows[0]);
}

let dummyHash: Promise<string> | undefined;

/**
 * Checks email + password (Basic credentials). Unknown email and wrong password both throw
 * USER_LOGIN_FAILED (ErrorCode 1005) after the same amount of KDF work. `recordLogin` stamps
 * `last_login` (the `GET /user/` authentication).
 */
export async function authenticateUser(
  q: Queryable,
  hasher: PasswordHasher,
  email: string,
  password: string,
  nowMs: number,
  recordLogin = false,
): Promise<User> {
  const res = await q.query<{ id: string; password_hash: string }>(
    'SELECT id, password_hash FROM pk_user WHERE lower(email) = lower($1)',
    [email],
  );
  if (res.rows.length === 0) {
    dummyHash ??= hasher.hash('streetwise-timing-equaliser');
    await hasher.verify(password, await dummyHash);
    throw new ReservationsError('USER_LOGIN_FAILED', 'email or password incorrect');
  }
  if (!(await hasher.verify(password, res.rows[0].password_hash)))
    throw new ReservationsError('USER_LOGIN_FAILED', 'email or password incorrect');
  if (recordLogin) await q.query('UPDATE pk_user SET last_login = $2 WHERE id = $1', [res.rows[0].id, new Date(nowMs)]);
  return getUser(q, res.rows[0].id);
}

/** Parses `card-expiry` ("MM YY", "MM/YYYY", "MM-YY") into month and 4-digit year. */
export function parseCardExpiry(value: string): { month: number; year: number } {
  const m = /^\s*(\d{1,2})\s*[\s/-]\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!m)
    throw invalidParam('card-expiry', 'expected month and year separated by space, slash or dash (MM/YY or MM/YYYY)');
  const month = Number(m[1]);
  const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) throw invalidParam('card-expiry', 'month must be 1 to 12');
  return { month, year };
}

/**
 * Updates the authenticated user (`PUT /user/`): profile fields, and a payment method from either
 * `token` or `card-number` + expiry (+ `card-cvc`), tokenized by `processor`. Only the token and
 * last four digits are stored; the card number and CVC are dropped here.
 */
export async function updateUser(
  q: Queryable,
  processor: PaymentProcessor,
  user: User,
  fields: Fields,
  nowMs: number,
): Promise<User> {
  const set: Record<string, unknown> = profileColumns(fields);
  const token = text(fields, 'token');
  const cardNumber = text(fields, 'card-number', 40);
  if (token !== undefined && cardNumber !== undefined)
    throw invalidParam('token', 'send either token or card-number, not both');
  if (token !== undefined) {
    const method = await processor.describeToken(token);
    Object.assign(set, {
      payment_processor: method.processor,
      payment_token: method.token,
      card_last4: method.last4,
      card_expiry_month: null,
      card_expiry_year: null,
    });
  } else if (cardNumber !== undefined) {
    let month = fields.card_expiry_month === undefined ? undefined : Number(fields.card_expiry_month);
    let year = fields.card_expiry_year === undefined ? undefined : Number(fields.card_expiry_year);
    const combined = text(fields, 'card-expiry');
    if (combined !== undefined) ({ month, year } = parseCardExpiry(combined));
    if (month === undefined) throw missingParam('card_expiry_month');
    if (year === undefined) throw missingParam('card_expiry_year');
    if (fields.card_expiry_year !== undefined && !/^\d{4}$/.test(String(fields.card_expiry_year)))
      throw invalidParam('card_expiry_year', 'must have 4 digits');
    const cvc = text(fields, 'card-cvc', 4);
    if (cvc !== undefined && !/^\d{3}$/.test(cvc)) throw invalidParam('card-cvc', 'must be 3 digits');
    const method = await processor.tokenize({ number: cardNumber, expiryMonth: month, expiryYear: year, cvc }, nowMs);
    Object.assign(set, {
      payment_processor: method.processor,
      payment_token: method.token,
      card_last4: method.last4,
      card_expiry_month: month,
      card_expiry_year: year,
    });
  } else if (
    fields['card-cvc'] !== undefined ||
    fields['card-expiry'] !== undefined ||
    fields.card_expiry_month !== undefined ||
    fields.card_expiry_year !== undefined
  ) {
    throw missingParam('card-number');
  }
  const cols = Object.keys(set);
  if (cols.length > 0) {
    await q.query(`UPDATE pk_user SET ${cols.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`, [
      user.id,
      ...Object.values(set),
    ]);
  }
  return getUser(q, user.id);
}

/** The contract's User shape; financial data limited to the card's last four digits and expiry. */
export function userView(u: User): Record<string, unknown> {
  return {
    pk_user_profile: u.id,
    email: u.email,
    username: u.email,
    token: u.token,
    groups: u.isStaff ? ['staff'] : [],
    user_permissions: [],
    is_staff: u.isStaff,
    is_superuser: u.isSuperuser,
    is_active: u.isActive,
    email_allowed: u.emailAllowed,
    first_name: u.firstName,
    last_name: u.lastName,
    note: '',
    location: u.city,
    phone: u.phone,
    address: '',
    state: '',
    country: '',
    postal_code: u.postalCode,
    birthday: u.birthday,
    gender: u.gender,
    str_license_plate: u.licensePlate,
    str_vehicle_name: u.vehicleName,
    pub_id: u.pubId,
    source: u.source,
    i_opboard_logins: u.opboardLogins,
    i_service_points: u.servicePoints,
    str_social_id: null,
    i_qp_account: null,
    card_last4: u.payment?.last4 ?? null,
    card_expiry_month: u.cardExpiryMonth,
    card_expiry_year: u.cardExpiryYear,
    date_joined: isoUtc(u.dateJoinedMs),
    last_login: u.lastLoginMs === null ? null : isoUtc(u.lastLoginMs),
  };
}

/**
 * Lots of a user (`GET /user/{userId}/lots/`): the distinct lots where the user holds or held a
 * paid reservation, in name order. Visible to the user and to staff; others get PARKING_FORBIDDEN.
 */
export async function userLots(
  q: Queryable,
  caller: User,
  userId: string,
): Promise<{
  LotCount: number;
  Lots: Array<{ f_id: number; address: string; pk_lot: string; name: string; point: [number, number] | null }>;
}> {
  const target = await getUser(q, userId);
  if (target.id !== caller.id && !caller.isStaff)
    throw new ReservationsError('PARKING_FORBIDDEN', 'only the user or staff may list these lots', {
      parameter: 'userId',
    });
  const res = await q.query<{
    lot_id: string;
    lot_uuid: string;
    lot_name: string;
    lot_address: string;
    lot_lat: number | null;
    lot_lon: number | null;
  }>(
    `SELECT DISTINCT ON (p.lot_id) p.lot_id, p.lot_uuid, p.lot_name, p.lot_address, p.lot_lat, p.lot_lon
       FROM pk_reservation r JOIN pk_product p ON p.id = r.product_id
      WHERE r.owner_user_id = $1 AND r.status <> 0 ORDER BY p.lot_id, p.updated_at DESC`,
    [target.id],
  );
  const lots = res.rows
    .map((r) => ({
      f_id: Number(r.lot_id),
      address: r.lot_address,
      pk_lot: String(r.lot_uuid),
      name: r.lot_name,
      point:
        r.lot_lat === null || r.lot_lon === null ? null : ([Number(r.lot_lon), Number(r.lot_lat)] as [number, number]),
    }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.f_id - b.f_id);
  return { LotCount: lots.length, Lots: lots };
}
