/**
 * `GET /v1/speeds/learned`: the learned speed profiles of the served region, per edge and 15-minute
 * bin with sample counts, as JSON, CSV, or OSRM's segment-speed file (`format=osrm`, for
 * `osrm-customize --segment-speed-file`). Any app token (`Authorization: Bearer`). Errors:
 * `{ error: { code, message } }` with 400 (a bad parameter, named), 401 (no or bad token).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError } from '../../auth/auth-service.js';
import {
  type LearnedBinRow,
  binLabel,
  learnedSpeedsCsv,
  osrmSegmentSpeeds,
  parseWeekTime,
  readLearnedSpeeds,
} from '../../traffic/learned-export.js';
import { bearerToken } from '../tokens.js';

/** Query parameters of the route, with their documentation. */
const QUERY_DOCS: Record<string, string> = {
  format: 'json (default): edges with their bins; csv: one line per edge and bin; osrm: OSRM segment-speed file',
  edges: 'comma-separated directed edge ids (default: every edge with learned data)',
  from: 'first bin, local time of the week: "Mon 07:00" (15-minute steps; default Mon 00:00)',
  to: 'last bin, inclusive: "Mon 08:45" (default Sun 23:45)',
  minSamples: 'leave out bins with fewer samples (default 1)',
  after: "paging: only edges with a larger id (the previous page's nextAfter)",
  limit: 'paging: edges per page (default 1000, at most 100000)',
};
/** Edges per page by default and at most. */
const DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 100_000;

class ParamError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}

function weekTime(text: string, parameter: string): number {
  const bin = parseWeekTime(text);
  if (bin === undefined)
    throw new ParamError(parameter, `"${text}" is not a day and 15-minute time such as "Mon 08:00"`);
  return bin;
}

function intParam(v: string | undefined, parameter: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !(n >= min && n <= max))
    throw new ParamError(parameter, `an integer in ${min}..${max} expected, got "${v}"`);
  return n;
}

function fail(reply: FastifyReply, http: number, code: string, message: string): FastifyReply {
  return reply.code(http).send({ error: { code, message } });
}

/** The rows grouped by edge, for the JSON answer. */
function byEdge(rows: readonly LearnedBinRow[], ctx: AppContext): Array<Record<string, unknown>> {
  const g = ctx.region.graph;
  const out: Array<Record<string, unknown>> = [];
  let cur: { edgeId: number; bins: unknown[] } | undefined;
  for (const r of rows) {
    if (cur?.edgeId !== r.edgeId) {
      cur = { edgeId: r.edgeId, bins: [] };
      out.push({
        edgeId: r.edgeId,
        wayId: r.wayId,
        fromOsmNodeId: r.fromOsmNodeId,
        toOsmNodeId: r.toOsmNodeId,
        name: g.names[g.edgeNameId[r.edgeId]] ?? '',
        lengthM: Math.round(g.edgeLengthM[r.edgeId] * 10) / 10,
        speedLimitKph: Math.round(g.edgeSpeedKph[r.edgeId]),
        bins: cur.bins,
      });
    }
    cur.bins.push({
      bin: r.binOfWeek,
      dayTime: binLabel(r.binOfWeek),
      samples: r.samples,
      meanKph: r.meanKph,
      learnedKph: r.learnedKph,
      typicalKph: r.typicalKph,
    });
  }
  return out;
}

/** Registers `GET /v1/speeds/learned`. */
export function registerLearnedSpeedRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/v1/speeds/learned',
    {
      schema: {
        tags: ['routing'],
        summary: 'Learned speed profiles per edge and 15-minute bin (JSON, CSV or OSRM segment speeds)',
        querystring: {
          type: 'object',
          properties: Object.fromEntries(
            Object.entries(QUERY_DOCS).map(([k, d]) => [k, { type: 'string', description: d }]),
          ),
        },
        security: [{ bearer: [] }],
      },
      validatorCompiler: () => () => true,
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const token = bearerToken(req);
      if (!token) return fail(reply, 401, 'AUTH_TOKEN_MISSING', 'an app token is required (Authorization: Bearer)');
      try {
        await ctx.auth.verifyAppToken(token);
      } catch (err) {
        if (err instanceof AuthError) return fail(reply, 401, err.code, 'invalid or expired token');
        throw err;
      }
      const raw = (req.query ?? {}) as Record<string, string | string[] | undefined>;
      const q = raw as Record<string, string | undefined>;
      try {
        for (const [k, v] of Object.entries(raw)) {
          if (!(k in QUERY_DOCS))
            throw new ParamError(k, `unknown parameter (this operation takes ${Object.keys(QUERY_DOCS).join(', ')})`);
          if (Array.isArray(v)) throw new ParamError(k, 'given more than once');
        }
        const format = (q.format ?? 'json').toLowerCase();
        if (!['json', 'csv', 'osrm'].includes(format)) throw new ParamError('format', 'json, csv or osrm');
        const g = ctx.region.graph;
        let edges: number[] | undefined;
        if (q.edges !== undefined)
          edges = q.edges.split(',').map((s) => intParam(s.trim(), 'edges', 0, g.edgeCount - 1) as number);
        const fromBin = q.from === undefined ? undefined : weekTime(q.from, 'from');
        const toBin = q.to === undefined ? undefined : weekTime(q.to, 'to');
        if (fromBin !== undefined && toBin !== undefined && toBin < fromBin)
          throw new ParamError('to', 'must not be before from');
        const limit = intParam(q.limit, 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
        const rows = await readLearnedSpeeds(ctx.db, g, ctx.region.meta.mapVersion, {
          edges,
          fromBin,
          toBin,
          minSamples: intParam(q.minSamples, 'minSamples', 1, 1_000_000),
          afterEdge: intParam(q.after, 'after', 0, g.edgeCount),
          limitEdges: limit,
        });
        const distinct = new Set(rows.map((r) => r.edgeId)).size;
        const nextAfter = distinct === limit ? rows[rows.length - 1].edgeId : null;
        if (nextAfter !== null) reply.header('x-next-after', String(nextAfter));
        if (format === 'csv') return reply.type('text/csv; charset=utf-8').send(learnedSpeedsCsv(rows));
        if (format === 'osrm') {
          const osrm = osrmSegmentSpeeds(rows, g);
          reply.header('x-edges-without-osm-nodes', String(osrm.edgesWithoutNodes));
          return reply.type('text/csv; charset=utf-8').send(osrm.csv);
        }
        return reply.send({
          region: ctx.region.meta.name,
          mapVersion: ctx.region.meta.mapVersion,
          timeZone: ctx.region.meta.timeZone,
          binMinutes: 15,
          edges: byEdge(rows, ctx),
          nextAfter,
        });
      } catch (err) {
        if (err instanceof ParamError) return fail(reply, 400, 'ROUTING_BAD_PARAMETER', err.message);
        throw err;
      }
    },
  );
}
