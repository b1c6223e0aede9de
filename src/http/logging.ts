import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { pino, type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger } from 'pino';
import pinoPretty, { type PrettyOptions } from 'pino-pretty';

/**
 * Query parameters whose values are secrets or one-time values (an OAuth `state` and `code`, a PKCE
 * challenge, a nonce, a platform's request signature); their values never reach a log line.
 */
const SECRET_QUERY_PARAM = /^(?:state|sig)$|key|token|secret|code|password|verifier|challenge|nonce|hmac|signature/i;
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

/**
 * How log lines are written: JSON, one object a line, wherever a program reads them (tests, CI,
 * production: stdout is a pipe or a file); short readable lines when a person watches a terminal.
 */
export type LogFormat = 'json' | 'pretty';

export function logFormatFor(output: { isTTY?: boolean }): LogFormat {
  return output.isTTY ? 'pretty' : 'json';
}

interface RequestLine {
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number; error?: string };
  responseTime?: number;
}

/** The `error` code of each error answer, read as it is sent, for the answer's log line. */
const errorCodes = new WeakMap<object, string>();

/** An onSend step: remembers the `error` code of a 4xx/5xx JSON answer, so its log line names it. */
export function noteErrorCode(reply: FastifyReply, payload: unknown): void {
  if (reply.statusCode < 400 || typeof payload !== 'string' || !payload.startsWith('{')) return;
  try {
    const code = (JSON.parse(payload) as { error?: unknown }).error;
    if (typeof code === 'string') errorCodes.set(reply, code);
  } catch {
    // Not JSON after all: the line keeps its status alone.
  }
}

function answerLine(line: RequestLine): string {
  const res = line.res ?? {};
  return ['←', res.statusCode, res.error, `${Math.round(line.responseTime ?? 0)} ms`].filter((part) => part !== undefined).join(' ');
}

/**
 * The terminal's lines: time, level and message; a request in and its answer as
 * `→ GET /v1/partners req=…` and `← 404 not_found 4 ms req=…`, so the `requestId` a user
 * reports is found with a search; the process and host ids left out.
 */
export const PRETTY_OPTIONS: PrettyOptions = {
  translateTime: 'SYS:HH:MM:ss',
  ignore: 'pid,hostname,reqId,req,res,responseTime',
  singleLine: true,
  messageFormat: (log) => {
    const line = log as RequestLine;
    let message = line.msg ?? '';
    if (line.msg === 'incoming request' && line.req) message = `→ ${line.req.method} ${line.req.url}`;
    else if (line.msg === 'request completed' && line.res) message = answerLine(line);
    return line.reqId ? `${message} req=${line.reqId}` : message;
  },
};

/** Headers that carry credentials, wherever a line logs them (a request, an outgoing call). */
const REDACT = {
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
};

function prettyStream(destination?: DestinationStream) {
  return pinoPretty({ ...PRETTY_OPTIONS, colorize: !destination, sync: true, ...(destination ? { destination } : {}) });
}

export function loggerOptions(level: string, format: LogFormat = 'json'): FastifyServerOptions['logger'] {
  return {
    level,
    ...(format === 'pretty' ? { stream: prettyStream() } : {}),
    redact: REDACT,
    serializers: {
      req(request: { method: string; url: string; id: string; ip?: string }) {
        return { method: request.method, url: redactUrl(request.url), id: request.id, remoteAddress: request.ip };
      },
      res(reply: { statusCode: number }) {
        const error = errorCodes.get(reply);
        return error ? { statusCode: reply.statusCode, error } : { statusCode: reply.statusCode };
      },
    },
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route browsers call again and again (the embed app's polling): its requests write no
     * lines unless they fail; the route logs what changed itself.
     */
    quietRequestLog?: boolean;
  }
}

function isQuiet(request: FastifyRequest): boolean {
  return request.routeOptions?.config?.quietRequestLog === true;
}

/** Fastify's request lines, except that a quiet route's successful requests write none. */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!isQuiet(request)) super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (isQuiet(request) && !error && reply.statusCode < 400) return;
    super.requestCompleted(error, request, reply);
  }
}

/**
 * The logger of a process without an HTTP server (the worker): the API's redaction, and the same
 * readable lines when a person watches it in a terminal. `destination` is stdout unless given.
 */
export function processLogger(name: string, level: string, format: LogFormat, destination?: DestinationStream): Logger {
  const options = { name, level, redact: REDACT };
  if (format === 'pretty') return pino(options, prettyStream(destination));
  return destination ? pino(options, destination) : pino(options);
}

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LoggerWithLevels = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/**
 * A request's logger, made only when the request writes a line at an enabled level. At `info`
 * (the default) Fastify logs every request, so each gets its child anyway; at `warn` and above
 * (what docs/operations.md advises for a busy instance) most requests write none, and building
 * a pino child for each (bindings serialized, a new object) was a visible share of the offers
 * endpoint's CPU time.
 */
class LazyChildLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LoggerWithLevels,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }

  private real(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  private write(method: LogMethod, args: unknown[]): void {
    if (this.made || this.parent.isLevelEnabled(method)) (this.real()[method] as (...values: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}
}

/** Fastify's childLoggerFactory: a route with its own log level gets its child at once, others a lazy one. */
export function requestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || typeof (parent as Partial<LoggerWithLevels>).isLevelEnabled !== 'function')
    return parent.child(bindings, options);
  return new LazyChildLogger(parent as LoggerWithLevels, bindings, options) as unknown as FastifyBaseLogger;
}
