/**
 * HTTP plugin of products, reservations, users and open spots (`/product/`, `/reservation/`,
 * `/user/`, `/USS`, and the `/v1/admin/parking/{products,publishers,users}` admin API).
 * Registered by `http/app.ts` with the shared AppContext; errors shaped by `reservations-errors.ts`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { handleReservationsError } from './reservations-errors.js';
import { registerProductRoutes } from './reservations-products.js';
import { registerReservationRoutes } from './reservations-routes.js';
import { registerUserRoutes } from './reservations-users.js';
import { registerUssRoutes } from './reservations-uss.js';

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, opts) => {
  app.setErrorHandler((err, req, reply) => handleReservationsError(err, req, reply));
  // The schemas of these routes document the fields; the handlers read them from the body and the
  // query string together (`fieldsOf`) and reject unknown or malformed ones by name. Schema
  // validation would refuse a request whose fields are all in the query string ("body must be
  // object") before the handler could name what is missing.
  app.setValidatorCompiler(() => () => true);
  registerProductRoutes(app, opts.ctx);
  registerReservationRoutes(app, opts.ctx);
  registerUserRoutes(app, opts.ctx);
  registerUssRoutes(app, opts.ctx);
};
export default plugin;
