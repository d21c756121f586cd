/**
 * `GET /healthz`: answers at once from what a background probe last saw, never by waiting on the
 * database (a busy embedded database must not make a health check slow). `ok`; `degraded` with
 * the reasons while probe pings wait for a worker or the database is slow to answer (the APIs
 * still serve); 503 `unavailable` while the database refuses queries.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app/context.js';
import { pendingBacklog } from '../probes/ingest/pending.js';

/** Pings waiting longer than this make the service degraded, seconds. */
const STALE_PENDING_S = 120;

/** How often the database is probed, ms. */
const PROBE_MS = 1000;
/** A probe outstanding this long makes the service degraded, ms. */
const SLOW_MS = 5000;

/** Registers `/healthz` and its database probe. */
export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  let lastOkAt = 0;
  let lastError: string | undefined;
  let probingSince = 0;
  let first: Promise<void> | undefined;
  let ingestion: { workers: number; pendingTraces: number; oldestPendingS: number } | undefined;
  const region = ctx.region.meta.name;
  const probe = (): Promise<void> => {
    if (probingSince !== 0) return first ?? Promise.resolve();
    probingSince = Date.now();
    return ctx.db
      .query('SELECT 1')
      .then(async () => {
        const backlog = await pendingBacklog(ctx.db, region);
        const workers = ctx.ingestion ? await ctx.ingestion.workers() : 0;
        ingestion = { workers, pendingTraces: backlog.traces, oldestPendingS: Math.round(backlog.oldestS) };
      })
      .then(
        () => {
          lastOkAt = Date.now();
          lastError = undefined;
        },
        (err: unknown) => {
          lastError = err instanceof Error ? err.message : String(err);
        },
      )
      .finally(() => {
        probingSince = 0;
      });
  };
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    first = probe();
    timer = setInterval(() => void probe(), PROBE_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
  });

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['platform'],
        summary: 'Liveness and readiness: ok, degraded (with reasons) or unavailable (503)',
      },
    },
    async (_req, reply) => {
      if (lastOkAt === 0 && lastError === undefined) {
        // before the first probe has answered: wait for it, briefly
        await Promise.race([first ?? probe(), new Promise((r) => setTimeout(r, 1000))]);
      }
      if (lastError !== undefined)
        return reply
          .code(503)
          .send({ status: 'unavailable', database: 'down', reasons: [`the database refuses queries: ${lastError}`] });
      const reasons: string[] = [];
      const waitingMs = probingSince === 0 ? 0 : Date.now() - probingSince;
      if (waitingMs > SLOW_MS || lastOkAt === 0)
        reasons.push(`the database has not answered for ${Math.round(waitingMs / 1000)} s`);
      if (ingestion !== undefined && ingestion.pendingTraces > 0) {
        if (ingestion.workers === 0)
          reasons.push(`no ingestion worker of region ${region} runs: ${ingestion.pendingTraces} traces wait`);
        else if (ingestion.oldestPendingS > STALE_PENDING_S)
          reasons.push(`probe pings have waited ${ingestion.oldestPendingS} s for processing`);
      }
      const g = ctx.region.graph;
      return {
        status: reasons.length > 0 ? 'degraded' : 'ok',
        ...(reasons.length > 0 ? { reasons } : {}),
        region: ctx.region.meta.name,
        mapVersion: ctx.region.meta.mapVersion,
        nodes: g.nodeCount,
        edges: g.edgeCount,
        services: ctx.config.server.services,
        ...(ingestion ? { ingestion } : {}),
        ...(ctx.changes ? { changes: { appliedThrough: ctx.changes.appliedThrough() } } : {}),
      };
    },
  );
}
