import type { FastifyRequest } from 'fastify';
import { forbidden } from '../http/errors.js';

/**
 * Actions that change a store are only taken from the service's own pages. Browsers send Origin
 * on every POST, so a script on another site calling the action directly is refused (the plugin
 * carries no credentials, SPEC 5.5, so this is its request-forgery guard).
 */
export function requireOwnOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  let same = false;
  try {
    // Both sides parsed, so an explicit default port (host:80) equals its omission.
    same = origin !== undefined && new URL(origin).host === new URL(`http://${request.headers.host ?? ''}`).host;
  } catch {
    same = false;
  }
  if (!same) throw forbidden('this action is only accepted from the service\'s own pages');
}
