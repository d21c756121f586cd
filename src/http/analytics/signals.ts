/**
 * Signal controller logs over HTTP (docs/analytics.md, *Signal timing from controller logs*): the
 * channel/phase map of an intersection, hi-res event log uploads (CSV), and the split failures and
 * Purdue coordination diagram of a phase and day. Registered inside the analytics plugin (its auth
 * hook and error handler apply).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.js';
import {
  catalogOf,
  parsePhaseDayQuery,
  putChannelMap,
  queryCoordinationDiagram,
  querySplitFailures,
  uploadEventLog,
  type SignalStoreContext,
} from '../../analytics/index.js';
import { envelope } from '../envelope.js';

const TAGS = ['analytics'];
/** Largest event-log upload, bytes: several days of a busy controller. */
export const SIGNAL_LOG_BODY_LIMIT_BYTES = 64 * 1024 * 1024;
const SECURITY = [{ bearer: [] }];
const PARAMS = {
  type: 'object',
  properties: { intersectionId: { type: 'string', description: 'public intersection id (metadata API)' } },
};
const PHASE_DAY = {
  type: 'object',
  properties: {
    day: { type: 'string', description: 'YYYY-MM-DD, local day of the region' },
    phase: { type: 'string', description: 'controller phase number 1–255' },
  },
};

/** What the signal routes share: the store's region and time zone, and the response head. */
interface SignalRouteContext {
  ctx: AppContext;
  store: () => SignalStoreContext;
  head: () => { createdDate: string; responseId: string };
}

/** The inputs: an intersection's channel/phase map and its controller event logs. */
function registerSignalInputRoutes(app: FastifyInstance, { ctx, store, head }: SignalRouteContext): void {
  app.put<{ Params: { intersectionId: string } }>(
    '/v1/signals/intersections/:intersectionId/map',
    {
      schema: {
        tags: TAGS,
        summary: 'Set the channel/phase map of an intersection (JSON: intersectionId, phases, detectors)',
        params: PARAMS,
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const map = await putChannelMap(ctx.db, catalogOf(ctx.region), store(), req.params.intersectionId, req.body);
      return reply.code(200).send({ ...head(), result: map });
    },
  );

  app.post<{ Params: { intersectionId: string } }>(
    '/v1/signals/intersections/:intersectionId/events',
    {
      // a busy controller logs about 100,000 events a day (~3 MB of CSV)
      bodyLimit: SIGNAL_LOG_BODY_LIMIT_BYTES,
      schema: {
        tags: TAGS,
        summary: 'Upload a hi-res controller event log (text/csv: timestamp,event code,parameter)',
        params: PARAMS,
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const csv = typeof req.body === 'string' ? req.body : '';
      const result = await uploadEventLog(ctx.db, catalogOf(ctx.region), store(), req.params.intersectionId, csv);
      return reply.code(201).send({ ...head(), result });
    },
  );
}

/** The measures of a phase on a day: split failures and the coordination diagram. */
function registerSignalMeasureRoutes(app: FastifyInstance, { ctx, store, head }: SignalRouteContext): void {
  app.get<{ Params: { intersectionId: string } }>(
    '/v1/signals/intersections/:intersectionId/split-failures',
    {
      schema: {
        tags: TAGS,
        summary: 'Split failures of a phase on a day',
        params: PARAMS,
        querystring: PHASE_DAY,
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const q = parsePhaseDayQuery(req.params.intersectionId, req.query as Record<string, string>);
      const result = await querySplitFailures(ctx.db, catalogOf(ctx.region), store(), q);
      return reply.code(200).send({ ...head(), result });
    },
  );

  app.get<{ Params: { intersectionId: string } }>(
    '/v1/signals/intersections/:intersectionId/coordination-diagram',
    {
      schema: {
        tags: TAGS,
        summary: 'Purdue coordination diagram of a phase on a day',
        params: PARAMS,
        querystring: PHASE_DAY,
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const q = parsePhaseDayQuery(req.params.intersectionId, req.query as Record<string, string>);
      const result = await queryCoordinationDiagram(ctx.db, catalogOf(ctx.region), store(), q);
      return reply.code(200).send({ ...head(), result });
    },
  );
}

/** Adds the signal-log routes to the analytics plugin. */
export async function registerSignalRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const store = (): SignalStoreContext => ({
    region: ctx.region.meta.name,
    timeZone: ctx.region.meta.timeZone || 'UTC',
  });
  const head = () => {
    const e = envelope(ctx.now());
    return { createdDate: e.createdDate, responseId: e.responseId };
  };
  if (!app.hasContentTypeParser('text/csv'))
    app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_req, text, done) => done(null, text));
  registerSignalInputRoutes(app, { ctx, store, head });
  registerSignalMeasureRoutes(app, { ctx, store, head });
}
