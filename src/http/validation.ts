import type { FastifyInstance } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false };

/**
 * JSON bodies are validated as sent (a number is not a domain); query strings and headers are
 * text on the wire, so they are coerced to the schema's types.
 */
export function installValidators(app: FastifyInstance): void {
  const bodyAjv = addFormats(new Ajv({ ...shared, coerceTypes: false }));
  const textAjv = addFormats(new Ajv({ ...shared, coerceTypes: 'array' }));
  for (const ajv of [bodyAjv, textAjv]) ajv.addKeyword('example').addKeyword('x-internal');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyAjv.compile(schema) : textAjv.compile(schema),
  );
}
