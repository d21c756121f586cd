/** Prometheus metrics of one app instance (own registry, so several apps can live in one process). */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Registers `GET /metrics` and the request counters/histogram hooks. */
export function registerMetrics(app: FastifyInstance, opts: { defaultMetrics: boolean }): Registry {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'streetwise_' });
  const requests = new Counter({
    name: 'streetwise_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'streetwise_http_request_duration_seconds',
    help: 'HTTP request duration by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    duration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
  new Gauge({
    name: 'streetwise_window_tables',
    help: "This thread's time-window tables so far: built here, received from the window builder, searches on an earlier bin's table, tables dropped for a faster feed value",
    labelNames: ['event'] as const,
    registers: [registry],
    collect() {
      const w = app.hasDecorator('services') ? app.services.routing?.engine.windows : undefined;
      if (!w) return;
      this.set({ event: 'built' }, w.built);
      this.set({ event: 'received' }, w.adopted);
      this.set({ event: 'borrowed' }, w.borrowed);
      this.set({ event: 'invalidated' }, w.invalidated);
    },
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}
