import { Type, type TSchema, type TString, type TStringOptions, type TUnsafe } from 'typebox';

/** An operation's `security`: any one of the requirements admits the caller; none listed means anyone may call. */
export type SecurityRequirements = Array<Record<string, string[]>>;

/** A string limited to a list of values, as a plain JSON Schema enum (clear error messages, clean OpenAPI). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number]; examples?: T[number][] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * Text that must stay on one line: no control character (C0 and C1, so no line break, carriage
 * return or tab, and no DEL) and no Unicode line or paragraph separator. A name is written into
 * CSV exports, mails and pages; a second line in it would start a line of its own there (a row a
 * spreadsheet could read as a formula: docs/security.md, "Names are one line").
 */
export const ONE_LINE_PATTERN = '^[^\\p{Cc}\\p{Zl}\\p{Zp}]*$';
export const ONE_LINE_MESSAGE = 'must be one line: no line breaks, tabs or other control characters';

/** A name or label: a string of one line (ONE_LINE_PATTERN), with the given length limits. */
export function OneLineText(options: TStringOptions = {}): TString {
  return Type.String({ ...options, pattern: ONE_LINE_PATTERN });
}

/** The requestId the reference's examples show (every response carries its own, also as X-Request-Id). */
const EXAMPLE_REQUEST_ID = '0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d';

/**
 * A response the API reference describes: `description` says when it comes (@fastify/swagger
 * reads it from `x-response-description`, so the schema itself stays as it is).
 */
export function described<T extends TSchema>(description: string, schema: T): T {
  return { ...schema, 'x-response-description': description } as T;
}

/** An error answer (ErrorResponse, SPEC 7): when it comes, and an example of its body. */
export function errorResponse(description: string, example: { error: string; message: string; allowed?: string[] }): TSchema {
  // allOf around the reference: @fastify/swagger keeps examples beside an allOf, not beside a bare $ref.
  return Type.Unsafe({
    allOf: [Type.Ref('ErrorResponse')],
    'x-response-description': description,
    examples: [{ ...example, requestId: EXAMPLE_REQUEST_ID }],
  });
}

/** An answer without a body (a redirect, an empty 200), with the headers it carries. */
export function emptyResponse(description: string, headers: Record<string, { type: 'string'; description: string }> = {}): TSchema {
  return Type.Unsafe({ type: 'null', description, ...(Object.keys(headers).length > 0 ? { headers } : {}) });
}

/** Every limited route answers this past its budget (src/http/rate-limit.ts). */
export const RATE_LIMITED = errorResponse('Too many requests for this key or address this minute; Retry-After says when to retry', {
  error: 'rate_limited',
  message: 'rate limit of 600 requests per minute exceeded; retry in 12 s',
});

/** Any route that reads or writes the database answers this while it cannot reach it (Retry-After: 5). */
export const DATABASE_UNAVAILABLE = errorResponse('The database could not be reached; retry after Retry-After seconds', {
  error: 'service_unavailable',
  message: 'the service is temporarily unavailable; retry shortly',
});

/** The answer to a missing, unknown, expired or revoked brand credential (SPEC 7.2, 7.3). */
export const BRAND_UNAUTHORIZED = errorResponse('The API key or access token is missing, invalid, expired or revoked', {
  error: 'unauthorized',
  message: 'invalid API key: unknown or revoked',
});

/** The brand lists' answer when the list cannot be loaded (SPEC 4.3-4.5). */
export const LIST_NOT_LOADED = errorResponse('The list could not be loaded', {
  error: 'internal_error',
  message: 'the request could not be completed because of an error on our side',
});

/** A brand's call with an API key or an OAuth access token (SPEC 5.1, 5.4). */
export const BRAND_SECURITY: SecurityRequirements = [{ apiKey: [] }, { bearer: [] }];
/** A route anyone may call. */
export const PUBLIC: SecurityRequirements = [];

/** A demo platform id, for the examples (the demo data's "Checkout Co"). */
export const EXAMPLE_PLATFORM_ID = '7d9c3f5e-2b1a-4c8e-9f4d-1a2b3c4d5e6f';
