import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import crypto from 'node:crypto';
import { unauthorized } from './errors.js';
import { UNLIMITED } from './rate-limit.js';

/**
 * Who may read /metrics: anyone on a test or dev host; on a live (prod) host only a scraper with
 * `Authorization: Bearer <METRICS_TOKEN>`, and nobody (404) when METRICS_TOKEN is unset. The
 * figures (routes and their status counts, memory, the Node version) help an attacker map the
 * service, so a live host does not hand them out.
 */
export type MetricsAccess = { open: true } | { open: false; token: string | undefined };

/** Compared as SHA-256 digests, in constant time whatever the lengths. */
function tokenMatches(given: string, token: string): boolean {
  const digest = (value: string) => crypto.createHash('sha256').update(value).digest();
  return crypto.timingSafeEqual(digest(given), digest(token));
}

/** Prometheus metrics of one app instance, on its own registry so several apps can share a process. */
export function installMetrics(app: FastifyInstance, access: MetricsAccess = { open: true }): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  // The labelled children, made once per method, route and status: looking labels up by object
  // on every response showed in the offers endpoint's profile.
  const perRoute = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  app.addHook('onResponse', (request, reply, done) => {
    // Unknown paths share one label so scanners cannot blow up the series count.
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${route} ${reply.statusCode}`;
    let series = perRoute.get(key);
    if (!series) {
      const counter = requests.labels(request.method, route, String(reply.statusCode));
      const timer = duration.labels(request.method, route);
      series = { count: () => counter.inc(), observe: (seconds) => timer.observe(seconds) };
      perRoute.set(key, series);
    }
    series.count();
    series.observe(reply.elapsedTime / 1000);
    done();
  });

  if (!access.open && access.token === undefined) return registry;
  const token = access.open ? undefined : access.token;
  app.get('/metrics', { config: UNLIMITED, schema: { hide: true } }, async (request, reply) => {
    if (token !== undefined) {
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!tokenMatches(given, token)) throw unauthorized('/metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}
