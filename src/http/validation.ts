import { isUtf8 } from 'node:buffer';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describeValidationError } from './error-handler.js';
import { badRequest } from './errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false };

/** How a number must be written in a query string, path or header: digits only, no `0x10`, `1e2`, `+2`, ` 2` or `2.`. */
const DECIMAL_TEXT = { integer: /^-?[0-9]+$/, number: /^-?[0-9]+(\.[0-9]+)?$/ } as const;

type NumericType = keyof typeof DECIMAL_TEXT;

function numericTypeOf(schema: unknown): NumericType | undefined {
  const type = (schema as { type?: unknown } | undefined)?.type;
  return type === 'integer' || type === 'number' ? type : undefined;
}

/** The top-level properties of a query, path or header schema that hold numbers. */
function numericProperties(schema: unknown): Array<[string, NumericType]> {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) => {
    const type = numericTypeOf(property);
    return type ? [[name, type] as [string, NumericType]] : [];
  });
}

/**
 * Ajv's coercion reads text as JavaScript does (`0x10` is 16, ` 2` and `2.` are 2), so numbers
 * written on the wire are checked as text before they are coerced.
 */
function withDecimalNumbers(validate: ValidateFunction, schema: unknown): ValidateFunction | ((data: unknown) => boolean) {
  const numeric = numericProperties(schema);
  if (numeric.length === 0) return validate;
  const checked = (data: unknown): boolean => {
    const values = (data ?? {}) as Record<string, unknown>;
    for (const [name, type] of numeric) {
      const sent = values[name];
      if (sent === undefined) continue;
      if ([sent].flat().every((one) => typeof one === 'string' && DECIMAL_TEXT[type].test(one))) continue;
      const error: ErrorObject = {
        instancePath: `/${name}`,
        schemaPath: `#/properties/${name}/type`,
        keyword: 'type',
        params: { type },
        message: `must be ${type}, written in decimal digits`,
      };
      checked.errors = [error];
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  };
  checked.errors = null as ErrorObject[] | null | undefined;
  return checked;
}

/**
 * Why a piece of text cannot be accepted: PostgreSQL text cannot hold U+0000, and a lone UTF-16
 * surrogate is no character at all (it would be stored as U+FFFD, silently changing the value).
 */
function unacceptableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (/\p{Cs}/u.test(text)) return 'must be valid Unicode text (it contains a lone surrogate)';
  return undefined;
}

/** JSON Pointer escaping, as Ajv writes instance paths. */
const pointerPart = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The first string (or property name) in a parsed query, path or body that cannot be stored.
 * Iterative, so a deeply nested body cannot exhaust the stack.
 */
function findUnacceptableText(root: unknown): { instancePath: string; message: string } | undefined {
  // Each entry keeps its parent and name; a path is spelled out only for the value refused.
  interface Entry {
    value: unknown;
    parent: Entry | undefined;
    name: string;
  }
  const pathOf = (entry: Entry | undefined): string => (entry?.parent ? `${pathOf(entry.parent)}/${pointerPart(entry.name)}` : '');
  const pending: Entry[] = [{ value: root, parent: undefined, name: '' }];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    const { value } = entry;
    if (typeof value === 'string') {
      const message = unacceptableText(value);
      if (message) return { instancePath: pathOf(entry), message };
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) pending.push({ value: item, parent: entry, name: String(index) });
    } else if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      // (A Buffer is a raw body its route parses itself: bytes, not text fields.)
      for (const [name, item] of Object.entries(value)) {
        const message = unacceptableText(name);
        // The name itself is not repeated in the answer: it is the part that cannot be shown.
        if (message) return { instancePath: pathOf(entry), message: `has a field name that ${message}` };
        pending.push({ value: item, parent: entry, name });
      }
    }
  }
  return undefined;
}

/** A validation error as Fastify builds one, so every route answers it in its own error shape. */
function textValidationError(context: 'params' | 'querystring' | 'body', found: { instancePath: string; message: string }): FastifyError {
  const error = new Error(found.message) as FastifyError;
  Object.assign(error, {
    statusCode: 400,
    code: 'FST_ERR_VALIDATION',
    validationContext: context,
    validation: [{ instancePath: found.instancePath, schemaPath: '#', keyword: 'text', params: {}, message: found.message }],
  });
  // Routes with their own error handler (OAuth's, RFC 6749) read the message.
  error.message = describeValidationError(error);
  return error;
}

function rejectUnacceptableText(request: FastifyRequest, _reply: FastifyReply, done: (error?: FastifyError) => void): void {
  // A path and query string decode to such text only through percent-escapes (the HTTP parser
  // refuses a raw NUL), so a URL without any is not walked.
  const parts = request.url.includes('%')
    ? ([
        ['params', request.params],
        ['querystring', request.query],
        ['body', request.body],
      ] as const)
    : ([['body', request.body]] as const);
  for (const [context, value] of parts) {
    if (value === undefined) continue;
    const found = findUnacceptableText(value);
    if (found) {
      done(textValidationError(context, found));
      return;
    }
  }
  done();
}

let compilers: { bodyAjv: Ajv; textAjv: Ajv } | undefined;

/**
 * One pair of Ajv instances per process: Ajv keeps what it compiled by schema, and the schemas are
 * the code's own, so a second app in the process (the test suite builds hundreds) compiles nothing
 * again. A compiled validator keeps no state between calls but its last `errors`, which Fastify
 * reads in the same synchronous step.
 */
function validatorCompilers(): { bodyAjv: Ajv; textAjv: Ajv } {
  if (!compilers) {
    const bodyAjv = addFormats(new Ajv({ ...shared, coerceTypes: false }));
    const textAjv = addFormats(new Ajv({ ...shared, coerceTypes: 'array' }));
    for (const ajv of [bodyAjv, textAjv]) ajv.addKeyword('example').addKeyword('x-internal');
    compilers = { bodyAjv, textAjv };
  }
  return compilers;
}

/** What a content-type parser calls back with: the error, or the parsed body. */
export type ParserDone = (error: Error | null, body?: unknown) => void;

/**
 * The app's reading of a JSON body received as bytes: UTF-8 only, then Fastify's own parser (which
 * refuses `__proto__` and `constructor.prototype` keys). Routes that read the bytes first (a
 * signature over them) parse with this too.
 */
export function jsonFromBytes(app: FastifyInstance): (request: FastifyRequest, bytes: Buffer, done: ParserDone) => void {
  const parseJson = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  return (request, bytes, done) => {
    // Decoding would quietly turn invalid bytes into U+FFFD, storing something the client never sent.
    if (!isUtf8(bytes)) return done(badRequest('malformed JSON body: it is not valid UTF-8'), undefined);
    parseJson(request, bytes.toString('utf8'), done);
  };
}

/**
 * JSON bodies are validated as sent (a number is not a domain); query strings and headers are
 * text on the wire, so they are coerced to the schema's types, numbers from decimal digits only.
 * Every route, with or without a schema, refuses text that cannot be stored (NUL, lone
 * surrogates) in its path, query and body, and JSON bodies that are not UTF-8, before any handler runs.
 */
export function installValidators(app: FastifyInstance): void {
  const { bodyAjv, textAjv } = validatorCompilers();
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyAjv.compile(schema) : withDecimalNumbers(textAjv.compile(schema), schema),
  );

  const parseJson = jsonFromBytes(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => parseJson(request, body as Buffer, done));

  app.addHook('preValidation', rejectUnacceptableText);
}
