import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonFromBytes } from './validation.js';

/** Checks a body's signature over the exact bytes sent; throws (an ApiError, 401) when it does not match. */
export type BodySignatureCheck = (request: FastifyRequest, body: Buffer) => void;

const signedBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * The scope's JSON bodies are signed ones (a webhook's): Fastify reads the body as bytes, refusing
 * it while it streams once it passes the route's limit; the signature is checked over those bytes;
 * only a body it matches is decoded and parsed, and then its values walked (validation.ts). An
 * unsigned or wrongly signed body so costs one HMAC of its bytes: never a parse, a walk or a write
 * (issue 44: 13 unsigned 10 MB bodies in 10 s took /readyz from 4 ms to 699 ms when they were parsed first).
 */
export function acceptSignedJson(scope: FastifyInstance, checkSignature: BodySignatureCheck): void {
  const parseJson = jsonFromBytes(scope);
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    try {
      checkSignature(request, bytes);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    signedBodies.set(request, bytes);
    parseJson(request, bytes, done);
  });
}

/** The raw bytes of a request's body whose signature matched; undefined when it sent none (or it was refused). */
export function signedBodyOf(request: FastifyRequest): Buffer | undefined {
  return signedBodies.get(request);
}
