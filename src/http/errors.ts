import { Type } from 'typebox';

/** Every error the API sends has this shape (SPEC 7.1); some codes add fields such as `allowed`. */
export const ErrorResponse = Type.Object(
  {
    error: Type.String({ description: 'Machine-readable error code' }),
    message: Type.String({ description: 'What check failed, in words' }),
    requestId: Type.Optional(Type.String()),
    allowed: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'ErrorResponse', title: 'Error' },
);

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, code = 'invalid_request', extra: Record<string, unknown> = {}) =>
  new ApiError(400, code, message, extra);

export const unauthorized = (message: string) => new ApiError(401, 'unauthorized', message);

export const notFound = (message: string) => new ApiError(404, 'not_found', message);

export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);

export const conflict = (message: string) => new ApiError(409, 'conflict', message);

/** Seconds a client is asked to wait (Retry-After) when the database is unreachable (503). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Raised when the database cannot be reached; answered as 503 with Retry-After so clients retry instead of failing hard. */
export const serviceUnavailable = (message: string) =>
  new ApiError(503, 'service_unavailable', message, {}, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
