import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isPublicApiPath } from './cors.js';
import { browserAssets } from './assets.js';
import { renderPage } from './page.js';
import { pagePolicy, policyHeader } from './csp.js';
import { notFoundPage, wantsHtmlPage } from './not-found-page.js';
import { ApiError, DATABASE_RETRY_AFTER_SECONDS, serviceUnavailable } from './errors.js';
import { ONE_LINE_MESSAGE, ONE_LINE_PATTERN } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error code used when request validation fails on this route (default invalid_request). */
    validationErrorCode?: string;
    /** Builds the ApiError for a failed validation when the route needs more than a code. */
    validationError?: (error: FastifyError) => ApiError;
  }
}

/**
 * The database went away or went silent: connection errors, and the bounds of src/db/database.ts
 * running out (57014 is PostgreSQL cancelling a statement at statement_timeout, 25P03 ending a
 * session idle in a transaction).
 */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  '57P01',
  '57P03',
  '08006',
  '08001',
  '57014',
  '25P03',
]);
/** What node-postgres and PGlite say when a connection failed or a bound ran out without a code. */
const CONNECTION_ERROR_MESSAGE = new RegExp(
  [
    'Connection terminated',
    'timeout exceeded when trying to connect',
    'timeout expired',
    'Query read timeout',
    'Client has encountered a connection error',
  ].join('|'),
  'i',
);

/** Also used by the OAuth endpoints, which answer 503 in their own error shape. */
export { DATABASE_RETRY_AFTER_SECONDS };

/**
 * SQLSTATEs of a value the database would not take as text of its type: a NUL character (22021),
 * a Unicode escape it cannot convert (22P05), text that is not a valid uuid, number or the like
 * (22P02). Only a client's input produces these, so they are the client's error: a safety net
 * behind the validation layer, which refuses such input before any query runs.
 */
const INVALID_TEXT_CODES = new Set(['22021', '22P05', '22P02']);

function isInvalidText(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && INVALID_TEXT_CODES.has(code);
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const candidate = error as { code?: string; message?: string } | undefined;
  if (!candidate) return false;
  if (candidate.code && CONNECTION_ERROR_CODES.has(candidate.code)) return true;
  return CONNECTION_ERROR_MESSAGE.test(candidate.message ?? '');
}

/** Names where a check failed: `brands[3].status`, `query parameter pageSize`, `header X-Platform-Id`. */
function describeLocation(context: string, pathParts: string[]): string {
  const path = pathParts.reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
  switch (context) {
    case 'body':
      return path || 'body';
    case 'querystring':
      return `query parameter ${path}`;
    case 'headers':
      return `header ${path}`;
    case 'params':
      return `path parameter ${path}`;
    default:
      return path || context;
  }
}

/** Turns a validation error into words naming the field, e.g. "brands[3].status must be one of active, closed". */
export function describeValidationError(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const context = error.validationContext ?? 'request';
  const pathParts = first.instancePath.split('/').filter(Boolean);
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required' && typeof params.missingProperty === 'string') {
    return `${describeLocation(context, [...pathParts, params.missingProperty])} is required`;
  }
  if (first.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return `${describeLocation(context, pathParts)} has unknown field ${params.additionalProperty}`;
  }
  const where = describeLocation(context, pathParts);
  if (first.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `${where} must be one of ${params.allowedValues.join(', ')}`;
  }
  if (first.keyword === 'maxItems') return `${where} must not have more than ${String(params.limit)} items`;
  if (first.keyword === 'pattern' && params.pattern === ONE_LINE_PATTERN) return `${where} ${ONE_LINE_MESSAGE}`;
  if (first.keyword === 'maxLength') return `${where} must not be longer than ${String(params.limit)} characters`;
  return `${where} ${first.message ?? 'is invalid'}`;
}

function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.status(error.statusCode).send({
    error: error.code,
    message: error.message,
    ...error.extra,
    requestId: request.id,
  });
}

const megabytes = (bytes: number | undefined) => Math.round((bytes ?? 1024 * 1024) / (1024 * 1024));

function toApiError(error: FastifyError, request: FastifyRequest): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const config = request.routeOptions?.config;
  if (error.validation) {
    if (config?.validationError) return config.validationError(error);
    return new ApiError(400, config?.validationErrorCode ?? 'invalid_request', describeValidationError(error));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // The app's limit is 1 MB; a route may set its own (Shopify's webhooks).
      return new ApiError(400, 'invalid_request', `request body is larger than the ${megabytes(request.routeOptions?.bodyLimit)} MB limit`);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'invalid_request', `malformed JSON body: ${error.message}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(400, 'invalid_request', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'invalid_request', 'Content-Length does not match the body');
    default:
      break;
  }
  if (error.statusCode === 429) {
    return new ApiError(429, 'rate_limited', error.message);
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(error.statusCode, 'invalid_request', error.message);
  }
  return undefined;
}

export function installErrorHandlers(app: FastifyInstance, knownRoutes: () => Array<{ method: string; pattern: RegExp }>) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError) return sendError(reply, request, apiError);
    if (isInvalidText(error)) {
      // A route let such text through its validation: worth fixing, hence the warning.
      request.log.warn({ err: error }, 'the database refused text from the request');
      return sendError(
        reply,
        request,
        new ApiError(400, 'invalid_request', 'the request contains text that cannot be stored (for example a NUL character)'),
      );
    }
    if (isDatabaseUnavailable(error)) {
      request.log.error({ err: error }, 'database unavailable');
      return sendError(reply, request, serviceUnavailable('the service is temporarily unavailable; retry shortly'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(
      reply,
      request,
      new ApiError(500, 'internal_error', 'the request could not be completed because of an error on our side'),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // Browser callers of the public API can read why their call found nothing; nobody else needs to.
    request.readableCrossOrigin = isPublicApiPath(path);
    const allowed = knownRoutes()
      .filter((route) => route.pattern.test(path))
      .map((route) => route.method);
    if (allowed.length > 0) {
      reply.header('Allow', [...new Set(allowed)].join(', '));
      return sendError(
        reply,
        request,
        new ApiError(405, 'method_not_allowed', `${request.method} is not allowed on ${path}; use ${[...new Set(allowed)].join(', ')}`),
      );
    }
    if (wantsHtmlPage(request, path)) {
      const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
      // Outside every page scope (no helmet here): the page's headers are written as the page scopes write them.
      return browserAssets().then((assets) =>
        reply
          .status(404)
          .type('text/html; charset=utf-8')
          .header('Content-Security-Policy', policyHeader(pagePolicy()))
          .header('X-Content-Type-Options', 'nosniff')
          .header('X-Frame-Options', 'DENY')
          .header('Referrer-Policy', 'same-origin')
          .header('Cache-Control', 'no-store')
          .send(renderPage(notFoundPage(assets.url.pagesStyle, shown, request.id))),
      );
    }
    return sendError(reply, request, new ApiError(404, 'not_found', `no route ${request.method} ${path}`));
  });
}
