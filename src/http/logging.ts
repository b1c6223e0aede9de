import type { FastifyServerOptions } from 'fastify';

/** Query parameters whose values are secrets or one-time codes; their values never reach a log line. */
const SECRET_QUERY_PARAM = /key|token|secret|code|password|verifier/i;
/**
 * Values that carry one of the service's credentials, whatever the parameter is called: a client
 * that puts a key or token in the wrong parameter must not get it written to the log.
 */
const CREDENTIAL_VALUE = /svc_(?:test|live|platform_test|platform_live|at|rt|cs)_/;

export function redactUrl(url: string): string {
  const questionMark = url.indexOf('?');
  if (questionMark === -1) return url;
  const params = new URLSearchParams(url.slice(questionMark + 1));
  for (const name of [...params.keys()]) {
    if (SECRET_QUERY_PARAM.test(name) || params.getAll(name).some((value) => CREDENTIAL_VALUE.test(value))) params.set(name, '[REDACTED]');
  }
  return `${url.slice(0, questionMark)}?${params.toString()}`;
}

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        'headers["x-api-key"]',
        'headers.authorization',
        'headers.cookie',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req(request: { method: string; url: string; id: string; ip?: string }) {
        return { method: request.method, url: redactUrl(request.url), id: request.id, remoteAddress: request.ip };
      },
    },
  };
}
