import crypto from 'node:crypto';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config, TrustProxy } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { pingDatabase, requestBounds } from './db/database.js';
import { composeRuntime, type Runtime } from './composition.js';
import { installAuthHooks } from './auth/plugin.js';
import { installAdminAuth } from './admin/admin-auth.js';
import { ErrorResponse } from './http/errors.js';
import { cachedSerializerFactory } from './http/serialization.js';
import { addCorsHeaders, installCors } from './http/cors.js';
import { installErrorHandlers } from './http/error-handler.js';
import { installMetrics } from './http/metrics.js';
import { installRateLimits, UNLIMITED } from './http/rate-limit.js';
import { SharedReadiness } from './http/readiness.js';
import { registerOpenApi } from './http/openapi.js';
import { registerApiReference } from './http/reference-page.js';
import { installValidators } from './http/validation.js';
import { routePathPattern } from './http/route-hooks.js';
import { logFormatFor, loggerOptions, noteErrorCode, RequestLogController, requestLogger } from './http/logging.js';
import { domainRoutes } from './routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The shared services the app was built with (src/composition.ts). */
    runtime: Runtime;
  }
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export interface BuildAppOptions {
  config: Config;
  database: DatabaseHandle;
  /** Where the background jobs and startup loads run their longer statements (src/server.ts); the request database if omitted. */
  jobDatabase?: DatabaseHandle;
  /** A pino-compatible destination for tests that read the logs. */
  logStream?: NodeJS.WritableStream;
  /** Sees every route as it is registered, with its schema (test/architecture/money-fields.test.ts walks them). */
  onRoute?: (route: RouteOptions) => void;
}

export type App = FastifyInstance;

/**
 * Fastify's trustProxy for TRUST_PROXY. Fastify 5 ignores a bare hop count (it trusts nobody then,
 * since the nearest peer goes unchecked), so a count becomes the function it used to stand for:
 * the nearest `hops` peers are proxies. docs/operations.md says when that is safe.
 */
function fastifyTrustProxy(setting: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { config, database } = options;
  // A test's own log stream is read as JSON; the service's stdout is JSON unless a person watches it in a terminal.
  const logger = loggerOptions(config.logLevel, options.logStream ? 'json' : logFormatFor(process.stdout));
  const app = Fastify({
    logger: options.logStream && typeof logger === 'object' ? { ...logger, stream: options.logStream } : logger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : crypto.randomUUID();
    },
    childLoggerFactory: requestLogger,
    logController: new RequestLogController(),
    trustProxy: fastifyTrustProxy(config.trustProxy),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Only JSON bodies are accepted; text/plain would otherwise slip past the Content-Type rule.
  app.removeContentTypeParser('text/plain');
  installValidators(app);

  const runtime = await composeRuntime({
    config,
    database,
    jobDatabase: options.jobDatabase,
    bounds: requestBounds(config.database),
    log: app.log,
    redisFallback: 'using in-process fallbacks',
    jobs: { run: config.runBackgroundJobs, keepProcessAlive: false },
  });
  app.decorate('runtime', runtime);
  app.addHook('onClose', () => runtime.close());

  // Responses finished while shutting down close their connection, so keep-alive clients do not
  // hold the process open until their idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Request-Id', request.id);
    noteErrorCode(reply, payload);
    addCorsHeaders(request, reply);
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  const knownRoutes: Array<{ method: string; pattern: RegExp }> = [];
  app.addHook('onRoute', (route) => {
    options.onRoute?.(route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = routePathPattern(route.url);
    for (const method of methods) if (method !== 'HEAD') knownRoutes.push({ method, pattern });
  });
  installErrorHandlers(app, () => knownRoutes);

  app.addSchema(ErrorResponse);
  installCors(app);
  await registerOpenApi(app, config);
  await registerApiReference(app, config.baseUrl);

  installMetrics(app, config.serviceEnv === 'prod' ? { open: false, token: config.metricsToken } : { open: true });
  installAuthHooks(app, runtime.auth);
  installAdminAuth(app, config.adminToken);
  installRateLimits(app, runtime);

  app.get('/healthz', { config: UNLIMITED, schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Unlimited for the orchestrator's probes, and shared, so no number of requests loads the database (src/http/readiness.ts).
  const readiness = new SharedReadiness(() =>
    pingDatabase(database.db).catch((error: unknown) => {
      app.log.warn({ err: error }, 'readiness check failed');
      throw error;
    }),
  );
  app.get('/readyz', { config: UNLIMITED, schema: { hide: true } }, async (request, reply) => {
    if ((await readiness.check()).ready) return { status: 'ready', database: database.kind };
    return reply.status(503).send({ error: 'service_unavailable', message: 'database is not reachable', requestId: request.id });
  });

  for (const routes of domainRoutes) await app.register(routes, runtime);
  return app;
}
