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

/** Ingestion as the last probe saw it. */
interface IngestionHealth {
  workers: number;
  pendingTraces: number;
  oldestPendingS: number;
}

/** The background probe of the database and the ingestion backlog; at most one query outstanding. */
class HealthProbe {
  lastOkAt = 0;
  lastError: string | undefined;
  /** when the outstanding probe started, ms (0: none outstanding) */
  probingSince = 0;
  first: Promise<void> | undefined;
  ingestion: IngestionHealth | undefined;

  constructor(private readonly ctx: AppContext) {}

  /** Probes the database unless a probe is outstanding (then resolves with the first one). */
  probe(): Promise<void> {
    if (this.probingSince !== 0) return this.first ?? Promise.resolve();
    this.probingSince = Date.now();
    const { ctx } = this;
    return ctx.db
      .query('SELECT 1')
      .then(async () => {
        const backlog = await pendingBacklog(ctx.db, ctx.region.meta.name);
        const workers = ctx.ingestion ? await ctx.ingestion.workers() : 0;
        this.ingestion = { workers, pendingTraces: backlog.traces, oldestPendingS: Math.round(backlog.oldestS) };
      })
      .then(
        () => {
          this.lastOkAt = Date.now();
          this.lastError = undefined;
        },
        (err: unknown) => {
          this.lastError = err instanceof Error ? err.message : String(err);
        },
      )
      .finally(() => {
        this.probingSince = 0;
      });
  }

  /** Why the service is degraded (empty when it is not): a slow database, pings waiting for a worker. */
  degradedReasons(region: string): string[] {
    const reasons: string[] = [];
    const waitingMs = this.probingSince === 0 ? 0 : Date.now() - this.probingSince;
    if (waitingMs > SLOW_MS || this.lastOkAt === 0)
      reasons.push(`the database has not answered for ${Math.round(waitingMs / 1000)} s`);
    const ingestion = this.ingestion;
    if (ingestion !== undefined && ingestion.pendingTraces > 0) {
      if (ingestion.workers === 0)
        reasons.push(`no ingestion worker of region ${region} runs: ${ingestion.pendingTraces} traces wait`);
      else if (ingestion.oldestPendingS > STALE_PENDING_S)
        reasons.push(`probe pings have waited ${ingestion.oldestPendingS} s for processing`);
    }
    return reasons;
  }
}

/** Registers `/healthz` and its database probe. */
export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  const health = new HealthProbe(ctx);
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    health.first = health.probe();
    timer = setInterval(() => void health.probe(), PROBE_MS);
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
      if (health.lastOkAt === 0 && health.lastError === undefined) {
        // before the first probe has answered: wait for it, briefly
        await Promise.race([health.first ?? health.probe(), new Promise((r) => setTimeout(r, 1000))]);
      }
      if (health.lastError !== undefined)
        return reply.code(503).send({
          status: 'unavailable',
          database: 'down',
          reasons: [`the database refuses queries: ${health.lastError}`],
        });
      const reasons = health.degradedReasons(ctx.region.meta.name);
      const g = ctx.region.graph;
      const ingestion = health.ingestion;
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
