/**
 * `/user/`: `POST` register (no credentials), `GET` authenticate (Basic), `PUT` update (Basic),
 * `GET /user/{userId}/lots/` (Basic). Errors in the Users payload `{ ErrorCode, ErrorDescription }`.
 * Admin: `PUT /v1/admin/parking/users/{userId}` sets `is_staff` / `is_active`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import {
  getUser,
  invalidParam,
  registerUser,
  updateUser,
  userLots,
  userView,
  type User,
} from '../../parking/reservations/index.js';
import {
  adminCaller,
  basicUser,
  fieldsOf,
  passwordHasher,
  paymentProcessor,
  rejectUnknown,
  sendJsonOrXml,
  fieldSchemas,
} from './reservations-support.js';

const PROFILE_FIELDS = ['phone', 'city', 'first_name', 'last_name', 'gender', 'birthday', 'str_license_plate'] as const;
const REGISTER_FIELDS = ['email', 'password', 'pub_id', 'source', ...PROFILE_FIELDS] as const;
const UPDATE_FIELDS = [
  'token',
  'card-number',
  'card_expiry_month',
  'card_expiry_year',
  'card-expiry',
  'card-cvc',
  'phone',
  'first_name',
  'last_name',
  'str_vehicle_name',
  'str_license_plate',
  'str_postal_code1',
  'city',
  'gender',
  'birthday',
] as const;

const ADMIN_USER_FIELDS = ['is_staff', 'is_active'] as const;
/** Descriptions of the user fields (OpenAPI). */
const USER_DOCS: Record<string, string> = {
  email: 'login e-mail address (unique)',
  password: 'password (at least 8 characters; stored as a scrypt hash)',
  pub_id: 'publisher id the user registers through',
  source: 'where the registration comes from (free text)',
  phone: 'phone number',
  city: 'city',
  first_name: 'first name',
  last_name: 'last name',
  gender: 'gender (free text)',
  birthday: 'yyyy-mm-dd',
  str_license_plate: 'licence plate',
  str_vehicle_name: 'vehicle name',
  str_postal_code1: 'postal code',
  token: 'payment-processor token (test: tok_visa, tok_mastercard, tok_chargeDeclined)',
  'card-number': 'card number (tokenized, only the last four digits are kept)',
  card_expiry_month: '1–12',
  card_expiry_year: '4 digits',
  'card-expiry': 'MM/YY, MM YYYY or MM-YY',
  'card-cvc': '3 digits (never stored)',
  is_staff: 'true or false: staff users see every reservation',
  is_active: 'true or false: inactive users cannot authenticate',
};
const BASIC = [{ basic: [] as string[] }];

function usersXml(body: Record<string, unknown>): Record<string, unknown> {
  const users = (body.Users as Array<Record<string, unknown>>).map((u) => ({
    ...u,
    groups: { group: u.groups },
    user_permissions: { permission: u.user_permissions },
  }));
  return { UserCount: body.UserCount, Users: { User: users } };
}

function sendUser(req: FastifyRequest, reply: FastifyReply, user: User): FastifyReply {
  return sendJsonOrXml(req, reply, 'UserResponse', { UserCount: 1, Users: [userView(user)] }, usersXml);
}

function noCardInQuery(req: FastifyRequest): void {
  for (const k of Object.keys((req.query ?? {}) as Record<string, unknown>)) {
    if (/^(card|token|password)/i.test(k))
      throw invalidParam(k, 'secrets must be sent in the request body, never in the URL');
  }
}

/** Registers the user routes on the reservations plugin. */
export function registerUserRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/user/',
    {
      schema: {
        tags: ['parking users'],
        summary: 'Register a user (email, password, pub_id, source)',
        description: 'Form fields or a JSON object; all but the password may also come in the query string.',
        ...fieldSchemas('POST /user/', REGISTER_FIELDS, USER_DOCS),
      },
    },
    async (req, reply) => {
      noCardInQuery(req);
      const fields = fieldsOf(req);
      rejectUnknown(fields, REGISTER_FIELDS);
      return sendUser(req, reply, await registerUser(ctx.db, passwordHasher, fields, ctx.now()));
    },
  );

  app.get(
    '/user/',
    {
      schema: {
        tags: ['parking users'],
        summary: 'Authenticate with Basic credentials; returns the profile',
        security: BASIC,
      },
    },
    async (req, reply) => {
      rejectUnknown(fieldsOf(req), []);
      return sendUser(req, reply, await basicUser(ctx, req, true));
    },
  );

  app.put(
    '/user/',
    {
      schema: {
        tags: ['parking users'],
        summary: 'Update the authenticated user (payment token or card → token + last four)',
        ...fieldSchemas('PUT /user/', UPDATE_FIELDS, USER_DOCS),
        security: BASIC,
      },
    },
    async (req, reply) => {
      noCardInQuery(req);
      const fields = fieldsOf(req);
      rejectUnknown(fields, UPDATE_FIELDS);
      const user = await basicUser(ctx, req);
      return sendUser(req, reply, await updateUser(ctx.db, paymentProcessor, user, fields, ctx.now()));
    },
  );

  app.get(
    '/user/:userId/lots/',
    { schema: { tags: ['parking users'], summary: 'Lots where the user has reservations', security: BASIC } },
    async (req, reply) => {
      rejectUnknown(fieldsOf(req), []);
      const user = await basicUser(ctx, req);
      const { userId } = req.params as { userId: string };
      const body = await userLots(ctx.db, user, userId);
      return sendJsonOrXml(req, reply, 'LotsResponse', body, (b) => ({ LotCount: b.LotCount, Lots: { Lot: b.Lots } }));
    },
  );

  registerUserAdminRoutes(app, ctx);
}

/** The admin route: set is_staff / is_active of a parking user. */
function registerUserAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.put(
    '/v1/admin/parking/users/:userId',
    {
      schema: {
        tags: ['parking admin'],
        summary: 'Set is_staff / is_active of a parking user',
        ...fieldSchemas('PUT /v1/admin/parking/users/{userId}', ADMIN_USER_FIELDS, USER_DOCS),
        security: [{ bearer: [] }],
      },
    },
    async (req, reply) => {
      await adminCaller(ctx, req);
      const fields = fieldsOf(req);
      rejectUnknown(fields, ADMIN_USER_FIELDS);
      const { userId } = req.params as { userId: string };
      const user = await getUser(ctx.db, userId);
      for (const name of ['is_staff', 'is_active'] as const) {
        const v = fields[name];
        if (v === undefined) continue;
        const b = v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined;
        if (b === undefined) throw invalidParam(name, 'must be true or false');
        await ctx.db.query(`UPDATE pk_user SET ${name} = $2 WHERE id = $1`, [user.id, b]);
      }
      return sendUser(req, reply, await getUser(ctx.db, userId));
    },
  );
}
